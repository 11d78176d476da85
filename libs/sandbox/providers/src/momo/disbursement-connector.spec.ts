/**
 * The MoMo connector's payouts and refunds against the sandbox served on 127.0.0.1: each test number's outcome as
 * the connector reads it, the callbacks it recognises, a repeated reference accepted and counted, a request that
 * gets no answer seen as the provider unavailable (its outcome then found by asking), and what the sandbox's
 * money-out record says it received.
 */
import { randomUUID } from 'node:crypto';
import {
  ProviderRequestError,
  ProviderUnavailableError,
  type ConnectorRegistry,
  type MoneyOutOutcome,
  type PayoutOperations,
  type RefundOperations,
} from '@paygate/connectors';
import { eventually } from '@paygate/testing';
import { serveSandbox, type ServedSandbox } from '../sandbox-app-test-setup';

let sandbox: ServedSandbox;
let payout: PayoutOperations;
let refund: RefundOperations;
/** Connectors that give up on a request after a second: the sandbox holds an unanswered one far longer. */
let impatient: ConnectorRegistry;

beforeAll(async () => {
  sandbox = await serveSandbox({
    SANDBOX_LATENCY_MS: '20',
    SANDBOX_LATE_COMPLETION_MS: '2000',
    SANDBOX_REVERSAL_DELAY_MS: '300',
    SANDBOX_UNANSWERED_HOLD_MS: '60000',
  });
  const momo = sandbox.registry().get('mtn_momo_ug');
  payout = momo.payout!;
  refund = momo.refund!;
  impatient = sandbox.registry({ PROVIDER_TIMEOUT_MS: '1000' });
});
afterAll(() => sandbox?.close());

const payoutTo = (msisdn: string, reference = `payout-${randomUUID()}`) => ({
  reference,
  amount: '50000',
  currency: 'UGX',
  msisdn,
  payerMessage: 'Weekly settlement',
  payeeNote: 'Kampala Books',
  notifyUrl: `${sandbox.receiver.url}/payouts`,
});

/** Polls the status until it is final. */
const settled = (operations: { status(reference: string): Promise<MoneyOutOutcome> }, reference: string) =>
  eventually(
    async () => {
      const outcome = await operations.status(reference);
      return outcome.status === 'PENDING' ? undefined : outcome;
    },
    10_000,
    `the outcome of ${reference}`,
  );

const callbacksFor = (path: string, reference: string, verify: (body: unknown) => string | null) =>
  sandbox.receiver.received.filter((callback) => callback.path === path && verify(callback.body) === reference);

const received = async (reference: string, kind?: string) =>
  (await sandbox.admin(`/sandbox/v1/money-out/${encodeURIComponent(reference)}${kind ? `?kind=${kind}` : ''}`)).body
    .data;

describe('the account holder check', () => {
  it('names the holder of a number that can receive, and says one ending 0003 cannot', async () => {
    expect(await payout.accountHolder('256772000001')).toEqual({ canReceive: true, name: 'Sarah Nakato' });
    expect(await payout.accountHolder('256772000003')).toEqual({ canReceive: false });
  });
});

describe('payouts, by the payee number', () => {
  it.each<[string, string, Partial<MoneyOutOutcome>, boolean]>([
    ['0001', '256772000001', { status: 'SUCCESSFUL' }, true],
    ['any other ending', '256772004321', { status: 'SUCCESSFUL' }, true],
    ['0002', '256772000002', { status: 'FAILED', providerReason: 'INTERNAL_PROCESSING_ERROR' }, true],
    ['0003', '256772000003', { status: 'FAILED', providerReason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE' }, true],
    ['0005', '256772000005', { status: 'SUCCESSFUL' }, false],
  ])('ending %s: %j, called back: %s', async (_ending, msisdn, outcome, callsBack) => {
    const request = payoutTo(msisdn);
    await payout.send(request);
    expect(await settled(payout, request.reference)).toMatchObject(outcome);
    if (callsBack)
      await eventually(
        () => callbacksFor('/payouts', request.reference, (body) => payout.verifyNotification(body))[0],
        10_000,
        'the callback',
      );
    expect(await received(request.reference)).toEqual({
      kind: 'payout',
      provider: 'momo',
      reference: request.reference,
      requests_received: 1,
      status: outcome.status,
    });
  });

  it('ending 0004: the request times out, yet it was received, and asking finds it completed later', async () => {
    const request = payoutTo('256772000004');
    await expect(impatient.get('mtn_momo_ug', 'payout').payout.send(request)).rejects.toThrow(ProviderUnavailableError);
    // Received, so never NOT_FOUND (sending it again would be a second payout elsewhere): PENDING, or completed.
    expect(await payout.status(request.reference)).not.toEqual({ status: 'NOT_FOUND' });
    expect(await settled(payout, request.reference)).toMatchObject({ status: 'SUCCESSFUL' });
    expect(await received(request.reference)).toMatchObject({ requests_received: 1, status: 'SUCCESSFUL' });
  });

  it('ending 0006: completes, then is reversed, with a callback saying so', async () => {
    const request = payoutTo('256772000006');
    await payout.send(request);
    await eventually(
      async () => ((await payout.status(request.reference)).status === 'REVERSED' ? true : undefined),
      10_000,
      'the reversal',
    );
    expect(await payout.status(request.reference)).toEqual({
      status: 'REVERSED',
      providerReason: 'TRANSACTION_REVERSED',
    });
    const reversal = await eventually(
      () =>
        callbacksFor('/payouts', request.reference, (body) => payout.verifyNotification(body)).find(
          (callback) => (callback.body as { status: string }).status === 'REVERSED',
        ),
      10_000,
      'the reversal callback',
    );
    expect(reversal.method).toBe('PUT');
  });

  it('takes a repeated reference as accepted, and the sandbox counts the second request', async () => {
    const request = payoutTo('256772000001');
    await payout.send(request);
    await payout.send(request);
    expect(await received(request.reference)).toMatchObject({ requests_received: 2 });
  });

  it('answers NOT_FOUND for a reference the provider never received', async () => {
    expect(await payout.status(`payout-${randomUUID()}`)).toEqual({ status: 'NOT_FOUND' });
    expect(await refund.status(`refund-${randomUUID()}`)).toEqual({ status: 'NOT_FOUND' });
  });

  it('refuses a payout the provider will not take (an amount that is not one)', async () => {
    await expect(payout.send({ ...payoutTo('256772000001'), amount: '-5' })).rejects.toThrow(
      new ProviderRequestError('momo', 400, 'INVALID_AMOUNT'),
    );
  });

  it('gets one Disbursement token for all its calls, and a Collection token is no good for them', async () => {
    const { sql } = sandbox.infrastructure;
    const tokens = async () =>
      (await sql.query<{ product: string }>('select product from sandbox_momo_tokens')).map((row) => row.product);
    const registry = sandbox.registry();
    const before = (await tokens()).filter((product) => product === 'disbursement').length;
    const momo = registry.get('mtn_momo_ug');
    await momo.payout!.accountHolder('256772000001');
    await momo.payout!.send(payoutTo('256772000001'));
    await momo.refund!.status(`refund-${randomUUID()}`);
    expect((await tokens()).filter((product) => product === 'disbursement')).toHaveLength(before + 1);

    const collectionToken = await fetch(`${sandbox.url}/sandbox/momo/collection/token/`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('user:key').toString('base64')}`,
        'ocp-apim-subscription-key': 'key',
      },
    }).then((response) => response.json() as Promise<{ access_token: string }>);
    const refused = await fetch(
      `${sandbox.url}/sandbox/momo/disbursement/v1_0/accountholder/msisdn/256772000001/active`,
      {
        headers: {
          authorization: `Bearer ${collectionToken.access_token}`,
          'ocp-apim-subscription-key': 'key',
          'x-target-environment': 'sandbox',
        },
      },
    );
    expect(refused.status).toBe(401);
  });
});

describe('refunds, by the number the collection was paid from', () => {
  /** A SUCCESSFUL collection of UGX 81,000 from `msisdn`; its reference. */
  async function collected(msisdn: string): Promise<string> {
    const reference = `PG${randomUUID()}`;
    const collect = sandbox.registry().get('mtn_momo_ug', 'collect').collect;
    const { providerReference } = await collect.initiate({
      reference,
      amount: '81000',
      currency: 'UGX',
      msisdn,
      payerMessage: 'Order 42',
      payeeNote: 'Kampala Books',
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      notifyUrl: `${sandbox.receiver.url}/collections`,
      returnUrl: 'https://merchant.example/return',
    });
    await eventually(
      async () => ((await collect.status(providerReference)).status === 'SUCCESSFUL' ? true : undefined),
      10_000,
      'the collection',
    );
    return reference;
  }

  const refundOf = (collectionReference: string, amount: string, reference = `refund-${randomUUID()}`) => ({
    reference,
    collectionReference,
    amount,
    currency: 'UGX',
    payerMessage: 'Refund of order 42',
    payeeNote: 'Returned goods',
    notifyUrl: `${sandbox.receiver.url}/refunds`,
  });

  it('refunds part of a collection, then what is left, each called back, and refuses more', async () => {
    const collection = await collected('256772000001');
    const first = refundOf(collection, '30000');
    const rest = refundOf(collection, '51000');
    await refund.send(first);
    await refund.send(rest);
    for (const { reference } of [first, rest]) {
      expect(await settled(refund, reference)).toMatchObject({ status: 'SUCCESSFUL' });
      await eventually(
        () => callbacksFor('/refunds', reference, (body) => refund.verifyNotification(body))[0],
        10_000,
        'the callback',
      );
    }
    const over = refundOf(collection, '1');
    await expect(refund.send(over)).rejects.toThrow(new ProviderRequestError('momo', 400, 'INVALID_AMOUNT'));
    expect(await refund.status(over.reference)).toEqual({ status: 'NOT_FOUND' });
  });

  it('ending 0007: the provider refuses the refund', async () => {
    const request = refundOf(await collected('256772000007'), '81000');
    await refund.send(request);
    expect(await settled(refund, request.reference)).toEqual({ status: 'FAILED', providerReason: 'NOT_ALLOWED' });
  });

  it('ending 0008: the refund request times out, and asking finds it completed later', async () => {
    const request = refundOf(await collected('256772000008'), '81000');
    await expect(impatient.get('mtn_momo_ug', 'refund').refund.send(request)).rejects.toThrow(ProviderUnavailableError);
    expect(await refund.status(request.reference)).not.toEqual({ status: 'NOT_FOUND' });
    expect(await settled(refund, request.reference)).toMatchObject({ status: 'SUCCESSFUL' });
    expect(await received(request.reference)).toMatchObject({ kind: 'refund', requests_received: 1 });
  });

  it('refuses a refund of a collection the provider does not know', async () => {
    await expect(refund.send(refundOf(`PG${randomUUID()}`, '100'))).rejects.toThrow(
      new ProviderRequestError('momo', 404, 'RESOURCE_NOT_FOUND'),
    );
  });

  it('keeps a payout, a refund and a collection of one reference apart', async () => {
    const reference = `shared-${randomUUID()}`;
    await refund.send(refundOf(await collected('256772000001'), '100', reference));
    await payout.send(payoutTo('256772000001', reference));
    expect(await received(reference, 'payout')).toMatchObject({ kind: 'payout', requests_received: 1 });
    expect(await received(reference, 'refund')).toMatchObject({ kind: 'refund', requests_received: 1 });
    const ambiguous = await sandbox.admin(`/sandbox/v1/money-out/${reference}`);
    expect(ambiguous.status).toBe(400);
  });
});

describe("the sandbox's money-out record", () => {
  it('asks for the admin token and names what it does not know', async () => {
    expect((await sandbox.admin('/sandbox/v1/money-out/anything', 'wrong-token')).status).toBe(401);
    expect((await sandbox.admin(`/sandbox/v1/money-out/never-${randomUUID()}`)).status).toBe(404);
    expect((await sandbox.admin('/sandbox/v1/money-out/anything?kind=collection')).status).toBe(400);
  });
});
