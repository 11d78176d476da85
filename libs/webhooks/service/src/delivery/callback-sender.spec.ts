import { TARGET_NOT_ALLOWED } from '@paygate/net-guard';
import { verifyCollectionSignature, verifyStandardWebhook } from '@paygate/signing';
import { parseRetryAfter } from './callback-sender';
import { body, KEY, payload, senderHarness } from './callback-sender-test-setup';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  it.each([
    [undefined, undefined],
    ['2', 2_000],
    [' 120 ', 120_000],
    ['Sun, 01 Jun 2025 12:00:30 GMT', 30_000],
    ['Sun, 01 Jun 2025 11:00:00 GMT', 0],
    ['999999999', 86_400_000],
    ['Mon, 01 Jun 2026 12:00:00 GMT', 86_400_000],
    ['soon', undefined],
    ['-5', undefined],
  ])('%j → %j ms', (value, ms) => expect(parseRetryAfter(value, now)).toBe(ms));
});

describe('CallbackSender', () => {
  const { receiver, sender } = senderHarness();
  let endpoint: Awaited<ReturnType<typeof receiver>>;
  beforeEach(async () => {
    endpoint = await receiver();
  });

  it('posts the exact body, signed both ways, to a loopback endpoint when private targets are allowed', async () => {
    const outcome = await sender().send({ webhookId: 'msg_1', targetUrl: endpoint.url(), body }, KEY);

    expect(outcome).toMatchObject({ statusCode: 200, responseExcerpt: 'thanks' });
    expect(outcome.error).toBeUndefined();
    const [request] = endpoint.received;
    expect(request.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'Paygate-Webhooks/1',
      'webhook-id': 'msg_1',
    });
    expect(verifyCollectionSignature(KEY, payload, String(request.headers['hmac-signature']))).toBe(true);
    expect(verifyStandardWebhook(KEY, request.headers as Record<string, string>, request.body.toString('utf8'))).toBe(
      true,
    );
  });

  it('sends credentials in the URL as Basic authorization, and never the fragment', async () => {
    const targetUrl = `http://shop%40id:s%3Acret@127.0.0.1:${endpoint.port}/hook?tenant=9#top`;
    expect((await sender().send({ webhookId: 'msg_auth', targetUrl, body }, KEY)).statusCode).toBe(200);

    const [request] = endpoint.received;
    expect(request.path).toBe('/hook?tenant=9');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('shop@id:s:cret').toString('base64')}`);
  });

  // Only forms that reach this test's own listener: every other range is the decision table's (libs/net-guard).
  it.each([
    ['IPv4 loopback', 'http://127.0.0.1:PORT/hook', 'loopback (127.0.0.0/8)'],
    ['loopback in decimal', 'http://2130706433:PORT/hook', 'loopback (127.0.0.0/8)'],
    ['loopback in short hex', 'http://0x7f.1:PORT/hook', 'loopback (127.0.0.0/8)'],
    [
      'IPv4-mapped loopback',
      'http://[::ffff:127.0.0.1]:PORT/hook',
      'IPv4-mapped (::ffff:0:0/96) of loopback (127.0.0.0/8)',
    ],
    ['a localhost name', 'http://localhost:PORT/hook', 'loopback (localhost)'],
  ])('refuses %s unless private targets are allowed, and then delivers', async (_name, target, range) => {
    const targetUrl = target.replace('PORT', String(endpoint.port));
    const refused = await sender({ allowPrivate: false }).send({ webhookId: 'msg_2', targetUrl, body }, KEY);

    expect(refused.error).toBe(`${TARGET_NOT_ALLOWED}: ${range}`);
    expect(refused.statusCode).toBeUndefined();
    expect(endpoint.received).toHaveLength(0);
    expect(endpoint.connections()).toBe(0);

    const delivered = await sender().send({ webhookId: 'msg_2', targetUrl, body }, KEY);
    expect(delivered.statusCode).toBe(200);
    expect(endpoint.received).toHaveLength(1);
  });

  it.each(['ftp://127.0.0.1/hook', 'file:///etc/passwd', 'gopher://example.com/'])(
    'refuses the non-HTTP URL %s',
    async (targetUrl) => {
      const outcome = await sender().send({ webhookId: 'msg_3', targetUrl, body }, KEY);
      expect(outcome.error).toMatch(/not allowed/);
      expect(outcome.statusCode).toBeUndefined();
    },
  );

  it('reports a refused connection as an error without a status', async () => {
    await endpoint.close();
    const outcome = await sender().send({ webhookId: 'msg_4', targetUrl: endpoint.url('/'), body }, KEY);
    expect(outcome.statusCode).toBeUndefined();
    expect(outcome.error).toMatch(/ECONNREFUSED/);
  });

  it('does not send a body it cannot sign, and never names the key', async () => {
    const outcome = await sender().send({ webhookId: 'msg_5', targetUrl: endpoint.url('/'), body: 'not json' }, KEY);
    expect(outcome.error).toMatch(/cannot be signed/);
    expect(JSON.stringify(outcome)).not.toContain(KEY);
    expect(endpoint.received).toHaveLength(0);
  });

  it('reports a webhook id a header cannot carry as an error rather than throwing', async () => {
    const outcome = await sender().send({ webhookId: 'msg_6\r\nx-injected: 1', targetUrl: endpoint.url(), body }, KEY);
    expect(outcome.statusCode).toBeUndefined();
    expect(outcome.error).toBeDefined();
    expect(endpoint.received).toHaveLength(0);
  });
});

describe('CallbackSender reading the answer', () => {
  const { receiver, sender } = senderHarness();

  it('keeps the first 1024 bytes of the body without NUL, and the Retry-After', async () => {
    const answer = `busy\u0000${'x'.repeat(4_000)}`;
    const endpoint = await receiver((response) => response.writeHead(503, { 'retry-after': '7' }).end(answer));
    const outcome = await sender().send({ webhookId: 'msg_7', targetUrl: endpoint.url(), body }, KEY);

    expect(outcome).toMatchObject({ statusCode: 503, retryAfterMs: 7_000 });
    expect(outcome.responseExcerpt).toBe(`busy${'x'.repeat(1_019)}`);
  });

  it('takes a redirect as the answer and does not follow it', async () => {
    const endpoint = await receiver((response) => response.writeHead(307, { location: '/elsewhere' }).end());
    const outcome = await sender().send({ webhookId: 'msg_8', targetUrl: endpoint.url(), body }, KEY);

    expect(outcome.statusCode).toBe(307);
    expect(endpoint.received.map((request) => request.path)).toEqual(['/hook']);
  });

  it('times out when no answer comes in time', async () => {
    const endpoint = await receiver(() => undefined);
    const outcome = await sender({ timeoutMs: 200 }).send({ webhookId: 'msg_9', targetUrl: endpoint.url(), body }, KEY);

    expect(outcome.statusCode).toBeUndefined();
    expect(outcome.error).toBe('timed out after 200 ms');
  });

  it('keeps a status that came in time when the body then stalls', async () => {
    const endpoint = await receiver((response) => response.writeHead(200).write('partial'));
    const outcome = await sender({ timeoutMs: 200 }).send(
      { webhookId: 'msg_10', targetUrl: endpoint.url(), body },
      KEY,
    );

    expect(outcome).toMatchObject({ statusCode: 200, responseExcerpt: 'partial' });
    expect(outcome.error).toBeUndefined();
  });
});
