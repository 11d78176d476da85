/**
 * The sandbox biller's answer to a payment call (BillerSandbox.pay): one payment per idempotency
 * key, and a PRN paid only in full, in its currency, while it can still be paid; a refusal leaves
 * nothing behind.
 */
import { randomUUID } from 'node:crypto';
import { ProviderApiError } from '../provider-api-error';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { openSandbox, type SandboxUnderTest } from '../sandbox-test-setup';
import { BillerSandbox } from './biller-sandbox';
import { BillerStore, type NewPrn, type Prn } from './biller-store';

describeOnAllSqlEngines('the sandbox biller', 'sandbox_biller', (open) => {
  let sandbox: SandboxUnderTest;
  let biller: BillerSandbox;
  beforeAll(async () => {
    sandbox = await openSandbox({}, await open());
    biller = new BillerSandbox(new BillerStore(sandbox.infrastructure), sandbox.background);
  });
  afterAll(() => sandbox.close());

  const DAY_MS = 24 * 3600_000;

  async function newPrn(fields: Partial<NewPrn> = {}): Promise<Prn> {
    const prn = await biller.createPrn({
      amount: 25_000,
      currency: 'UGX',
      status: 'AVAILABLE',
      serviceName: 'URA - Domestic Tax',
      payerName: 'Nakato Sarah',
      expiresAt: new Date(Date.now() + DAY_MS),
      ...fields,
    });
    return prn!;
  }

  const payment = (fields: Record<string, unknown> = {}) => ({
    amount: 25_000,
    currency: 'UGX',
    reference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
    ...fields,
  });

  /** The biller's refusal of a call: its status, code and the field it names. */
  async function refusal(call: Promise<unknown>) {
    const error = await call.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof ProviderApiError)) throw new Error(`the biller did not refuse: ${String(error)}`);
    const { code, field } = error.body.error as { code: string; field?: string };
    return { status: error.status, code, ...(field && { field }) };
  }

  describe('a payment call to the sandbox biller', () => {
    it('pays the PRN in full and marks it PAID; the same key and request answers that payment again', async () => {
      const prn = await newPrn();
      const key = randomUUID();
      const first = await biller.pay(prn.prn, key, payment());
      expect(first).toMatchObject({ replayed: false, payment: { status: 'COMPLETED', amount: 25_000, prn: prn.prn } });
      const again = await biller.pay(prn.prn, key, payment());
      expect(again).toEqual({ replayed: true, payment: first.payment });
      expect((await biller.prnWithCalls(prn.prn))?.prn).toMatchObject({ status: 'PAID', paymentCalls: 2 });
    });

    it.each([
      ['another amount', { amount: 20_000 }],
      ['another currency', { currency: 'KES' }],
      ['another reference', { reference: 'PG0000000000000000000000000' }],
    ])('refuses the same key with %s: 422 IDEMPOTENCY_KEY_REUSED, nothing paid twice', async (_what, change) => {
      const prn = await newPrn();
      const key = randomUUID();
      await biller.pay(prn.prn, key, payment());
      expect(await refusal(biller.pay(prn.prn, key, payment(change)))).toEqual({
        status: 422,
        code: 'IDEMPOTENCY_KEY_REUSED',
      });
      expect((await biller.prnWithCalls(prn.prn))?.payments).toHaveLength(1);
    });

    it('refuses the same key for another PRN', async () => {
      const [paid, other] = [await newPrn(), await newPrn()];
      const key = randomUUID();
      await biller.pay(paid.prn, key, payment());
      expect(await refusal(biller.pay(other.prn, key, payment()))).toEqual({
        status: 422,
        code: 'IDEMPOTENCY_KEY_REUSED',
      });
      expect((await biller.prnWithCalls(other.prn))?.prn.status).toBe('AVAILABLE');
    });

    it('takes the amount in major units, compared exactly in minor units: a part payment is refused', async () => {
      const prn = await newPrn({ amount: 1_250, currency: 'USD' });
      expect(await refusal(biller.pay(prn.prn, randomUUID(), payment({ amount: 12.49, currency: 'USD' })))).toEqual({
        status: 422,
        code: 'AMOUNT_MISMATCH',
        field: 'amount',
      });
      expect(await refusal(biller.pay(prn.prn, randomUUID(), payment({ amount: 12.5, currency: 'KES' })))).toEqual({
        status: 422,
        code: 'CURRENCY_MISMATCH',
        field: 'currency',
      });
      expect(
        (await biller.pay(prn.prn, randomUUID(), payment({ amount: 12.5, currency: 'USD' }))).payment,
      ).toMatchObject({ amount: 1_250, currency: 'USD' });
    });

    it.each([
      ['PAID', { status: 'PAID' }, 409, 'PRN_ALREADY_PAID'],
      ['SUBMITTED (a payment under way)', { status: 'SUBMITTED' }, 409, 'PRN_PAYMENT_IN_PROGRESS'],
      ['EXPIRED', { status: 'EXPIRED' }, 422, 'PRN_EXPIRED'],
      ['AVAILABLE past its expiry', { expiresAt: new Date(Date.now() - DAY_MS) }, 422, 'PRN_EXPIRED'],
    ] as const)('refuses a new key for a PRN %s, leaving it as it was', async (_what, fields, status, code) => {
      const prn = await newPrn(fields);
      expect(await refusal(biller.pay(prn.prn, randomUUID(), payment()))).toEqual({ status, code });
      expect((await biller.prnWithCalls(prn.prn))?.payments).toEqual([]);
    });

    it('answers an unknown PRN 404 PRN_NOT_FOUND', async () => {
      expect(await refusal(biller.pay('9999999999999', randomUUID(), payment()))).toEqual({
        status: 404,
        code: 'PRN_NOT_FOUND',
      });
    });

    it.each([
      ['none', undefined],
      ['one with a space', 'key with space'],
      ['one longer than 255 characters', 'k'.repeat(256)],
    ])('refuses a call with %s as Idempotency-Key, having paid nothing', async (_what, key) => {
      const prn = await newPrn();
      expect(await refusal(biller.pay(prn.prn, key, payment()))).toEqual({
        status: 400,
        code: 'INVALID_IDEMPOTENCY_KEY',
        field: 'Idempotency-Key',
      });
      expect((await biller.prnWithCalls(prn.prn))?.prn).toMatchObject({ status: 'AVAILABLE', paymentCalls: 1 });
    });

    it('names the bad field of a payment request', async () => {
      const prn = await newPrn();
      expect(await refusal(biller.pay(prn.prn, randomUUID(), payment({ amount: '25000' })))).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
        field: 'amount',
      });
      expect(await refusal(biller.pay(prn.prn, randomUUID(), payment({ reference: '' })))).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
        field: 'reference',
      });
    });
  });
});
