/**
 * The collections service without NestJS (setup in collections-service-test-setup.ts). This file:
 * opening a collection (initialize, collect-for-payment and its PRN verdict), the implicit start
 * it runs, and the acknowledgement a retry replays.
 */
import { MESSAGES, COLLECTION_EVENT_TYPES as EVENTS } from '@paygate/collections-domain';
import { type CollectionRecord } from '@paygate/contracts';
import { describeOnAllSqlEngines } from '@paygate/testing';
import {
  CALLBACK_URL,
  cardRequest,
  GATEWAY_URL,
  internalReferenceOf,
  MERCHANT,
  momoRequest,
  harnessPerSuite,
} from './collections-service-test-setup';

const PRN = '2250000001301';
const recordOf = (acknowledgement: { data: unknown }) => acknowledgement.data as CollectionRecord;

describeOnAllSqlEngines('CollectionsService: opening a collection', 'coll_open', (engine) => {
  const h = harnessPerSuite({ engine });

  it('initialize without confirmation starts the collection at once: confirmed implicitly, the prompt asked for, the answer acknowledged', async () => {
    const request = momoRequest();
    const acknowledgement = await h.service.initialize({ merchantId: MERCHANT, request });
    const ref = internalReferenceOf(acknowledgement);
    expect(acknowledgement.message).toBe(MESSAGES.initiatedProcessing);
    expect(recordOf(acknowledgement)).toMatchObject({
      merchant_reference: request.merchant_reference,
      transaction_status: 'PENDING',
      status_message: MESSAGES.promptSent,
    });
    expect(await h.eventTypes(ref)).toEqual([EVENTS.initiated, EVENTS.confirmed, EVENTS.pinPromptSent]);
    expect(h.momo.requests.at(-1)).toEqual({
      reference: ref,
      amount: '81000',
      currency: 'UGX',
      msisdn: '256772000001',
      description: 'School fees',
      payerMessage: 'School fees',
      payeeNote: request.merchant_reference,
      notifyUrl: `${CALLBACK_URL}/provider-callbacks/mtn_momo_ug/${ref}`,
      returnUrl: `${GATEWAY_URL}/v1/checkout/return/${ref}`,
      expiresAt: new Date(h.now().getTime() + 300_000).toISOString(),
    });
  });

  it('initialize with confirmation waits for it: nothing reaches the provider', async () => {
    const asked = h.card.requests.length;
    const acknowledgement = await h.service.initialize({ merchantId: MERCHANT, request: cardRequest() });
    expect(acknowledgement.message).toBe(MESSAGES.initiatedAwaitingConfirmation);
    expect(await h.eventTypes(internalReferenceOf(acknowledgement))).toEqual([EVENTS.initiated]);
    expect(h.card.requests).toHaveLength(asked);
  });

  it('initialize acknowledges a collection the provider could not be asked for, and the status timer asks again', async () => {
    h.momo.unreachable = true;
    const acknowledgement = await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() });
    const ref = internalReferenceOf(acknowledgement);
    expect(recordOf(acknowledgement)).toMatchObject({
      transaction_status: 'PENDING',
      status_message: MESSAGES.initiatedProcessing,
    });
    expect(h.warnings).toContain('provider request failed');
    expect(await h.eventTypes(ref)).toEqual([EVENTS.initiated, EVENTS.confirmed]);

    h.momo.unreachable = false;
    const now = h.advance(60_000);
    const verdict = await h.service.fireTimer({
      internalReference: ref,
      kind: 'status',
      dueAt: now,
      leaseUntil: new Date(now.getTime() + 30_000),
    });
    expect(verdict).toEqual({ done: false, retryAt: new Date(now.getTime() + 60_000) });
    expect(await h.eventTypes(ref)).toEqual([EVENTS.initiated, EVENTS.confirmed, EVENTS.pinPromptSent]);
  });

  it('a retry replays the first acknowledgement whatever happened since, and asks the provider nothing more', async () => {
    const request = momoRequest();
    const first = await h.service.initialize({ merchantId: MERCHANT, request });
    const ref = internalReferenceOf(first);
    h.momo.outcome = { status: 'SUCCESSFUL', providerTransactionId: 'mtn-1' };
    await h.service.refreshFromProvider(ref);
    expect((await h.service.queries.current(ref)).record.transaction_status).toBe('COMPLETED');
    const asked = h.momo.requests.length;

    expect(await h.service.initialize({ merchantId: MERCHANT, request })).toEqual(first);
    expect(h.momo.requests).toHaveLength(asked);
  });

  it('a merchant reference used again for another request is refused', async () => {
    const request = momoRequest();
    await h.service.initialize({ merchantId: MERCHANT, request });
    await expect(
      h.service.initialize({ merchantId: MERCHANT, request: { ...request, amount: 90000 } }),
    ).rejects.toMatchObject({ code: 'duplicate_reference' });
  });

  describe('collect-for-payment', () => {
    const open = async () => {
      const acknowledgement = await h.service.collectForPayment({
        merchantId: MERCHANT,
        request: momoRequest({ prn: PRN }),
      });
      return internalReferenceOf(acknowledgement);
    };

    it('needs a PRN', async () => {
      await expect(h.service.collectForPayment({ merchantId: MERCHANT, request: momoRequest() })).rejects.toMatchObject(
        { code: 'invalid_request' },
      );
    });

    it('waits for the PRN verdict, then starts the collection that needs no confirmation', async () => {
      const asked = h.momo.requests.length;
      const ref = await open();
      expect(await h.eventTypes(ref)).toEqual([EVENTS.initiated]);
      expect(h.momo.requests).toHaveLength(asked);

      await h.service.acceptPrn(ref);
      expect(await h.eventTypes(ref)).toEqual([
        EVENTS.initiated,
        EVENTS.prnAccepted,
        EVENTS.confirmed,
        EVENTS.pinPromptSent,
      ]);
      expect(h.momo.requests.at(-1)).toMatchObject({ reference: ref });
    });

    it('an accepted PRN whose prompt cannot be requested leaves the request to the status timer', async () => {
      const ref = await open();
      h.momo.unreachable = true;
      await h.service.acceptPrn(ref);
      expect(await h.eventTypes(ref)).toEqual([EVENTS.initiated, EVENTS.prnAccepted, EVENTS.confirmed]);
    });

    it('a rejected PRN cancels the collection before anything reaches the customer', async () => {
      const ref = await open();
      await h.service.rejectPrn(ref, 'PRN already paid');
      expect((await h.service.queries.current(ref)).record).toMatchObject({
        transaction_status: 'CANCELLED',
        status_message: 'PRN not eligible: PRN already paid',
      });
    });
  });
});
