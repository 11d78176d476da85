import { randomUUID } from 'node:crypto';
import type { CollectInitiateRequest } from '@paygate/connectors';
import { eventually } from '@paygate/testing';
import { startSandbox, type SandboxHarness } from './sandbox-harness';

/**
 * The sandbox's callbacks (MoMo X-Callback-Url, card notify_url) pass the address guard with
 * ALLOW_PRIVATE_CALLBACKS. Every request here goes to the harness's own loopback receiver: with
 * the switch off it must receive nothing; at Paygate's own callback base it must receive. (With
 * the switch on it receives: sandbox-providers.spec.ts.)
 */

const newReference = () => `PGTEST${randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase()}`;
const nextYear = String((new Date().getUTCFullYear() + 1) % 100).padStart(2, '0');

function collectRequest(
  reference: string,
  notifyUrl: string,
  overrides: Partial<CollectInitiateRequest> = {},
): CollectInitiateRequest {
  return {
    reference,
    amount: '25000',
    currency: 'UGX',
    description: 'Order 42',
    payerMessage: 'Order 42',
    payeeNote: 'Thank you',
    notifyUrl,
    returnUrl: `https://merchant.example/return/${reference}`,
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    ...overrides,
  };
}

/** A prompt the sandbox answers SUCCESSFUL at once and calls back about at `callbackUrl(reference)`. */
async function requestToPay(sandbox: SandboxHarness, callbackUrl: (reference: string) => string) {
  const reference = newReference();
  const { providerReference } = await sandbox
    .registry()
    .get('mtn_momo_ug', 'collect')
    .collect.initiate(collectRequest(reference, callbackUrl(reference), { msisdn: '256772000001' }));
  return { reference, providerReference };
}

/** A checkout paid with a test card, whose notification goes to `notifyUrl(reference)`. */
async function payByCard(sandbox: SandboxHarness, notifyUrl: (reference: string) => string) {
  const reference = newReference();
  const { providerReference, paymentUrl } = await sandbox
    .registry()
    .get('card_ug', 'collect')
    .collect.initiate(collectRequest(reference, notifyUrl(reference)));
  const paid = await fetch(paymentUrl!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4242424242424242', expiry: `12/${nextYear}`, cvv: '123' }).toString(),
    redirect: 'manual',
  });
  expect(paid.status).toBe(303);
  return { reference, providerReference };
}

const refusalLogged = (sandbox: SandboxHarness, subject: string) =>
  eventually(
    () => sandbox.logs.find((line) => line.includes(subject) && line.includes('provider callback refused')),
    10_000,
    'the refusal warning',
  );

describe('sandbox callbacks with private callbacks not allowed', () => {
  let sandbox: SandboxHarness;
  beforeAll(async () => {
    sandbox = await startSandbox('sandbox-callback-guard-test', { ALLOW_PRIVATE_CALLBACKS: 'false' });
  });
  afterAll(() => sandbox?.close());

  const port = () => new URL(sandbox.receiver.url).port;

  it.each([
    ['127.0.0.1', () => `127.0.0.1:${port()}`],
    ['loopback in short hex', () => `0x7f.1:${port()}`],
    ['loopback in decimal', () => `2130706433:${port()}`],
    ['IPv4-mapped loopback', () => `[::ffff:127.0.0.1]:${port()}`],
    ['localhost', () => `localhost:${port()}`],
  ])('never sends the MoMo callback to %s', async (_label, host) => {
    const { reference, providerReference } = await requestToPay(sandbox, (ref) => `http://${host()}/momo/${ref}`);
    const warning = JSON.parse(await refusalLogged(sandbox, providerReference));
    expect(warning).toMatchObject({ level: 'warn', provider: 'momo', referenceId: providerReference });
    expect(sandbox.receiver.at(`/momo/${reference}`)).toEqual([]);
  });

  it('never sends the card notification to a loopback notify_url; the browser still moves on', async () => {
    const { reference, providerReference } = await payByCard(sandbox, (ref) => `${sandbox.receiver.url}/card/${ref}`);
    expect(JSON.parse(await refusalLogged(sandbox, providerReference))).toMatchObject({
      provider: 'card',
      sessionId: providerReference,
    });
    expect(sandbox.receiver.at(`/card/${reference}`)).toEqual([]);
    expect(sandbox.receiver.received).toEqual([]);
  });
});

describe('sandbox callbacks to Paygate’s own callback base (PROVIDER_CALLBACK_URL) on a private address', () => {
  let sandbox: SandboxHarness;
  beforeAll(async () => {
    sandbox = await startSandbox('sandbox-callback-base-test', (receiverUrl) => ({
      ALLOW_PRIVATE_CALLBACKS: 'false',
      PROVIDER_CALLBACK_URL: receiverUrl,
    }));
  });
  afterAll(() => sandbox?.close());

  it('are sent, MoMo and card alike', async () => {
    const momo = await requestToPay(sandbox, (ref) => `${sandbox.receiver.url}/momo/${ref}`);
    expect(JSON.parse((await sandbox.receiver.first(`/momo/${momo.reference}`)).body)).toMatchObject({
      externalId: momo.reference,
      status: 'SUCCESSFUL',
    });
    const card = await payByCard(sandbox, (ref) => `${sandbox.receiver.url}/card/${ref}`);
    expect(JSON.parse((await sandbox.receiver.first(`/card/${card.reference}`)).body)).toMatchObject({
      session_id: card.providerReference,
      reference: card.reference,
    });
  });

  it('but another origin on the same loopback address (the sandbox itself, here) is not that base and is refused', async () => {
    const { providerReference } = await requestToPay(sandbox, (ref) => `${sandbox.url}/momo/${ref}`);
    expect(JSON.parse(await refusalLogged(sandbox, providerReference))).toMatchObject({
      provider: 'momo',
      host: new URL(sandbox.url).host,
    });
  });
});
