/**
 * Collect-for-payment: a collection that carries a PRN waits for service-payments' verdict before
 * anything reaches the customer, then proceeds like any other, or ends CANCELLED.
 */
import { COLLECTION_INTEGRATION_EVENTS as PUBLISHED } from '@paygate/contracts';
import { COLLECTION_EVENT_TYPES as EVENTS } from './events';
import type { CollectionCommand, CollectionState } from './collection';
import { decide } from './collection';
import { collectionDecider } from './collection-decider';
import {
  apply,
  at,
  CONFIRMATION_DEADLINE,
  confirm,
  decideChecked,
  emitted,
  eventSchemaErrors,
  expire,
  initiatedData,
  METHODS,
  outcome,
  rejection,
  SUCCESS_MOMO,
} from './collection-test-setup';

const PRN = '2250000001301';
const initiateWithPrn = (method: (typeof METHODS)[number], requireConfirmation = true): CollectionCommand => ({
  type: 'Initiate',
  data: initiatedData(method, requireConfirmation, { prn: PRN }),
});
const accept = (seconds = 2): CollectionCommand => ({ type: 'AcceptPrn', at: at(seconds) });
const reject = (reason = 'PRN already paid', seconds = 2): CollectionCommand => ({
  type: 'RejectPrn',
  at: at(seconds),
  reason,
});

describe.each(METHODS)('a %s collection with a PRN', (method) => {
  const waiting = (): CollectionState => apply(null, initiateWithPrn(method));

  it('waits for the PRN verdict: pending, and saying so', () => {
    expect(waiting()).toMatchObject({
      phase: 'AWAITING_PRN',
      status: 'PENDING',
      statusMessage: 'Transaction initiated. Validating the PRN before collection',
    });
  });

  it('refuses a merchant confirm until the PRN is accepted, and ignores provider news', () => {
    expect(rejection(() => decide(confirm(5), waiting()))).toMatchObject({ code: 'not_awaiting_confirmation' });
    expect(decideChecked(outcome(SUCCESS_MOMO, 5), waiting())).toEqual([]);
    expect(decideChecked(expire('provider', at(999_999)), waiting())).toEqual([]);
  });

  it('proceeds to confirmation once accepted, exactly once', () => {
    const accepted = apply(waiting(), accept());
    expect(accepted).toMatchObject({
      phase: 'AWAITING_CONFIRMATION',
      statusMessage: 'Transaction initiated. Pending customer confirmation',
    });
    expect(decideChecked(accept(3), accepted)).toEqual([]);
    expect(decideChecked(reject('late', 3), accepted)).toEqual([]);
    expect(decideChecked(confirm(10), accepted).map((event) => event.type)).toEqual([EVENTS.confirmed]);
  });

  it('ends CANCELLED with the reason when the PRN is not eligible, and a late acceptance changes nothing', () => {
    const [cancelled] = decideChecked(reject('PRN already paid'), waiting());
    expect(cancelled).toMatchObject({
      type: EVENTS.cancelled,
      data: { reason: 'PRN_NOT_ELIGIBLE', statusMessage: 'PRN not eligible: PRN already paid' },
    });
    const final = apply(waiting(), reject());
    expect(final).toMatchObject({ phase: 'FINAL', status: 'CANCELLED' });
    expect(decideChecked(accept(5), final)).toEqual([]);
  });

  it('ends CANCELLED at its deadline when no verdict came, saying so and publishing why', () => {
    const untilDeadline = apply(null, {
      type: 'Initiate',
      data: initiatedData(method, false, { prn: PRN, confirmationExpiresAt: CONFIRMATION_DEADLINE }),
    });
    expect(decideChecked(expire('confirmation', at(1)), untilDeadline)).toEqual([]);
    const [cancelled] = decideChecked(expire('confirmation', CONFIRMATION_DEADLINE), untilDeadline);
    expect(cancelled).toMatchObject({
      type: EVENTS.cancelled,
      data: {
        reason: 'PRN_VALIDATION_TIMEOUT',
        statusMessage: 'Transaction cancelled: the PRN could not be validated in time',
      },
    });
    const final = apply(untilDeadline, expire('confirmation', CONFIRMATION_DEADLINE));
    expect(decideChecked(accept(999_999), final)).toEqual([]);
    const [settled] = collectionDecider.publish?.([cancelled], final) ?? [];
    expect(settled).toMatchObject({
      type: PUBLISHED.settled,
      data: { collection: { status: 'CANCELLED', cancellationReason: 'PRN_VALIDATION_TIMEOUT' } },
    });
  });

  it('announces itself to service-payments first and opens for the customer only when accepted', () => {
    const initiated = collectionDecider.decide(initiateWithPrn(method), null);
    const state = apply(null, initiateWithPrn(method));
    expect(collectionDecider.publish?.(initiated, state).map((event) => event.type)).toEqual([
      PUBLISHED.servicePaymentRequested,
    ]);
    expect(collectionDecider.publish?.(initiated, state)[0].data).toMatchObject({
      collection: { prn: PRN, status: 'PENDING' },
    });
    const accepted = collectionDecider.decide(accept(), state);
    expect(collectionDecider.publish?.(accepted, apply(state, accept())).map((event) => event.type)).toEqual([
      PUBLISHED.opened,
    ]);
    const rejected = collectionDecider.decide(reject(), state);
    expect(collectionDecider.publish?.(rejected, apply(state, reject())).map((event) => event.type)).toEqual([
      PUBLISHED.settled,
    ]);
  });
});

describe('events decide() emitted in this file', () => {
  it('include the PRN verdict events, each conforming to its JSON schema', () => {
    expect(emitted.map((event) => event.type)).toEqual(expect.arrayContaining([EVENTS.prnAccepted, EVENTS.cancelled]));
    expect(emitted.flatMap(eventSchemaErrors)).toEqual([]);
  });
});
