/**
 * The merchant-facing collections API and the admin API (docs/api.md) against one in-process
 * Paygate on PGlite (setup in api-test-setup.ts). This file: the acknowledgement of initialize:
 * record fields, fees and totals, require_confirmation, generated and shared merchant references,
 * ids and internal references, and the accepted boundaries.
 */
import { ACKNOWLEDGED_MOMO_RECORD, cardRequest, mobileMoneyRequest, uniqueReference } from '@paygate/testing';
import {
  expectEnvelope,
  initialized,
  INTERNAL_REFERENCE,
  RECORD_FIELDS,
  SILENT_MTN,
  useApiPaygate,
  type Json,
} from './api-test-setup';

describe('collections API (docs/api.md)', () => {
  const { api } = useApiPaygate();

  describe('initialize acknowledgement', () => {
    it('mobile money, charge_customer false: the merchant bears the 1.5 % fee', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN, charge_customer: false });
      const answer = await api.client.initialize(body);
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending customer confirmation');
      expect(Object.keys(answer.body.data).sort()).toEqual([...RECORD_FIELDS].sort());
      expect(answer.body.data).toEqual({
        id: expect.any(Number),
        merchant_reference: body.merchant_reference,
        internal_reference: expect.stringMatching(INTERNAL_REFERENCE),
        ...ACKNOWLEDGED_MOMO_RECORD,
      });
    });

    it('mobile money, charge_customer true: the customer pays the fee on top', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN, charge_customer: true });
      const answer = await api.client.initialize(body);
      expectEnvelope(answer, 202);
      expect(answer.body.data).toEqual({
        id: expect.any(Number),
        merchant_reference: body.merchant_reference,
        internal_reference: expect.stringMatching(INTERNAL_REFERENCE),
        transaction_type: 'COLLECTION',
        request_currency: 'UGX',
        request_amount: 81000,
        transaction_currency: 'UGX',
        transaction_amount: 82215,
        transaction_fee: 1215,
        charge_customer: true,
        total_credit: 81000,
        provider_code: 'mtn_momo_ug',
        transaction_status: 'PENDING',
        status_message: 'Transaction initiated. Pending customer confirmation',
        livemode: false,
      });
    });

    it.each([
      // amount, charge_customer, fee, transaction_amount, total_credit
      ['mtn_momo_ug', SILENT_MTN, 8100, false, 122, 8100, 7978], // 121.5 rounds half-up
      ['mtn_momo_ug', SILENT_MTN, 8100, true, 122, 8222, 8100],
      ['mtn_momo_ug', SILENT_MTN, 5000, false, 100, 5000, 4900], // 75 raised to the minimum
      ['mtn_momo_ug', SILENT_MTN, 500, true, 100, 600, 500],
      ['mtn_momo_ug', SILENT_MTN, 5_000_000, false, 75000, 5_000_000, 4_925_000],
      ['airtel_money_ug', '256752000004', 10033, false, 150, 10033, 9883], // 150.495 rounds down
      ['airtel_money_ug', '256752000004', 2_000_000, true, 30000, 2_030_000, 2_000_000],
    ])(
      '%s (msisdn %s) amount %i charge_customer %s: fee %i, transaction_amount %i, total_credit %i',
      async (provider, msisdn, amount, charge, fee, transactionAmount, totalCredit) => {
        const answer = await api.client.initialize(
          mobileMoneyRequest({ provider_code: provider, msisdn, amount, charge_customer: charge }),
        );
        expectEnvelope(answer, 202);
        expect(answer.body.data).toMatchObject({
          request_amount: amount,
          transaction_fee: fee,
          transaction_amount: transactionAmount,
          total_credit: totalCredit,
          charge_customer: charge,
        });
        expect(answer.body.data.transaction_amount).toBe(
          (answer.body.data.total_credit as number) + (answer.body.data.transaction_fee as number),
        );
      },
    );

    it.each([
      [25000, false, 875, 25000, 24125],
      [25000, true, 875, 25875, 25000],
      [1100, false, 39, 1100, 1061], // 38.5 rounds half-up
      [1010, true, 35, 1045, 1010], // 35.35 rounds down
      [10_000_000, false, 350000, 10_000_000, 9_650_000],
    ])(
      'card amount %i charge_customer %s: fee %i, transaction_amount %i, total_credit %i',
      async (amount, charge, fee, transactionAmount, totalCredit) => {
        const body = cardRequest({ amount, charge_customer: charge });
        const answer = await api.client.initialize(body);
        expectEnvelope(answer, 202);
        expect(answer.body.message).toBe('Transaction initiated. Pending customer confirmation');
        expect(Object.keys(answer.body.data).sort()).toEqual([...RECORD_FIELDS].sort());
        expect(answer.body.data).toMatchObject({
          merchant_reference: body.merchant_reference,
          transaction_type: 'COLLECTION',
          request_currency: 'UGX',
          transaction_currency: 'UGX',
          request_amount: amount,
          transaction_fee: fee,
          transaction_amount: transactionAmount,
          total_credit: totalCredit,
          charge_customer: charge,
          provider_code: 'card_ug',
          transaction_status: 'PENDING',
        });
      },
    );

    it('require_confirmation=false: "Pending processing" and still PENDING', async () => {
      const answer = await api.client.initialize(
        mobileMoneyRequest({ msisdn: SILENT_MTN, require_confirmation: false }),
      );
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending processing');
      expect(answer.body.data).toMatchObject({
        transaction_status: 'PENDING',
        status_message: expect.any(String),
        transaction_amount: 81000,
        transaction_fee: 1215,
        total_credit: 79785,
      });
      for (const field of RECORD_FIELDS) expect(answer.body.data).toHaveProperty(field);
      expect(answer.body.data).not.toHaveProperty('payment_url');
    });

    it('require_confirmation=true (explicit) gives the same message as the default', async () => {
      const answer = await api.client.initialize(
        mobileMoneyRequest({ msisdn: SILENT_MTN, require_confirmation: true }),
      );
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending customer confirmation');
    });

    it('card with require_confirmation=false carries payment_url', async () => {
      const answer = await api.client.initialize(cardRequest({ require_confirmation: false }));
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending processing');
      expect(answer.body.data).toMatchObject({
        transaction_status: 'PENDING',
        provider_code: 'card_ug',
        transaction_amount: 25000,
        transaction_fee: 875,
        total_credit: 24125,
      });
      expect(typeof answer.body.data.payment_url).toBe('string');
      expect(new URL(answer.body.data.payment_url as string).protocol).toMatch(/^https?:$/);
    });

    it('card with require_confirmation=true carries no payment_url', async () => {
      const answer = await api.client.initialize(cardRequest());
      expectEnvelope(answer, 202);
      expect(answer.body.data).not.toHaveProperty('payment_url');
    });

    it('merchant_reference "auto" generates MCTREF + 14 uppercase alphanumerics, a new one each time', async () => {
      const first = await initialized(
        api.client,
        mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: 'auto' }),
      );
      const second = await initialized(
        api.client,
        mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: 'auto' }),
      );
      expect(first.merchant_reference).toMatch(/^MCTREF[A-Z0-9]{14}$/);
      expect(second.merchant_reference).toMatch(/^MCTREF[A-Z0-9]{14}$/);
      expect(second.merchant_reference).not.toBe(first.merchant_reference);
      expect(second.internal_reference).not.toBe(first.internal_reference);
      // The generated reference finds the collection.
      const found = await api.client.request(
        'GET',
        `/v1/collections?merchant_reference=${first.merchant_reference as string}`,
        { secret: true },
      );
      expectEnvelope(found, 200);
      expect(found.body.data.internal_reference).toBe(first.internal_reference);
    });
    it('the same merchant_reference used by two merchants gives two collections', async () => {
      const reference = uniqueReference('shared');
      const mine = await initialized(
        api.client,
        mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: reference }),
      );
      const theirs = await initialized(
        api.other,
        mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: reference, amount: 5000 }),
      );
      expect(theirs.internal_reference).not.toBe(mine.internal_reference);
      expect(theirs.id).not.toBe(mine.id);
      const a = await api.client.request('GET', `/v1/collections?merchant_reference=${reference}`, { secret: true });
      const b = await api.other.request('GET', `/v1/collections?merchant_reference=${reference}`, { secret: true });
      expect(a.body.data).toMatchObject({ internal_reference: mine.internal_reference, request_amount: 81000 });
      expect(b.body.data).toMatchObject({ internal_reference: theirs.internal_reference, request_amount: 5000 });
    });

    it('ids are integers and internal references distinct and random (PG + 24 base32)', async () => {
      const records: Json[] = [];
      for (let i = 0; i < 8; i++)
        records.push(await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN })));
      const ids = records.map((record) => record.id);
      const references = records.map((record) => record.internal_reference as string);
      for (const id of ids) expect(Number.isSafeInteger(id) && (id as number) > 0).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(references).size).toBe(references.length);
      for (const reference of references) {
        expect(reference).toMatch(INTERNAL_REFERENCE);
        expect(reference).not.toMatch(/[ILOU]/);
      }
      // Consecutive references share no structure: random characters agree in ~1 of 32 positions.
      for (let i = 1; i < references.length; i++) {
        const same = [...references[i].slice(2)].filter((char, at) => char === references[i - 1][at + 2]).length;
        expect(same).toBeLessThan(10);
      }
    });

    it('accepts the boundaries: 64-character reference, 100-character name, 255-character description, min and max amounts', async () => {
      await initialized(
        api.client,
        mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: `${uniqueReference('b')}.:/_-`.padEnd(64, 'x') }),
      );
      await initialized(
        api.client,
        mobileMoneyRequest({ msisdn: SILENT_MTN, customer_name: 'N'.repeat(100), description: 'd'.repeat(255) }),
      );
      await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN, amount: 500 }));
      await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN, amount: 5_000_000 }));
      await initialized(api.client, cardRequest({ amount: 1000, redirect_url: 'http://localhost:8080/return' }));
      const minimal = { ...mobileMoneyRequest({ msisdn: SILENT_MTN }) };
      delete minimal.customer_email;
      delete minimal.description;
      await initialized(api.client, minimal);
    });
  });
});
