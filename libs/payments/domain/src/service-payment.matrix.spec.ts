/**
 * The ServicePayment aggregate (fixtures in payments-test-setup.ts). This file: every command in
 * every situation, as one table of the events decided, the phase reached and the integration
 * events published; final states are never left and a repeated command decides nothing.
 */
import { PAYMENTS_INTEGRATION_EVENTS as PUBLISHED } from '@paygate/contracts';
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS } from './events';
import {
  evolveServicePayment,
  type ServicePaymentCommand,
  type ServicePaymentPhase,
  type ServicePaymentState,
} from './service-payment';
import {
  deferValidation,
  ALREADY_PAID,
  decideChecked,
  ELIGIBLE,
  FINAL_SITUATIONS,
  giveUp,
  open,
  publishOf,
  recordEligibility,
  refused,
  rejection,
  retryable,
  settled,
  SITUATIONS,
  stateIn,
  succeeded,
  type Situation,
} from './payments-test-setup';

const COMMANDS: Record<string, ServicePaymentCommand> = {
  'Open again': open(),
  'RecordEligibility eligible': recordEligibility(ELIGIBLE, 'HELD', 200),
  'DeferValidation #1': deferValidation(1, 200),
  'RecordEligibility already paid': recordEligibility(ALREADY_PAID, 'NOT_NEEDED', 200),
  'RecordEligibility fee hold refused': recordEligibility(ELIGIBLE, 'REFUSED', 200),
  'RecordCollectionSettled COMPLETED': settled('COMPLETED', 200),
  'RecordCollectionSettled CANCELLED': settled('CANCELLED', 200),
  'RecordPaymentAttempt succeeded': succeeded(200),
  'RecordPaymentAttempt retryable #1': retryable(1, 200),
  'RecordPaymentAttempt retryable #2': retryable(2, 200),
  'RecordPaymentAttempt refused': refused(200),
  GiveUp: giveUp(200),
};

type Outcome = [events: string[], phase: ServicePaymentPhase];
const same = (situation: Situation): Outcome => [
  [],
  (situation.startsWith('OPENED')
    ? 'OPENED'
    : situation.startsWith('PAYING')
      ? 'PAYING'
      : situation) as ServicePaymentPhase,
];
const rejected: Outcome = [[EVENTS.prnRejected], 'REJECTED'];

/** What each command decides where it decides something; every other cell decides nothing. */
const DECIDES: Record<string, Partial<Record<Situation, Outcome>>> = {
  'Open again': {},
  'RecordEligibility eligible': {
    OPENED: [[EVENTS.prnConfirmed], 'ELIGIBLE'],
    OPENED_COLLECTED: [[EVENTS.prnConfirmed, EVENTS.paymentRequested], 'PAYING'],
  },
  'DeferValidation #1': {
    OPENED: [[EVENTS.prnValidationDeferred], 'OPENED'],
    OPENED_COLLECTED: [[EVENTS.prnValidationDeferred], 'OPENED'],
  },
  'RecordEligibility already paid': { OPENED: rejected, OPENED_COLLECTED: rejected },
  'RecordEligibility fee hold refused': { OPENED: rejected, OPENED_COLLECTED: rejected },
  'RecordCollectionSettled COMPLETED': {
    OPENED: [[EVENTS.collectionSettled], 'OPENED'],
    ELIGIBLE: [[EVENTS.collectionSettled, EVENTS.paymentRequested], 'PAYING'],
  },
  'RecordCollectionSettled CANCELLED': {
    OPENED: [[EVENTS.collectionSettled, EVENTS.failed], 'FAILED'],
    ELIGIBLE: [[EVENTS.collectionSettled, EVENTS.failed], 'FAILED'],
  },
  'RecordPaymentAttempt succeeded': {
    PAYING: [[EVENTS.completed], 'COMPLETED'],
    PAYING_RETRIED: [[EVENTS.completed], 'COMPLETED'],
  },
  'RecordPaymentAttempt retryable #1': { PAYING: [[EVENTS.attemptFailed], 'PAYING'] },
  'RecordPaymentAttempt retryable #2': {
    PAYING: [[EVENTS.attemptFailed], 'PAYING'],
    PAYING_RETRIED: [[EVENTS.attemptFailed], 'PAYING'],
  },
  'RecordPaymentAttempt refused': { PAYING: [[EVENTS.failed], 'FAILED'], PAYING_RETRIED: [[EVENTS.failed], 'FAILED'] },
  GiveUp: { PAYING: [[EVENTS.failed], 'FAILED'], PAYING_RETRIED: [[EVENTS.failed], 'FAILED'] },
};

/** The integration event each domain event publishes; the others publish nothing. */
const PUBLISHES: Record<string, string> = {
  [EVENTS.prnConfirmed]: PUBLISHED.prnValidated,
  [EVENTS.prnRejected]: PUBLISHED.prnRejected,
  [EVENTS.completed]: PUBLISHED.completed,
  [EVENTS.failed]: PUBLISHED.failed,
};

const cells = Object.keys(COMMANDS).flatMap((name) => SITUATIONS.map((situation) => [name, situation] as const));

describe('every command in every situation', () => {
  it.each(cells)('%s in %s', (name, situation) => {
    const before = stateIn(situation);
    const [expectedEvents, expectedPhase] = DECIDES[name][situation] ?? same(situation);
    const events = decideChecked(COMMANDS[name], before);
    expect(events.map((event) => event.type)).toEqual(expectedEvents);
    const after = events.reduce(evolveServicePayment, before);
    expect(after?.phase).toBe(expectedPhase);
    expect(publishOf(events, before).map((event) => event.type)).toEqual(
      events.flatMap((event) => PUBLISHES[event.type] ?? []),
    );
    // Whatever was decided, deciding the same command again decides nothing.
    expect(decideChecked(COMMANDS[name], after)).toEqual([]);
  });

  it('covers every situation and every command in the table', () => {
    for (const outcomes of Object.values(DECIDES))
      for (const situation of Object.keys(outcomes)) expect(SITUATIONS).toContain(situation);
    expect(Object.keys(DECIDES).sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it.each(FINAL_SITUATIONS)('%s is never left, whatever arrives in whatever order', (situation) => {
    let state: ServicePaymentState = stateIn(situation);
    const frozen = state;
    for (const command of [...Object.values(COMMANDS), ...Object.values(COMMANDS).reverse()]) {
      const events = decideChecked(command, state);
      expect(events).toEqual([]);
      state = events.reduce(evolveServicePayment, state);
    }
    expect(state).toBe(frozen);
  });

  it.each(Object.entries(COMMANDS).filter(([name]) => name !== 'Open again'))(
    '%s for a payment never opened is not_found',
    (_name, command) => {
      expect(rejection(() => decideChecked(command, null)).code).toBe('not_found');
    },
  );
});
