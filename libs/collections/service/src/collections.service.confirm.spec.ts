/**
 * The collections service without NestJS (setup in collections-service-test-setup.ts). This file:
 * the merchant's confirm, and what it answers when the provider or the collection refuses.
 */
import { MESSAGES, COLLECTION_EVENT_TYPES as EVENTS } from '@paygate/collections-domain';
import { CommandRejectedError, type CollectionRequest } from '@paygate/contracts';
import { describeOnAllSqlEngines } from '@paygate/testing';
import {
  cardRequest,
  GATEWAY_URL,
  internalReferenceOf,
  MERCHANT,
  momoRequest,
  harnessPerSuite,
} from './collections-service-test-setup';

describeOnAllSqlEngines('CollectionsService: confirm', 'coll_confirm', (engine) => {
  const h = harnessPerSuite({ engine });

  const open = async (request: CollectionRequest) =>
    internalReferenceOf(await h.service.initialize({ merchantId: MERCHANT, request }));
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a rejection');
      },
      (error: unknown) => {
        if (error instanceof CommandRejectedError) return error;
        throw error;
      },
    );

  it('asks the provider for the checkout, with its own time-out, and answers with its URL', async () => {
    const ref = await open(cardRequest());
    const now = h.advance(1_000);
    const acknowledgement = await h.service.confirm({ merchantId: MERCHANT, internalReference: ref });
    expect(acknowledgement).toEqual({
      message: MESSAGES.confirmRedirect('UGX', 25000),
      data: { payment_url: `https://checkout.test/pay/${ref}` },
    });
    expect(h.card.requests.at(-1)).toMatchObject({
      reference: ref,
      amount: '25000',
      returnUrl: `${GATEWAY_URL}/v1/checkout/return/${ref}`,
      expiresAt: new Date(now.getTime() + 900_000).toISOString(),
    });
    expect(await h.eventTypes(ref)).toEqual([EVENTS.initiated, EVENTS.confirmed, EVENTS.cardCheckoutOpened]);
  });

  it('asks for a mobile money prompt and tells the merchant what the customer will see', async () => {
    const ref = await open(momoRequest({ require_confirmation: true }));
    expect(await h.service.confirm({ merchantId: MERCHANT, internalReference: ref })).toEqual({
      message: MESSAGES.confirmPrompt('UGX', 81000),
      data: {},
    });
  });

  it('answers provider_unavailable when the provider cannot be reached, and a second confirm asks again', async () => {
    const ref = await open(cardRequest());
    h.card.unreachable = true;
    const error = await rejection(h.service.confirm({ merchantId: MERCHANT, internalReference: ref }));
    expect(error).toMatchObject({ code: 'provider_unavailable', details: { internal_reference: ref } });
    expect(h.warnings).toContain('provider request failed');
    expect(await h.eventTypes(ref)).toEqual([EVENTS.initiated, EVENTS.confirmed]);

    h.card.unreachable = false;
    const asked = h.card.requests.length;
    expect(await h.service.confirm({ merchantId: MERCHANT, internalReference: ref })).toMatchObject({
      data: { payment_url: `https://checkout.test/pay/${ref}` },
    });
    expect(h.card.requests).toHaveLength(asked + 1);
  });

  it('after the confirmation deadline cancels the collection and refuses', async () => {
    const ref = await open(cardRequest());
    h.advance(1_800_000);
    const error = await rejection(h.service.confirm({ merchantId: MERCHANT, internalReference: ref }));
    expect(error).toMatchObject({
      code: 'not_awaiting_confirmation',
      message: `transaction ${ref} is CANCELLED and cannot be confirmed`,
    });
    expect(await h.eventTypes(ref)).toEqual([EVENTS.initiated, EVENTS.cancelled]);
  });

  it('of a collection initiated without confirmation is refused, as the decider decides', async () => {
    const ref = await open(momoRequest());
    const error = await rejection(h.service.confirm({ merchantId: MERCHANT, internalReference: ref }));
    expect(error).toMatchObject({
      code: 'not_awaiting_confirmation',
      message: `transaction ${ref} was initiated with require_confirmation=false and needs no confirmation`,
    });
  });

  it("of another merchant's collection, or of none, is not_found", async () => {
    const ref = await open(cardRequest());
    expect(await rejection(h.service.confirm({ merchantId: 'merchant-2', internalReference: ref }))).toMatchObject({
      code: 'not_found',
    });
    expect(
      await rejection(h.service.confirm({ merchantId: MERCHANT, internalReference: 'PG000000000000000000000000' })),
    ).toMatchObject({ code: 'not_found' });
  });
});
