import { moneyOutStream, providerReferenceOf } from '@paygate/contracts';

import { PaygateClient, TEST_ADMIN_TOKEN } from './paygate-client';
import { SandboxAdmin, topUpWallet, walletOf, walletShows, walletWithoutHolds } from './sandbox-admin';
import { eventually } from './wait';

export interface PayoutContext {
  /** Gateway base URL. */
  gateway: () => string;
  /** Where the sandbox's admin routes are (the gateway in standalone, the sandbox app in distributed mode). */
  sandbox: () => string;
}

interface Payout {
  payout_reference: string;
  amount: number;
  fee: number;
  currency: string;
  provider_code: string;
  msisdn: string;
  recipient_name: string | null;
  status: string;
  pending_reason: string | null;
  failure_reason: string | null;
  livemode: boolean;
}

interface Recipient {
  provider_code: string;
  msisdn: string;
  can_receive: boolean;
  name: string | null;
}

type FieldErrors = { errors: { field: string; message: string }[] };

let sequence = 0;
const payoutReference = (what: string) => `po-${what}-${process.pid}-${++sequence}`;
const number = (ending: string) => `25677200${ending}`;
/** The MTN payout fee of the default catalogue (1 %, at least UGX 500) for the amounts these tests send. */
const FEE = 500;

/**
 * Payouts end to end through the public API, every sandbox payout outcome (README, Sandbox): the name check first,
 * then amount and fee held on the wallet, leaving it only when the provider paid (and coming back when it reversed
 * the payout); a provider that never answers keeps it PENDING (provider_unconfirmed) until a status query finds it
 * done. Nothing is sent to the provider twice. The same suite runs in standalone and in distributed mode.
 */
export function payoutSuite(context: PayoutContext): void {
  let client: PaygateClient;
  let sandbox: SandboxAdmin;

  beforeAll(async () => {
    client = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'Payout merchant');
    sandbox = new SandboxAdmin(context.sandbox());
    await topUpWallet(context.gateway(), client.merchant.id, 1_000_000);
  });

  const payoutBy = (by: PaygateClient, body: Record<string, unknown>) =>
    by.request<Payout>('POST', '/v1/payouts', {
      body: { currency: 'UGX', provider_code: 'mtn_momo_ug', ...body },
      secret: true,
    });
  const payout = (body: Record<string, unknown>) => payoutBy(client, body);
  const payoutOf = async (reference: string, by = client) =>
    (await by.request<Payout>('GET', `/v1/payouts/${reference}`, { secret: true })).body.data;
  const payoutIn = (reference: string, statuses: string[], by = client) =>
    eventually(
      async () => {
        const found = await payoutOf(reference, by);
        return statuses.includes(found.status) ? found : undefined;
      },
      30_000,
      `payout ${reference} to be ${statuses.join(' or ')}`,
    );
  const recipient = (msisdn: string) =>
    client.request<Recipient>('GET', `/v1/payouts/recipient?provider_code=mtn_momo_ug&msisdn=${msisdn}`, {
      secret: true,
    });
  /** What the sandbox provider received for a payout: how many requests named its reference, and its status there. */
  const atProvider = async (reference: string, by = client) => {
    const providerReference = providerReferenceOf(moneyOutStream('PAYOUT', by.merchant.id, reference), 'PAYOUT');
    const { status, body } = await sandbox.request<{ requests_received: number; status: string }>(
      'GET',
      `/sandbox/v1/money-out/${providerReference}?kind=payout`,
    );
    return status === 200 ? body.data : undefined;
  };
  const fieldsOf = (answer: { body: { data: unknown } }) =>
    (answer.body.data as FieldErrors).errors.map((error) => error.field);

  it('the name check answers the holder of a number that can receive, and says when one cannot', async () => {
    const found = await recipient(number('0001'));
    expect(found.status).toBe(200);
    expect(found.body.data).toEqual({
      provider_code: 'mtn_momo_ug',
      msisdn: number('0001'),
      can_receive: true,
      name: expect.stringMatching(/\S+ \S+/),
    });
    expect((await recipient(number('0003'))).body.data).toMatchObject({ can_receive: false, name: null });
    const bad = await client.request('GET', '/v1/payouts/recipient?provider_code=card_ug&msisdn=123', { secret: true });
    expect(bad.status).toBe(400);
  });

  it('0001 completes: amount and fee leave the wallet once, the record carries the holder name, a repeat sends nothing', async () => {
    const { name } = (await recipient(number('0001'))).body.data;
    const before = await walletOf(client);
    const reference = payoutReference('ok');
    const body = { payout_reference: reference, amount: 20_000, msisdn: number('0001') };
    const accepted = await payout({ ...body, recipient_name: `  ${name!.toUpperCase()} ` });
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toMatchObject({
      payout_reference: reference,
      amount: 20_000,
      fee: FEE,
      currency: 'UGX',
      provider_code: 'mtn_momo_ug',
      msisdn: number('0001'),
      recipient_name: name,
      status: 'PENDING',
      livemode: false,
    });
    expect(await payoutIn(reference, ['COMPLETED'])).toMatchObject({ pending_reason: null, failure_reason: null });
    const paid = before.balance - 20_000 - FEE;
    await walletShows(client, { balance: paid, available_balance: paid }, 'the payout paid');
    expect(await atProvider(reference)).toMatchObject({ requests_received: 1, status: 'SUCCESSFUL' });

    // The same request again answers the same payout and sends nothing; another body under the reference is a conflict.
    const again = await payout(body);
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ payout_reference: reference, status: 'COMPLETED' });
    expect((await payout({ ...body, amount: 30_000 })).status).toBe(409);
    expect(await atProvider(reference)).toMatchObject({ requests_received: 1 });
  });

  it('0002 fails at the provider: FAILED with its reason, and the held money is available again', async () => {
    const before = await walletOf(client);
    const reference = payoutReference('fail');
    expect((await payout({ payout_reference: reference, amount: 10_000, msisdn: number('0002') })).status).toBe(202);
    expect(await payoutIn(reference, ['FAILED', 'COMPLETED'])).toMatchObject({
      status: 'FAILED',
      failure_reason: expect.any(String),
    });
    await walletShows(client, before, 'the hold released');
  });

  it('0003 cannot receive: 400 naming msisdn before any money is held or anything sent', async () => {
    const before = await walletOf(client);
    const reference = payoutReference('cannot');
    const refused = await payout({ payout_reference: reference, amount: 10_000, msisdn: number('0003') });
    expect(refused.status).toBe(400);
    expect(fieldsOf(refused)).toEqual(['msisdn']);
    expect(await walletOf(client)).toEqual(before);
    expect((await client.request('GET', `/v1/payouts/${reference}`, { secret: true })).status).toBe(404);
    expect(await atProvider(reference)).toBeUndefined();
  });

  it('a recipient_name that is not the holder’s: 400 naming recipient_name, nothing held', async () => {
    const before = await walletOf(client);
    const refused = await payout({
      payout_reference: payoutReference('name'),
      amount: 10_000,
      msisdn: number('0001'),
      recipient_name: 'Somebody Else',
    });
    expect(refused.status).toBe(400);
    expect(fieldsOf(refused)).toEqual(['recipient_name']);
    expect(await walletOf(client)).toEqual(before);
  });

  it('0004 never answers the request: PENDING provider_unconfirmed, held, until a status query finds it COMPLETED', async () => {
    const before = await walletOf(client);
    const reference = payoutReference('late');
    expect((await payout({ payout_reference: reference, amount: 10_000, msisdn: number('0004') })).status).toBe(202);
    await eventually(
      async () => ((await payoutOf(reference)).pending_reason === 'provider_unconfirmed' ? true : undefined),
      15_000,
      'the payout unconfirmed',
    );
    expect(await walletOf(client)).toMatchObject({ available_balance: before.available_balance - 10_000 - FEE });
    expect(await payoutIn(reference, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED' });
    expect(await atProvider(reference)).toMatchObject({ requests_received: 1, status: 'SUCCESSFUL' });
  });

  it('0005 completes without calling back: found COMPLETED by asking', async () => {
    const reference = payoutReference('quiet');
    expect((await payout({ payout_reference: reference, amount: 10_000, msisdn: number('0005') })).status).toBe(202);
    expect(await payoutIn(reference, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED' });
  });

  it('0006 completes and is reversed: REVERSED, and the wallet credited back what it took', async () => {
    // The payout before this one is COMPLETED but its hold may not be captured yet: start from a wallet holding nothing.
    const before = await walletWithoutHolds(client);
    const reference = payoutReference('reversed');
    expect((await payout({ payout_reference: reference, amount: 10_000, msisdn: number('0006') })).status).toBe(202);
    expect(await payoutIn(reference, ['REVERSED', 'FAILED'])).toMatchObject({
      status: 'REVERSED',
      failure_reason: expect.any(String),
    });
    await walletShows(client, before, 'the reversal credited back');
    expect(await atProvider(reference)).toMatchObject({ requests_received: 1, status: 'REVERSED' });
  });

  it('above the merchant’s approval threshold: PENDING_APPROVAL, held, and nothing sent', async () => {
    const careful = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'Payout merchant, careful');
    await topUpWallet(context.gateway(), careful.merchant.id, 100_000);
    const patched = await fetch(`${context.gateway()}/admin/v1/merchants/${careful.merchant.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payout_approval_threshold: 20_000 }),
    });
    expect(patched.status).toBe(200);
    const reference = payoutReference('approval');
    const accepted = await payoutBy(careful, { payout_reference: reference, amount: 20_001, msisdn: number('0001') });
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toMatchObject({ status: 'PENDING_APPROVAL', pending_reason: null });
    await walletShows(careful, { balance: 100_000, available_balance: 100_000 - 20_001 - FEE }, 'the payout held');
    expect(await atProvider(reference, careful)).toBeUndefined();
    const waiting = await eventually(
      async () => {
        const { body } = await careful.request<{ payouts: Payout[] }>('GET', '/v1/payouts?status=PENDING_APPROVAL', {
          secret: true,
        });
        return body.data.payouts.length > 0 ? body.data.payouts : undefined;
      },
      15_000,
      'the payout listed as waiting for approval',
    );
    expect(waiting.map((found) => found.payout_reference)).toEqual([reference]);
  });

  it('the operator’s daily cap: of five concurrent payouts two fit, the others are refused naming amount, nothing held', async () => {
    const capped = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'Payout merchant, capped');
    await topUpWallet(context.gateway(), capped.merchant.id, 100_000);
    const patched = await fetch(`${context.gateway()}/admin/v1/merchants/${capped.merchant.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payout_daily_cap: 25_000 }),
    });
    expect(((await patched.json()) as { data: { payout_daily_cap: number } }).data.payout_daily_cap).toBe(25_000);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        payoutBy(capped, { payout_reference: payoutReference('cap'), amount: 10_000, msisdn: number('0001') }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(2);
    for (const answer of answers.filter((refused) => refused.status !== 202)) {
      expect(answer.status).toBe(400);
      expect((answer.body.data as unknown as FieldErrors).errors).toEqual([
        { field: 'amount', message: expect.stringContaining('daily cap') },
      ]);
    }
    const held = 100_000 - 2 * (10_000 + FEE);
    await walletShows(capped, { balance: held, available_balance: held }, 'two payouts paid, nothing else held');
    const upTo = await payoutBy(capped, {
      payout_reference: payoutReference('cap'),
      amount: 5_000,
      msisdn: number('0001'),
    });
    expect(upTo.status).toBe(202);
  });

  it('twenty concurrent payouts on a wallet covering five: five accepted, fifteen refused naming amount and changing nothing', async () => {
    const racer = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'Payout merchant, racing');
    await topUpWallet(context.gateway(), racer.merchant.id, 5 * (10_000 + FEE));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        payoutBy(racer, { payout_reference: payoutReference(`race${n}`), amount: 10_000, msisdn: number('0001') }),
      ),
    );
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status !== 202);
    expect(accepted).toHaveLength(5);
    expect(refused.every((answer) => answer.status === 400 && fieldsOf(answer).includes('amount'))).toBe(true);
    for (const answer of accepted) await payoutIn(answer.body.data.payout_reference, ['COMPLETED'], racer);
    await walletShows(racer, { balance: 0, available_balance: 0 }, 'five payouts paid, nothing else taken');
    const listed = await eventually(
      async () => {
        const { body } = await racer.request<{ payouts: Payout[] }>('GET', '/v1/payouts?limit=100', { secret: true });
        return body.data.payouts.length === 5 ? body.data.payouts : undefined;
      },
      15_000,
      'the five payouts listed',
    );
    expect(listed.every((found) => found.status === 'COMPLETED')).toBe(true);
  });

  it('lists payouts by status and provider, and shows payout terms among the payment options', async () => {
    const completed = await client.request<{ payouts: Payout[]; next_cursor: string | null }>(
      'GET',
      '/v1/payouts?status=COMPLETED&provider_code=mtn_momo_ug&limit=2',
      { secret: true },
    );
    expect(completed.status).toBe(200);
    expect(completed.body.data.payouts.every((found) => found.status === 'COMPLETED')).toBe(true);
    const badFilter = await client.request('GET', '/v1/payouts?status=DONE', { secret: true });
    expect(badFilter.status).toBe(400);
    const options = await client.request<{ payment_providers: { provider_code: string; payout: unknown }[] }>(
      'GET',
      '/v1/payment-providers',
    );
    expect(
      options.body.data.payment_providers.find((option) => option.provider_code === 'mtn_momo_ug')?.payout,
    ).toEqual({ min_amount: 1000, max_amount: 10_000_000, fee: { percent: 1, fixed: 0, min: 500, max: 10_000 } });
  });

  it('bad input: each field named; outside the provider’s limits names amount; only with the secret key', async () => {
    const bad = await payout({ payout_reference: 'has space', amount: -1, msisdn: 'x', extra: true });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad).sort()).toEqual(['amount', 'extra', 'msisdn', 'payout_reference']);
    const small = await payout({ payout_reference: payoutReference('small'), amount: 999, msisdn: number('0001') });
    expect(small.status).toBe(400);
    expect(fieldsOf(small)).toEqual(['amount']);
    const card = await payout({
      payout_reference: payoutReference('card'),
      amount: 5_000,
      provider_code: 'card_ug',
      msisdn: number('0001'),
    });
    expect(fieldsOf(card)).toEqual(['provider_code']);
    const publicOnly = await client.request('POST', '/v1/payouts', {
      body: {
        payout_reference: payoutReference('pk'),
        currency: 'UGX',
        amount: 5_000,
        provider_code: 'mtn_momo_ug',
        msisdn: number('0001'),
      },
    });
    expect(publicOnly.status).toBe(401);
  });

  it('operators list the refunds and payouts needing attention (admin token only)', async () => {
    const admin = (query: string, token = TEST_ADMIN_TOKEN) =>
      fetch(`${context.gateway()}/admin/v1/money-out${query}`, { headers: { authorization: `Bearer ${token}` } });
    const listed = await admin('?state=needs_attention');
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: { money_out: unknown[] } }).data.money_out).toEqual(expect.any(Array));
    expect((await admin('?state=pending')).status).toBe(400);
    expect((await admin('?state=needs_attention', 'wrong')).status).toBe(401);
  });
}
