import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Drain } from './drain';

/** A plain HTTP server followed by a Drain, answering every request "ok". */
async function drainedServer(): Promise<{ server: Server; drain: Drain; port: number; accepted: Socket[] }> {
  const server = createServer((_request, response) => response.end('ok'));
  const drain = new Drain();
  drain.attach(server);
  const accepted: Socket[] = [];
  server.on('connection', (socket: Socket) => accepted.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, drain, port: (server.address() as AddressInfo).port, accepted };
}

/** Everything the client received until the connection ended, or how it ended. */
function received(socket: Socket): Promise<string> {
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  return new Promise((resolve) => {
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.once('close', () => resolve(text));
  });
}

describe('Drain: closing connections that send nothing', () => {
  it('answers a request that reached the server, unread, as its listener closed', async () => {
    const { server, drain, port, accepted } = await drainedServer();
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    while (accepted.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const answer = received(client);

    // The request goes to the kernel now; the server reads it no sooner than the event loop's next poll, after
    // the listener has closed and the silent connections are looked for.
    client.write('GET / HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n');
    const closed = once(server, 'close');
    server.close();
    drain.closeSilentConnections();

    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.endsWith('ok')).toBe(true);
    await closed;
  });

  it('closes a keep-alive connection between requests at once, so the server closes', async () => {
    const { server, drain, port } = await drainedServer();
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    const answer = received(client);
    client.write('GET / HTTP/1.1\r\nhost: test\r\n\r\n');
    await once(client, 'data');

    const closed = once(server, 'close');
    server.close();
    drain.closeSilentConnections();
    await closed;
    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*keep-alive[\s\S]*ok$/i);
  });

  it('still closes a connection that never sends, so the server closes', async () => {
    const { server, drain, port } = await drainedServer();
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    const answer = received(client);
    const closed = once(server, 'close');
    server.close();
    drain.closeSilentConnections();

    await closed;
    expect(await answer).toBe('');
  });
});
