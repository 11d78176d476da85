import { Gate, heldRoute, parseResponses, rawConnection, startTestApp, type TestApp } from '../platform-test-app';
import { expectClosingError } from './http-test-setup';

/*
 * Issue 12: a request whose body stops short of its Content-Length, or whose headers trickle in
 * byte by byte, is answered 408 and its connection closed; an idle keep-alive connection is
 * closed. Small configured limits keep the suite quick; it asserts outcomes, not durations.
 * Requests that fail before they reach a route in other ways get the same envelope.
 */
describe('HTTP time limits', () => {
  const gate = new Gate();
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp([heldRoute(gate)], {
      HTTP_REQUEST_TIMEOUT_MS: '600',
      HTTP_HEADERS_TIMEOUT_MS: '300',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500',
    });
  });

  afterAll(async () => {
    gate.release();
    await server.app.close();
    await server.infrastructure.close();
  });

  const expectTimedOut = (received: string) =>
    expectClosingError(parseResponses(received), 408, 'the request did not arrive in time');

  it('answers 408 and closes the connection when the body stops short of its Content-Length', async () => {
    const connection = await rawConnection(server.port);
    connection.socket.write(
      'POST /health/live HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"started":',
    );
    expectTimedOut(await connection.closed);
  });

  it('answers 408 and closes the connection when the headers trickle in byte by byte', async () => {
    const connection = await rawConnection(server.port);
    // Headers that never end, one byte at a time, until the server gives up on them.
    const line = 'x-trickle: aaaaaaaaaaaaaaaaaaaa\r\n';
    let sent = 0;
    connection.socket.write('GET /health/live HTTP/1.1\r\nhost: test\r\n');
    const trickle = setInterval(() => {
      if (!connection.socket.destroyed) connection.socket.write(line[sent++ % line.length]);
    }, 20);
    const received = await connection.closed;
    clearInterval(trickle);
    expect(sent).toBeGreaterThan(0);
    expectTimedOut(received);
  });

  it('lets a handler take longer than the request deadline: the deadline is for the request to arrive', async () => {
    const connection = await rawConnection(server.port);
    connection.socket.write('GET /test/held HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n');
    await gate.reached;
    setTimeout(() => gate.release(), 1_000); // past HTTP_REQUEST_TIMEOUT_MS
    const [response] = parseResponses(await connection.closed);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ released: true });
  });

  it('serves a second request on a keep-alive connection after an idle spell longer than the header deadline', async () => {
    const connection = await rawConnection(server.port);
    connection.socket.write('GET /health/live HTTP/1.1\r\nhost: test\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 800)); // idle, past HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS
    connection.socket.write('GET /health/live HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n');
    expect(parseResponses(await connection.closed).map((response) => response.status)).toEqual([200, 200]);
  });

  it.each([
    ['a request that is not HTTP', 'HELLO\r\n\r\n', 400, 'the request is not valid HTTP'],
    [
      'a header value holding a control character',
      'GET /health/live HTTP/1.1\r\nhost: test\r\nx-bad: a\u0001b\r\n\r\n',
      400,
      'the request is not valid HTTP',
    ],
    [
      'headers over 16 KiB',
      `GET /health/live HTTP/1.1\r\nhost: test\r\nx-big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
      431,
      'the request headers are too large',
    ],
  ])('answers %s in the envelope too, and closes the connection', async (_case, request, status, message) => {
    const connection = await rawConnection(server.port);
    connection.socket.write(request);
    expectClosingError(parseResponses(await connection.closed), status, message);
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const connection = await rawConnection(server.port);
    connection.socket.write('GET /health/live HTTP/1.1\r\nhost: test\r\n\r\n');
    const [response, ...more] = parseResponses(await connection.closed);
    expect(response.status).toBe(200);
    expect(response.headers['keep-alive']).toBe('timeout=1');
    expect(more).toEqual([]);
  });
});
