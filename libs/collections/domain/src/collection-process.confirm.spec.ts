/**
 * The collection process (setup in collection-process-test-setup.ts). This file: the merchant's
 * confirm, which confirms with the prompt's or the checkout's time-out and asks the provider.
 */
import {
  CONFIRMS_AND_ASKS_THE_PROVIDER,
  given,
  outline,
  providerAnswer,
  providerTimeoutMs,
} from './collection-process-test-setup';
import { at, CONFIRMATION_DEADLINE, eventsTo, initiatedData, METHODS } from './collection-test-setup';

const CONFIRM = { type: 'ConfirmRequested' } as const;

describe.each(METHODS)('the merchant confirms a %s collection', (method) => {
  const timeoutMs = providerTimeoutMs(method);
  const answer = providerAnswer(method);
  const { internalReference } = initiatedData(method);

  it('awaiting confirmation: confirms explicitly, the provider deadline counted from now, asks the provider and records the answer', async () => {
    const run = await given(eventsTo(method, 'AWAITING_CONFIRMATION')).when(CONFIRM, at(60), { request: answer });
    expect(outline(run.outputs)).toEqual(CONFIRMS_AND_ASKS_THE_PROVIDER);
    expect(run.outputs[0]).toEqual({
      type: 'Execute',
      command: { type: 'Confirm', at: at(60), implicit: false, providerExpiresAt: at(60 + timeoutMs / 1000) },
    });
    expect(run.outputs[1]).toMatchObject({
      call: { type: 'RequestProvider', request: { expiresAt: at(60 + timeoutMs / 1000) } },
    });
    expect(run.collection).toMatchObject({ phase: 'WITH_PROVIDER', ...answer });
  });

  it('after its confirmation deadline: the collection is cancelled and the merchant told it cannot be confirmed', async () => {
    const run = await given(eventsTo(method, 'AWAITING_CONFIRMATION')).when(CONFIRM, CONFIRMATION_DEADLINE);
    expect(outline(run.outputs)).toEqual(['Execute Confirm', 'Reject']);
    expect(run.outputs[1]).toEqual({
      type: 'Reject',
      code: 'not_awaiting_confirmation',
      message: `transaction ${internalReference} is CANCELLED and cannot be confirmed`,
    });
    expect(run.collection).toMatchObject({ status: 'CANCELLED', cancellationReason: 'CONFIRMATION_TIMEOUT' });
  });

  it('when the provider cannot be reached: the merchant is told to confirm again, and the collection still owes the request', async () => {
    const run = await given(eventsTo(method, 'AWAITING_CONFIRMATION')).when(CONFIRM, at(60), {
      request: 'unreachable',
    });
    expect(outline(run.outputs)).toEqual(['Execute Confirm', 'Call RequestProvider', 'Reject']);
    expect(run.outputs[2]).toEqual({
      type: 'Reject',
      code: 'provider_unavailable',
      message: 'the payment provider could not be reached; confirm again to retry',
      details: { internal_reference: internalReference },
    });
    expect(run.collection).toMatchObject({ status: 'PENDING', phase: 'AWAITING_PROVIDER' });
  });

  it('again while the request is owed (the provider was unreachable): asks the provider again', async () => {
    const run = await given(eventsTo(method, 'AWAITING_PROVIDER')).when(CONFIRM, at(90), { request: answer });
    expect(outline(run.outputs)).toEqual(CONFIRMS_AND_ASKS_THE_PROVIDER);
    expect(run.collection).toMatchObject({ phase: 'WITH_PROVIDER' });
  });

  it('again once the customer has the prompt or checkout: asks nothing more and records nothing', async () => {
    const run = await given(eventsTo(method, 'WITH_PROVIDER')).when(CONFIRM, at(90));
    expect(outline(run.outputs)).toEqual(['Execute Confirm', 'Done']);
    expect(run.events).toEqual([]);
  });
});
