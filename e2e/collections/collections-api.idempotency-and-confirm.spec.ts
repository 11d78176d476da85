/**
 * The merchant-facing collections API and the admin API (docs/api.md) against one in-process
 * Paygate on PGlite (setup in api-test-setup.ts). This file: requests sent again and confirm.
 * Initialize again: the same body replays the original acknowledgement and writes nothing,
 * concurrent requests make one collection, a different body with a used merchant_reference answers
 * 409, a refused request leaves its reference usable. Confirm: prompt and checkout
 * acknowledgements, repeated confirms, 404 and 409 cases and confirm's own validation.
 */
import { cardRequest, mobileMoneyRequest, uniqueReference } from '@paygate/testing';
import { expectEnvelope, expectFieldErrors, initialized, SILENT_MTN, useApiPaygate, type Json } from './api-test-setup';

describe('collections API (docs/api.md)', () => {
  const { api, collectionEvents } = useApiPaygate();

  describe('initialize acknowledgement', () => {
    it('the same body again answers 202 with the identical acknowledgement and records one CollectionInitiated', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const first = await api.client.initialize(body);
      expectEnvelope(first, 202);
      const count = (await collectionEvents()).length;
      const again = await api.client.initialize(body);
      const reordered = await api.client.initialize(Object.fromEntries(Object.entries(body).reverse()));
      expect(again).toEqual(first);
      expect(reordered).toEqual(first);
      const stream = await api.paygate.infrastructure.store.readStream(
        `collection-${first.body.data.internal_reference as string}`,
      );
      expect(stream.filter((event) => event.type === 'CollectionInitiated')).toHaveLength(1);
      const all = await collectionEvents();
      expect(all).toHaveLength(count);
      expect(
        all.filter(
          (event) => event.type === 'CollectionInitiated' && event.data.merchantReference === body.merchant_reference,
        ),
      ).toHaveLength(1);
    });

    it('the same body again after confirm still answers 202 with the original acknowledgement', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const first = await api.client.initialize(body);
      expectEnvelope(first, 202);
      expectEnvelope(await api.client.confirm(first.body.data.internal_reference as string), 202);
      const again = await api.client.initialize(body);
      expectEnvelope(again, 202);
      expect(again.body.data).toMatchObject({
        id: first.body.data.id,
        internal_reference: first.body.data.internal_reference,
        merchant_reference: body.merchant_reference,
      });
      expect(again).toEqual(first);
    });

    it('the same require_confirmation=false body again answers 202 with the same collection and asks the provider once', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN, require_confirmation: false });
      const first = await api.client.initialize(body);
      expectEnvelope(first, 202);
      const stream = `collection-${first.body.data.internal_reference as string}`;
      const events = await api.paygate.infrastructure.store.readStream(stream);
      const again = await api.client.initialize(body);
      expectEnvelope(again, 202);
      expect(again.body.data).toMatchObject({
        id: first.body.data.id,
        internal_reference: first.body.data.internal_reference,
      });
      expect(again).toEqual(first);
      expect(await api.paygate.infrastructure.store.readStream(stream)).toEqual(events);
    });

    it('the same body sent five times at once gives one collection and five identical acknowledgements', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => api.client.initialize(body)));
      for (const answer of answers) {
        expectEnvelope(answer, 202);
        expect(answer).toEqual(answers[0]);
      }
      const initiated = (await collectionEvents()).filter(
        (event) => event.type === 'CollectionInitiated' && event.data.merchantReference === body.merchant_reference,
      );
      expect(initiated).toHaveLength(1);
    });

    it('different bodies with one merchant_reference at once: one is accepted, the others get 409', async () => {
      const reference = uniqueReference('race');
      const answers = await Promise.all(
        [81000, 82000, 83000, 84000].map((amount) =>
          api.client.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: reference, amount })),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409, 409, 409]);
      for (const answer of answers) expectEnvelope(answer, answer.status);
      const initiated = (await collectionEvents()).filter(
        (event) => event.type === 'CollectionInitiated' && event.data.merchantReference === reference,
      );
      expect(initiated).toHaveLength(1);
    });

    it('a different body with a used merchant_reference answers 409 and writes nothing', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const first = await initialized(api.client, body);
      const events = await collectionEvents();
      const [{ count: reservations }] = await api.paygate.infrastructure.sql.query<{ count: string }>(
        'select count(*)::text as count from collection_references',
      );
      for (const change of [
        { amount: 82000 },
        { customer_name: 'John Doe' },
        { charge_customer: true },
        { msisdn: '256772000014' },
        { description: undefined },
      ]) {
        const answer = await api.client.initialize({ ...body, ...change });
        expectEnvelope(answer, 409);
      }
      expect(await collectionEvents()).toEqual(events);
      const [{ count: after }] = await api.paygate.infrastructure.sql.query<{ count: string }>(
        'select count(*)::text as count from collection_references',
      );
      expect(after).toBe(reservations);
      // The original collection is untouched and still answers.
      const found = await api.client.collection(first.internal_reference as string);
      expect(found.body.data).toMatchObject({
        transaction_amount: 81000,
        customer_name: 'Jane Doe',
        transaction_status: 'PENDING',
      });
    });

    it.each([
      ['NUL in customer_name', { customer_name: 'Jane\u0000Doe' }],
      ['NUL in description', { description: 'Order\u00001001' }],
      ['a lone surrogate in customer_name', { customer_name: 'Jane \ud800' }],
    ])(
      '%s is accepted or refused with 400, never 5xx, and a refused merchant_reference stays usable',
      async (_label, change) => {
        const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
        const before = (await collectionEvents()).length;
        const answer = await api.client.initialize({ ...body, ...change });
        expectEnvelope(answer, answer.status);
        const written = (await collectionEvents()).length - before;
        // Unless it was accepted, nothing was created: the corrected request with the same reference is a first
        // request.
        const retried = answer.status === 202 ? 202 : (await api.client.initialize(body)).status;
        expect({
          first: [202, 400].includes(answer.status) ? '202 or 400' : answer.status,
          written,
          correctedRetry: retried,
        }).toEqual({
          first: '202 or 400',
          written: answer.status === 202 ? 1 : 0,
          correctedRetry: 202,
        });
      },
    );
  });

  describe('confirm', () => {
    it('mobile money: 202 with the prompt message (transaction_amount) and data {}', async () => {
      const { internal_reference } = await initialized(
        api.client,
        mobileMoneyRequest({ msisdn: SILENT_MTN, charge_customer: true }),
      );
      const answer = await api.client.confirm(internal_reference as string);
      expectEnvelope(answer, 202);
      expect(answer.body).toEqual({
        code: 202,
        status: 'accepted',
        message: 'You will receive a prompt to pay UGX 82,215 on your mobile. Enter PIN to approve payment',
        data: {},
      });
    });

    it('card: 202 with the redirect message and data.payment_url', async () => {
      const { internal_reference } = await initialized(api.client, cardRequest());
      const answer = await api.client.confirm(internal_reference as string);
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Redirect to URL for the payment of UGX 25,000');
      expect(Object.keys(answer.body.data)).toEqual(['payment_url']);
      expect(new URL(answer.body.data.payment_url as string).protocol).toMatch(/^https?:$/);
      const again = await api.client.confirm(internal_reference as string);
      expect(again).toEqual(answer);
    });

    it('an unknown internal_reference answers 404 and another merchant’s exactly the same', async () => {
      const { internal_reference } = await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const before = await api.paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`);
      const unknown = await api.other.confirm('PG0000000000000000000000ZZ');
      const foreign = await api.other.confirm(internal_reference as string);
      expectEnvelope(unknown, 404);
      expect(foreign).toEqual(unknown);
      expect(await api.paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`)).toEqual(
        before,
      );
    });

    it('mobile money confirmed again while the prompt is open: the same acknowledgement, no second prompt', async () => {
      const { internal_reference } = await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const first = await api.client.confirm(internal_reference as string);
      expectEnvelope(first, 202);
      const events = await api.paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`);
      const again = await api.client.confirm(internal_reference as string);
      expect(again).toEqual(first);
      expect(await api.paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`)).toEqual(
        events,
      );
    });

    it.each([
      ['mobile money', () => mobileMoneyRequest({ msisdn: SILENT_MTN, require_confirmation: false })],
      ['card', () => cardRequest({ require_confirmation: false })],
    ])('%s with require_confirmation=false answers 409 (and 404 to another merchant)', async (_label, body) => {
      const { internal_reference } = await initialized(api.client, body());
      const answer = await api.client.confirm(internal_reference as string);
      expectEnvelope(answer, 409);
      const unknown = await api.other.confirm('PG0000000000000000000000ZZ');
      expect(await api.other.confirm(internal_reference as string)).toEqual(unknown);
    });

    it('a collection already final answers 409', async () => {
      const { internal_reference } = await initialized(api.client, mobileMoneyRequest({ msisdn: '256772000002' }));
      expectEnvelope(await api.client.confirm(internal_reference as string), 202);
      expect(await api.client.finalState(internal_reference as string)).toMatchObject({ transaction_status: 'FAILED' });
      expectEnvelope(await api.client.confirm(internal_reference as string), 409);
    });

    it.each<[string, Json]>([
      ['missing internal_reference', {}],
      ['internal_reference a number', { internal_reference: 12 }],
      ['internal_reference empty', { internal_reference: '' }],
      ['internal_reference null', { internal_reference: null }],
    ])('%s answers 400 naming internal_reference', async (_label, body) => {
      const answer = await api.client.request('POST', '/v1/collections/confirm', { body });
      expectFieldErrors(answer, ['internal_reference']);
    });

    it.each(['pin', 'constructor', 'valueOf'])(
      'an unknown field %s next to internal_reference answers 400 and confirms nothing',
      async (field) => {
        const { internal_reference } = await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
        const answer = await api.client.request('POST', '/v1/collections/confirm', {
          body: { internal_reference, [field]: '1234' },
        });
        expectFieldErrors(answer, [field]);
        const events = await api.paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`);
        expect(events.map((event) => event.type)).toEqual(['CollectionInitiated', 'collections.CollectionOpened']);
      },
    );

    it.each(['\u0000', 'PG\u0000', '\ud800', '\udc00PG'])(
      'an internal_reference %j (NUL or half a surrogate pair) answers 400 naming it',
      async (reference) => {
        const answer = await api.client.confirm(reference);
        expectFieldErrors(
          answer,
          ['internal_reference'],
          'internal_reference must not contain NUL characters or unpaired UTF-16 surrogates',
        );
      },
    );
  });
});
