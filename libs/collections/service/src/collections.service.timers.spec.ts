/**
 * The collections service without NestJS (setup in collections-service-test-setup.ts). This file:
 * a due timer's verdict for the timer worker, and a provider's callback.
 */
import type { CollectionTimerKind } from '@paygate/collections-domain';
import { ProviderUnavailableError } from '@paygate/connectors';
import { describeOnAllSqlEngines } from '@paygate/testing';
import {
  cardRequest,
  internalReferenceOf,
  MERCHANT,
  momoRequest,
  harnessPerSuite,
} from './collections-service-test-setup';

describeOnAllSqlEngines('CollectionsService: timers and callbacks', 'coll_timers', (engine) => {
  const h = harnessPerSuite({ engine });

  /** A MoMo collection whose customer has the prompt. */
  const withPrompt = async () =>
    internalReferenceOf(await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() }));
  const fire = (internalReference: string, kind: CollectionTimerKind, dueAt = h.now()) =>
    h.service.fireTimer({ internalReference, kind, dueAt, leaseUntil: new Date(dueAt.getTime() + 30_000) });
  const statusOf = async (ref: string) => (await h.service.queries.current(ref)).record;

  it('status: the provider has no result yet, so it polls again a poll interval from now', async () => {
    const ref = await withPrompt();
    const now = h.advance(60_000);
    expect(await fire(ref, 'status')).toEqual({ done: false, retryAt: new Date(now.getTime() + 60_000) });
    expect(h.momo.queries.at(-1)).toBe(`momo-${ref}`);
  });

  it('status: a result the callback never brought is recorded, and the timer is done', async () => {
    const ref = await withPrompt();
    h.momo.outcome = { status: 'SUCCESSFUL', providerTransactionId: 'mtn-7' };
    expect(await fire(ref, 'status')).toEqual({ done: true });
    expect(await statusOf(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
  });

  it('status: an unreachable provider fails the firing, which the timer worker retries', async () => {
    const ref = await withPrompt();
    h.momo.unreachable = true;
    await expect(fire(ref, 'status')).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it.each([
    ['has no result', false],
    ['cannot be reached', true],
  ])(
    'provider deadline: the provider %s, so the collection is cancelled and the timer done',
    async (_name, unreachable) => {
      const ref = await withPrompt();
      h.momo.unreachable = unreachable;
      const dueAt = h.advance(300_000);
      expect(await fire(ref, 'provider', dueAt)).toEqual({ done: true });
      expect(await statusOf(ref)).toMatchObject({
        transaction_status: 'CANCELLED',
        status_message: 'Transaction cancelled: payment prompt not answered in time',
      });
    },
  );

  it('confirmation deadline: an unconfirmed collection is cancelled and the timer done', async () => {
    const ref = internalReferenceOf(await h.service.initialize({ merchantId: MERCHANT, request: cardRequest() }));
    const dueAt = h.advance(1_800_000);
    expect(await fire(ref, 'confirmation', dueAt)).toEqual({ done: true });
    expect(await statusOf(ref)).toMatchObject({
      transaction_status: 'CANCELLED',
      status_message: 'Transaction cancelled: confirmation not received in time',
    });
  });

  it('a timer of a collection that does not exist is done', async () => {
    expect(await fire('PG000000000000000000000000', 'status')).toEqual({ done: true });
  });

  it("a callback makes the service ask the provider, and records the provider's answer", async () => {
    const ref = await withPrompt();
    h.momo.outcome = { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'NOT_ENOUGH_FUNDS' };
    await h.service.refreshFromProvider(ref, 'some-hint');
    expect(h.momo.queries.at(-1)).toBe(`momo-${ref}`);
    expect(await statusOf(ref)).toMatchObject({ transaction_status: 'FAILED' });
  });

  it('a callback while the provider cannot be reached fails, so the provider calls again', async () => {
    const ref = await withPrompt();
    h.momo.unreachable = true;
    await expect(h.service.refreshFromProvider(ref)).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(await statusOf(ref)).toMatchObject({ transaction_status: 'PENDING' });
  });
});
