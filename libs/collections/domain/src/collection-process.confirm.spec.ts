/**
 * The collection process (setup in collection-process-test-setup.ts). This file: the merchant's
 * confirm, which confirms with the prompt's or the checkout's time-out and asks the provider.
 */
import { POLICY, outline, runProcess } from './collection-process-test-setup';
import { at, CONFIRMATION_DEADLINE, METHODS, PAYMENT_URL, stateIn } from './collection-test-setup';

const CONFIRM = { type: 'ConfirmRequested' } as const;

describe.each(METHODS)('the merchant confirms a %s collection', (method) => {
  const timeoutMs = method === 'CARD' ? POLICY.checkoutTimeoutMs : POLICY.promptTimeoutMs;
  const answer = method === 'CARD' ? { providerReference: 'sess_123', paymentUrl: PAYMENT_URL } : { providerReference: 'momo-ref-1' };

  it('awaiting confirmation: confirms explicitly, the provider deadline counted from now, asks the provider and records the answer', async () => {
    const run = await runProcess(CONFIRM, stateIn(method, 'AWAITING_CONFIRMATION'), at(60), { request: answer });
    expect(outline(run)).toEqual(['Execute Confirm', 'RequestProvider', 'Execute RecordProviderRequest', 'Done']);
    expect(run.actions[0]).toEqual({
      type: 'Execute',
      command: { type: 'Confirm', at: at(60), implicit: false, providerExpiresAt: at(60 + timeoutMs / 1000) },
    });
    expect(run.actions[1]).toMatchObject({ type: 'RequestProvider', request: { expiresAt: at(60 + timeoutMs / 1000) } });
    expect(run.collection).toMatchObject({ phase: 'WITH_PROVIDER', ...answer });
  });

  it('after its confirmation deadline: the collection is cancelled and the merchant told it cannot be confirmed', async () => {
    const collection = stateIn(method, 'AWAITING_CONFIRMATION');
    const run = await runProcess(CONFIRM, collection, CONFIRMATION_DEADLINE);
    expect(outline(run)).toEqual(['Execute Confirm', 'Reject']);
    expect(run.actions[1]).toEqual({
      type: 'Reject',
      code: 'not_awaiting_confirmation',
      message: `transaction ${collection.initiated.internalReference} is CANCELLED and cannot be confirmed`,
    });
    expect(run.collection).toMatchObject({ status: 'CANCELLED', cancellationReason: 'CONFIRMATION_TIMEOUT' });
  });

  it('when the provider cannot be reached: the merchant is told to confirm again, and the collection still owes the request', async () => {
    const collection = stateIn(method, 'AWAITING_CONFIRMATION');
    const run = await runProcess(CONFIRM, collection, at(60), { request: 'unreachable' });
    expect(outline(run)).toEqual(['Execute Confirm', 'RequestProvider', 'Reject']);
    expect(run.actions[2]).toEqual({
      type: 'Reject',
      code: 'provider_unavailable',
      message: 'the payment provider could not be reached; confirm again to retry',
      details: { internal_reference: collection.initiated.internalReference },
    });
    expect(run.collection).toMatchObject({ status: 'PENDING', phase: 'AWAITING_PROVIDER' });
  });

  it('again while the request is owed (the provider was unreachable): asks the provider again', async () => {
    const run = await runProcess(CONFIRM, stateIn(method, 'AWAITING_PROVIDER'), at(90), { request: answer });
    expect(outline(run)).toEqual(['Execute Confirm', 'RequestProvider', 'Execute RecordProviderRequest', 'Done']);
    expect(run.collection).toMatchObject({ phase: 'WITH_PROVIDER' });
  });

  it('again once the customer has the prompt or checkout: asks nothing more', async () => {
    const collection = stateIn(method, 'WITH_PROVIDER');
    const run = await runProcess(CONFIRM, collection, at(90));
    expect(outline(run)).toEqual(['Execute Confirm', 'Done']);
    expect(run.collection).toBe(collection);
  });
});
