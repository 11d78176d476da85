import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyCollectionSignature, verifyStandardWebhook } from '@paygate/signing';
import { CallbackSender, isForbiddenAddress, parseRetryAfter, TARGET_NOT_ALLOWED } from './callback-sender';

const KEY = 'whsk_sender_spec_key';
const payload = { id: 7, merchant_reference: 'MR-7', internal_reference: 'IR-7', transaction_status: 'COMPLETED', status_message: 'Paid — ✓' };
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

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['100.127.255.255', true],
    ['0.0.0.0', true],
    ['::', true],
    ['::1', true],
    ['fc00::1', true],
    ['fd12:3456::1', true],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:a9fe:a9fe', true],
    ['::ffff:192.168.0.10', true],
    ['64:ff9b::10.0.0.1', true],
    ['not-an-address', true],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['172.32.0.1', false],
    ['100.128.0.1', false],
    ['192.169.0.1', false],
    ['169.255.0.1', false],
    ['2001:4860:4860::8888', false],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::8.8.8.8', false],
  ])('%s → forbidden %s', (address, forbidden) => expect(isForbiddenAddress(address)).toBe(forbidden));
});

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
    const outcome = await sender.send({ webhookId: 'msg_1', targetUrl: `http://127.0.0.1:${endpoint.port}/hook`, body }, KEY);

    expect(outcome).toMatchObject({ statusCode: 200, responseExcerpt: 'thanks' });
    expect(outcome.error).toBeUndefined();
    const [request] = endpoint.received;
    expect(request.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(request.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'Paygate-Webhooks/1', 'webhook-id': 'msg_1' });
    expect(verifyCollectionSignature(KEY, payload, String(request.headers['hmac-signature']))).toBe(true);
    expect(verifyStandardWebhook(KEY, request.headers as Record<string, string>, request.body.toString('utf8'))).toBe(true);
  });

  it.each([
    ['IPv4 loopback', (port: number) => `http://127.0.0.1:${port}/hook`],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/hook`],
    ['IPv4-mapped loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/hook`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/hook`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['the unspecified address', (port: number) => `http://0.0.0.0:${port}/hook`],
  ])('refuses %s unless private targets are allowed', async (_name, target) => {
    const sender = new CallbackSender({ timeoutMs: 2_000, allowPrivate: false });
    const outcome = await sender.send({ webhookId: 'msg_2', targetUrl: target(endpoint.port), body }, KEY);

    expect(outcome.error).toBe(TARGET_NOT_ALLOWED);
    expect(outcome.statusCode).toBeUndefined();
    expect(endpoint.received).toHaveLength(0);
  });

  it.each(['ftp://127.0.0.1/hook', 'file:///etc/passwd', 'gopher://example.com/'])('refuses the non-HTTP URL %s', async (targetUrl) => {
    const outcome = await new CallbackSender({ timeoutMs: 2_000, allowPrivate: true }).send({ webhookId: 'msg_3', targetUrl, body }, KEY);
    expect(outcome.error).toMatch(/not allowed/);
    expect(outcome.statusCode).toBeUndefined();
  });

  it('reports a refused connection as an error without a status', async () => {
    await endpoint.close();
    const outcome = await new CallbackSender({ timeoutMs: 2_000, allowPrivate: true }).send({ webhookId: 'msg_4', targetUrl: `http://127.0.0.1:${endpoint.port}/`, body }, KEY);
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
