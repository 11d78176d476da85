import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TARGET_NOT_ALLOWED } from '@paygate/net-guard';
import { verifyCollectionSignature, verifyStandardWebhook } from '@paygate/signing';
import { CallbackSender, parseRetryAfter } from './callback-sender';

const KEY = 'whsk_sender_spec_key';
const payload = {
  id: 7,
  merchant_reference: 'MR-7',
  internal_reference: 'IR-7',
  transaction_status: 'COMPLETED',
  status_message: 'Paid — ✓',
};
const body = JSON.stringify({ event: 'transaction.completed', payload });

/** A loopback endpoint answering 200 that records what it receives. */
async function receiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { received, port, close };
}

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
  let endpoint: Awaited<ReturnType<typeof receiver>>;
  beforeEach(async () => {
    endpoint = await receiver();
  });
  afterEach(() => endpoint.close());

  it('posts the exact body, signed both ways, to a loopback endpoint when private targets are allowed', async () => {
    const sender = new CallbackSender({ timeoutMs: 2_000, allowPrivate: true });
    const outcome = await sender.send(
      { webhookId: 'msg_1', targetUrl: `http://127.0.0.1:${endpoint.port}/hook`, body },
      KEY,
    );

    expect(outcome).toMatchObject({ statusCode: 200, responseExcerpt: 'thanks' });
    expect(outcome.error).toBeUndefined();
    const [request] = endpoint.received;
    expect(request.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Paygate-Webhooks/1',
      'webhook-id': 'msg_1',
    });
    expect(verifyCollectionSignature(KEY, payload, String(request.headers['hmac-signature']))).toBe(true);
    expect(verifyStandardWebhook(KEY, request.headers as Record<string, string>, request.body.toString('utf8'))).toBe(
      true,
    );
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
    const refused = await new CallbackSender({ timeoutMs: 2_000, allowPrivate: false }).send(
      { webhookId: 'msg_2', targetUrl, body },
      KEY,
    );

    expect(refused.error).toBe(`${TARGET_NOT_ALLOWED}: ${range}`);
    expect(refused.statusCode).toBeUndefined();
    expect(endpoint.received).toHaveLength(0);

    const delivered = await new CallbackSender({ timeoutMs: 2_000, allowPrivate: true }).send(
      { webhookId: 'msg_2', targetUrl, body },
      KEY,
    );
    expect(delivered.statusCode).toBe(200);
    expect(endpoint.received).toHaveLength(1);
  });

  it.each(['ftp://127.0.0.1/hook', 'file:///etc/passwd', 'gopher://example.com/'])(
    'refuses the non-HTTP URL %s',
    async (targetUrl) => {
      const outcome = await new CallbackSender({ timeoutMs: 2_000, allowPrivate: true }).send(
        { webhookId: 'msg_3', targetUrl, body },
        KEY,
      );
      expect(outcome.error).toMatch(/not allowed/);
      expect(outcome.statusCode).toBeUndefined();
    },
  );

  it('reports a refused connection as an error without a status', async () => {
    await endpoint.close();
    const outcome = await new CallbackSender({ timeoutMs: 2_000, allowPrivate: true }).send(
      { webhookId: 'msg_4', targetUrl: `http://127.0.0.1:${endpoint.port}/`, body },
      KEY,
    );
    expect(outcome.statusCode).toBeUndefined();
    expect(outcome.error).toMatch(/ECONNREFUSED/);
  });

  it('does not send a body it cannot sign, and never names the key', async () => {
    const outcome = await new CallbackSender({ timeoutMs: 2_000, allowPrivate: true }).send(
      { webhookId: 'msg_5', targetUrl: `http://127.0.0.1:${endpoint.port}/`, body: 'not json' },
      KEY,
    );
    expect(outcome.error).toMatch(/cannot be signed/);
    expect(JSON.stringify(outcome)).not.toContain(KEY);
    expect(endpoint.received).toHaveLength(0);
  });
});
