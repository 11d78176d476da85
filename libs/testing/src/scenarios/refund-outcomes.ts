import { moneyOutStream, providerReferenceOf } from '@paygate/contracts';

import { mobileMoneyRequest, PaygateClient, type ApiResponse } from './paygate-client';
import { SandboxAdmin, topUpWallet, walletOf, walletShows } from './sandbox-admin';
import { eventually } from './wait';

export interface RefundContext {
  /** Gateway base URL. */
  gateway: () => string;
  /** Where the sandbox's admin routes are (the gateway in standalone, the sandbox app in distributed mode). */
  sandbox: () => string;
}

interface Refund {
  refund_reference: string;
  internal_reference: string;
  amount: number;
  currency: string;
  status: string;
  pending_reason: string | null;
  failure_reason: string | null;
}

let sequence = 0;
const refundReference = (what: string) => `rf-${what}-${process.pid}-${++sequence}`;

/**
 * Refunds end to end through the public API, every sandbox refund outcome (README, Sandbox): the money is held on
 * the wallet at once and leaves it only when the provider refunded; a refusal by the provider gives it back; a
 * provider that never answers keeps it PENDING (provider_unconfirmed) until a status query finds it done. Nothing
 * is sent to the provider twice. The same suite runs in standalone and in distributed mode.
 */
export function refundSuite(context: RefundContext): void {
  let client: PaygateClient;
  let sandbox: SandboxAdmin;

  beforeAll(async () => {
    client = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'Refund merchant');
    sandbox = new SandboxAdmin(context.sandbox());
    // The merchant bears the collections' fees: room in the wallet for refunds of whole collections.
    await topUpWallet(context.gateway(), client.merchant.id, 500_000);
  });

  const refund = (body: Record<string, unknown>) =>
    client.request<Refund>('POST', '/v1/refunds', { body, secret: true });
  const refundOf = async (reference: string) =>
    (await client.request<Refund>('GET', `/v1/refunds/${reference}`, { secret: true })).body.data;
  const finalRefund = (reference: string) =>
    eventually(
      async () => {
        const found = await refundOf(reference);
        return found.status !== 'PENDING' ? found : undefined;
      },
      30_000,
      `refund ${reference} to be final`,
    );
  /** What the sandbox provider received for a refund: how many requests named its reference. */
  const atProvider = async (reference: string) => {
    const providerReference = providerReferenceOf(moneyOutStream('REFUND', client.merchant.id, reference), 'REFUND');
    const { status, body } = await sandbox.request<{ requests_received: number; status: string }>(
      'GET',
      `/sandbox/v1/money-out/${providerReference}`,
    );
    return status === 200 ? body.data : undefined;
  };

  /** A COMPLETED mobile money collection of UGX 100,000 paid from `msisdn`; its reference. */
  async function completedCollection(msisdn = '256772000001'): Promise<string> {
    const init = await client.initialize(mobileMoneyRequest({ msisdn, amount: 100_000, require_confirmation: false }));
    expect(init.status).toBe(202);
    const ref = String(init.body.data.internal_reference);
    const completed = await client.finalState(ref);
    expect(completed.transaction_status).toBe('COMPLETED');
    await eventually(
      async () => {
        const { body } = await client.request<{ transactions: { type: string; internal_reference: string | null }[] }>(
          'GET',
          '/v1/wallet/transactions?limit=100',
          { secret: true },
        );
        return body.data.transactions.some(
          (entry) => entry.type === 'collection_credit' && entry.internal_reference === ref,
        )
          ? true
          : undefined;
      },
      15_000,
      'the collection credited',
    );
    return ref;
  }

  it('a partial refund completes: the wallet gives exactly that, once, and the collection shows it refunded', async () => {
    const ref = await completedCollection();
    const before = await walletOf(client);
    const reference = refundReference('partial');
    const accepted = await refund({ internal_reference: ref, refund_reference: reference, amount: 30_000 });
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toMatchObject({
      refund_reference: reference,
      internal_reference: ref,
      amount: 30_000,
      currency: 'UGX',
      status: 'PENDING',
      livemode: false,
    });
    expect(await finalRefund(reference)).toMatchObject({ status: 'COMPLETED', pending_reason: null });
    await walletShows(
      client,
      { balance: before.balance - 30_000, available_balance: before.balance - 30_000 },
      'the refund paid',
    );
    expect((await client.collection(ref)).body.data.amount_refunded).toBe(30_000);
    expect(await atProvider(reference)).toMatchObject({ requests_received: 1, status: 'SUCCESSFUL' });

    // The same request again answers the same refund and sends nothing; another body under the reference is a conflict.
    const again = await refund({ internal_reference: ref, refund_reference: reference, amount: 30_000 });
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ refund_reference: reference, status: 'COMPLETED' });
    expect((await refund({ internal_reference: ref, refund_reference: reference, amount: 10_000 })).status).toBe(409);
    expect(await atProvider(reference)).toMatchObject({ requests_received: 1 });

    // What is left: 70,000. More is refused naming amount and what is left, and changes nothing.
    const over = await refund({ internal_reference: ref, refund_reference: refundReference('over'), amount: 70_001 });
    expect(over.status).toBe(400);
    expect((over.body.data as unknown as { errors: unknown[] }).errors).toEqual([
      { field: 'amount', message: expect.stringContaining('UGX 70,000') },
    ]);
    const listed = await client.request<{ refunds: Refund[] }>('GET', `/v1/refunds?internal_reference=${ref}`, {
      secret: true,
    });
    expect(listed.body.data.refunds.map((found) => found.refund_reference)).toEqual([reference]);
  });

  it('without an amount refunds all that is left', async () => {
    const ref = await completedCollection();
    await refund({ internal_reference: ref, refund_reference: refundReference('part'), amount: 40_000 });
    const rest = await refund({ internal_reference: ref, refund_reference: refundReference('rest') });
    expect(rest.status).toBe(202);
    expect(rest.body.data.amount).toBe(60_000);
    await finalRefund(rest.body.data.refund_reference);
    expect((await client.collection(ref)).body.data.amount_refunded).toBe(100_000);
    const none = await refund({ internal_reference: ref, refund_reference: refundReference('none') });
    expect(none.status).toBe(400);
  });

  it('of twenty concurrent refunds of 20 % each, at most five are accepted, and the refused ones change nothing', async () => {
    const ref = await completedCollection();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        refund({ internal_reference: ref, refund_reference: refundReference(`race${n}`), amount: 20_000 }),
      ),
    );
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(accepted.length).toBeLessThanOrEqual(5);
    expect(answers.filter((answer) => answer.status !== 202).every((answer) => answer.status === 400)).toBe(true);
    for (const answer of accepted) await finalRefund(answer.body.data.refund_reference);
    const refunded = Number((await client.collection(ref)).body.data.amount_refunded);
    expect(refunded).toBe(accepted.length * 20_000);
    const listed = await client.request<{ refunds: Refund[] }>(
      'GET',
      `/v1/refunds?internal_reference=${ref}&limit=100`,
      {
        secret: true,
      },
    );
    expect(listed.body.data.refunds).toHaveLength(accepted.length);
  });

  it('refused by the provider (payer ending 0007): FAILED with its reason, and the held money is available again', async () => {
    const ref = await completedCollection('256772000007');
    const wallet = await walletOf(client);
    const reference = refundReference('refused');
    expect((await refund({ internal_reference: ref, refund_reference: reference, amount: 5_000 })).status).toBe(202);
    const failed = await finalRefund(reference);
    expect(failed).toMatchObject({ status: 'FAILED', failure_reason: expect.any(String) });
    await walletShows(
      client,
      { balance: wallet.balance, available_balance: wallet.available_balance },
      'the hold released',
    );
    expect((await client.collection(ref)).body.data.amount_refunded).toBe(0);
  });

  it('a provider that never answers (payer ending 0008): PENDING provider_unconfirmed, held, until asking finds it done', async () => {
    const ref = await completedCollection('256772000008');
    const wallet = await walletOf(client);
    const reference = refundReference('unanswered');
    expect((await refund({ internal_reference: ref, refund_reference: reference, amount: 5_000 })).status).toBe(202);
    await eventually(
      async () => ((await refundOf(reference)).pending_reason === 'provider_unconfirmed' ? true : undefined),
      15_000,
      'the refund unconfirmed',
    );
    expect(await walletOf(client)).toMatchObject({ available_balance: wallet.available_balance - 5_000 });
    expect(await finalRefund(reference)).toMatchObject({ status: 'COMPLETED' });
    await walletShows(
      client,
      { balance: wallet.balance - 5_000, available_balance: wallet.available_balance - 5_000 },
      'the refund paid',
    );
    expect(await atProvider(reference)).toMatchObject({ requests_received: 1, status: 'SUCCESSFUL' });
  });

  it('a wallet that cannot cover it: 400 naming amount, and nothing is held or sent', async () => {
    const poor = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'Refund merchant, spent');
    const init = await poor.initialize(mobileMoneyRequest({ amount: 50_000, require_confirmation: false }));
    const ref = String(init.body.data.internal_reference);
    const completed = await poor.finalState(ref);
    // The merchant bore the fee: the wallet holds less than the customer paid, so a whole refund does not fit.
    const wallet = await walletShows(
      poor,
      { balance: Number(completed.total_credit), available_balance: Number(completed.total_credit) },
      'the collection credited',
    );
    expect(wallet.balance).toBeLessThan(50_000);
    const reference = refundReference('poor');
    const refused = await poor.request<Refund>('POST', '/v1/refunds', {
      body: { internal_reference: ref, refund_reference: reference },
      secret: true,
    });
    expect(refused.status).toBe(400);
    expect((refused.body.data as unknown as { errors: unknown[] }).errors).toEqual([
      { field: 'amount', message: expect.stringContaining('available balance') },
    ]);
    expect(await walletOf(poor)).toEqual(wallet);
    expect((await poor.request('GET', `/v1/refunds/${reference}`, { secret: true })).status).toBe(404);
    // Topped up, the same reference is accepted: the refused request consumed nothing.
    await topUpWallet(context.gateway(), poor.merchant.id, 10_000);
    const accepted = await poor.request<Refund>('POST', '/v1/refunds', {
      body: { internal_reference: ref, refund_reference: reference },
      secret: true,
    });
    expect(accepted.status).toBe(202);
  });

  it('only a COMPLETED collection of this merchant, and only with the secret key', async () => {
    const pending = await client.initialize(mobileMoneyRequest({ msisdn: '256772000004' }));
    const notCompleted = await refund({
      internal_reference: pending.body.data.internal_reference,
      refund_reference: refundReference('pending'),
    });
    expect(notCompleted.status).toBe(400);
    expect((notCompleted.body.data as unknown as { errors: { field: string }[] }).errors[0].field).toBe(
      'internal_reference',
    );
    const unknown = await refund({
      internal_reference: 'PG0000000000000000000000ZZ',
      refund_reference: refundReference('x'),
    });
    expect(unknown.status).toBe(404);
    const publicOnly: ApiResponse = await client.request('POST', '/v1/refunds', {
      body: { internal_reference: pending.body.data.internal_reference, refund_reference: refundReference('pk') },
    });
    expect(publicOnly.status).toBe(401);
    const bad = await refund({ internal_reference: 'x', refund_reference: 'has space', amount: -1, extra: true });
    expect(bad.status).toBe(400);
    expect(
      (bad.body.data as unknown as { errors: { field: string }[] }).errors.map((error) => error.field).sort(),
    ).toEqual(['amount', 'extra', 'refund_reference']);
  });
}
