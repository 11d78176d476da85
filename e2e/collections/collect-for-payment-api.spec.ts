/**
 * POST /v1/collections/collect-for-payment against one in-process Paygate on PGlite (setup in
 * api-test-setup.ts): the initialize rules plus `prn`, the acknowledgement, idempotency on
 * merchant_reference, and that nothing reaches the provider before the PRN verdict.
 */
import { cardRequest, mobileMoneyRequest, uniqueReference } from '@paygate/testing';
import { expectEnvelope, expectFieldErrors, INTERNAL_REFERENCE, useApiPaygate } from './api-test-setup';

const PRN = '2250000001301';
const PATH = '/v1/collections/collect-for-payment';

describe('collect-for-payment API', () => {
  const { api, collectionEvents } = useApiPaygate();
  const send = (body: unknown, headers: Record<string, string> = {}, path = PATH) =>
    api.client.request('POST', path, { body, headers });

  it('accepts a mobile money collection with a PRN: 202 with both references', async () => {
    const body = mobileMoneyRequest({ amount: 25000, prn: PRN });
    const answer = await send(body);
    expectEnvelope(answer, 202);
    expect(answer.body.message).toBe('Transaction accepted. The PRN is validated before the customer is asked to pay');
    expect(answer.body.data).toEqual({
      internal_reference: expect.stringMatching(INTERNAL_REFERENCE),
      merchant_reference: body.merchant_reference,
    });
  });

  it('accepts CARD without redirect_url (the customer ends on a hosted result page)', async () => {
    const body = cardRequest({ prn: PRN });
    delete body.redirect_url;
    expectEnvelope(await send(body), 202);
  });

  it('serves the unprefixed path with x-api-version: 1', async () => {
    expectEnvelope(
      await send(
        mobileMoneyRequest({ amount: 25000, prn: PRN }),
        { 'x-api-version': '1' },
        '/collections/collect-for-payment',
      ),
      202,
    );
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not digits', '22500A0001301'],
    ['too long', '1'.repeat(33)],
    ['a number', 2250000001301],
  ])('refuses a prn that is %s with 400 naming prn, and starts no collection', async (_case, prn) => {
    // Earlier collections go on changing (their PRN verdicts arrive), so count the ones started.
    const started = async () =>
      (await collectionEvents()).filter((event) => event.type === 'CollectionInitiated').length;
    const before = await started();
    expectFieldErrors(await send(mobileMoneyRequest({ prn })), ['prn']);
    expect(await started()).toBe(before);
  });

  it('applies every initialize rule too (msisdn of another network)', async () => {
    expectFieldErrors(await send(mobileMoneyRequest({ prn: PRN, msisdn: '256752000001' })), ['msisdn']);
  });

  it('replays the acknowledgement for the same body and answers 409 for another body with the same merchant_reference', async () => {
    const body = mobileMoneyRequest({ amount: 25000, prn: PRN, merchant_reference: uniqueReference('cfp') });
    const first = await send(body);
    expectEnvelope(first, 202);
    expect(await send(body)).toEqual(first);
    const conflict = await send({ ...body, prn: '2250000009999' });
    expectEnvelope(conflict, 409);
  });

  it('announces the collection to service-payments and asks nothing of the provider before the verdict', async () => {
    // A PRN nobody can pay (unknown to the biller): the verdict is a refusal, the collection never confirms.
    const answer = await send(mobileMoneyRequest({ amount: 25000, prn: '1234' }));
    const ref = String(answer.body.data.internal_reference);
    const stream = await api.paygate.infrastructure.store.readStream(`collection-${ref}`);
    expect(stream.slice(0, 2).map((event) => event.type)).toEqual([
      'CollectionInitiated',
      'collections.ServicePaymentRequested',
    ]);
    expect(stream.map((event) => event.type)).not.toContain('CollectionConfirmed');
  });
});
