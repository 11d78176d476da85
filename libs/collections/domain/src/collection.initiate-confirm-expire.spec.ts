/**
 * The Collection aggregate, pure decide/evolve (fixtures in collection-test-setup.ts). This file:
 * decide() before the provider is asked: Initiate, Confirm (explicit and implicit, idempotent,
 * against its deadline) and the Expire timers (confirmation and provider deadlines).
 */
import { type TransactionMethod } from '@paygate/contracts';
import { COLLECTION_EVENT_TYPES as EVENTS, type CollectionInitiatedV1 } from './events';
import { decide, evolve, rebuild, type Collection } from './collection';
import {
  apply,
  at,
  CONFIRMATION_DEADLINE,
  confirm,
  decideChecked,
  expire,
  FINAL_STATES,
  initiate,
  initiatedData,
  METHODS,
  outcome,
  PROVIDER_DEADLINE,
  providerRequest,
  rejection,
  type Situation,
  stateIn,
  SUCCESS_MOMO,
  T0,
} from './collection-test-setup';

/** What a collection records when a deadline cancels it. */
const cancelled = (state: Collection, reason: string, statusMessage: string, when: string) => ({
  type: EVENTS.cancelled,
  data: { internalReference: state.initiated.internalReference, reason, statusMessage, cancelledAt: when },
});
const CONFIRMATION_NOT_RECEIVED = 'Transaction cancelled: confirmation not received in time';

describe('Initiate', () => {
  it.each(METHODS)('on no state emits CollectionInitiated with the command data (%s)', (method) => {
    const command = initiate(method);
    expect(decideChecked(command, null)).toEqual([
      { type: EVENTS.initiated, data: (command as { data: CollectionInitiatedV1 }).data },
    ]);
  });

  it.each<Situation>(['AWAITING_CONFIRMATION', 'AWAITING_PROVIDER', 'WITH_PROVIDER', ...FINAL_STATES])(
    'on an existing collection (%s) is rejected as already_exists',
    (situation) => {
      const state = stateIn('MOBILE_MONEY', situation);
      const error = rejection(() => decide(initiate('MOBILE_MONEY'), state));
      expect(error).toMatchObject({ code: 'already_exists' });
      expect(error.message).toContain(state.initiated.internalReference);
    },
  );
});

describe('Confirm', () => {
  it('of an unknown collection is rejected as not_found', () => {
    expect(rejection(() => decide(confirm(), null))).toMatchObject({ code: 'not_found' });
  });

  it.each(METHODS)(
    'in AWAITING_CONFIRMATION emits CollectionConfirmed and moves to AWAITING_PROVIDER (%s)',
    (method) => {
      const state = stateIn(method, 'AWAITING_CONFIRMATION');
      const events = decideChecked(confirm(60), state);
      expect(events).toEqual([
        {
          type: EVENTS.confirmed,
          data: {
            internalReference: state.initiated.internalReference,
            confirmedAt: at(60),
            implicit: false,
            providerExpiresAt: PROVIDER_DEADLINE,
          },
        },
      ]);
      const after = events.reduce(evolve, state);
      expect(after).toMatchObject({
        status: 'PENDING',
        phase: 'AWAITING_PROVIDER',
        providerExpiresAt: PROVIDER_DEADLINE,
        updatedAt: at(60),
      });
    },
  );

  it.each<[TransactionMethod, Situation]>([
    ['MOBILE_MONEY', 'AWAITING_PROVIDER'],
    ['MOBILE_MONEY', 'WITH_PROVIDER'],
    ['CARD', 'AWAITING_PROVIDER'],
    ['CARD', 'WITH_PROVIDER'],
  ])('again while %s is in %s emits nothing (idempotent)', (method, situation) => {
    expect(decideChecked(confirm(90), stateIn(method, situation))).toEqual([]);
  });

  it.each(METHODS)(
    'explicitly on a require_confirmation=false collection is rejected as not_awaiting_confirmation (%s)',
    (method) => {
      const state = apply(null, initiate(method, false));
      const error = rejection(() => decide(confirm(1, false), state));
      expect(error).toMatchObject({ code: 'not_awaiting_confirmation' });
      expect(error.message).toMatch(/require_confirmation=false/);
    },
  );

  it('explicitly on a require_confirmation=false collection is refused for that reason in any phase, final or waiting for its PRN', () => {
    const completed = [
      initiate('MOBILE_MONEY', false),
      confirm(1, true),
      providerRequest('MOBILE_MONEY', 2),
      outcome(SUCCESS_MOMO, 3),
    ].reduce(apply, null);
    const waitingForPrn = apply(null, {
      type: 'Initiate',
      data: initiatedData('MOBILE_MONEY', false, { prn: '2250000001301' }),
    });
    expect(completed?.phase).toBe('FINAL');
    expect(waitingForPrn?.phase).toBe('AWAITING_PRN');
    for (const state of [completed, waitingForPrn]) {
      expect(rejection(() => decide(confirm(10, false), state)).message).toMatch(
        /require_confirmation=false and needs no confirmation/,
      );
    }
  });

  // The prompt/checkout time-out (docs/api.md, Timers) needs the CollectionConfirmed{implicit: true} that carries
  // providerExpiresAt.
  it.each(METHODS)(
    'implicitly on a require_confirmation=false collection emits CollectionConfirmed{implicit: true} (%s)',
    (method) => {
      const state = apply(null, initiate(method, false));
      const events = decideChecked(confirm(0, true), state);
      expect(events).toEqual([
        {
          type: EVENTS.confirmed,
          data: {
            internalReference: state?.initiated.internalReference,
            confirmedAt: at(0),
            implicit: true,
            providerExpiresAt: PROVIDER_DEADLINE,
          },
        },
      ]);
      expect(events.reduce(evolve, state)).toMatchObject({
        status: 'PENDING',
        phase: 'AWAITING_PROVIDER',
        providerExpiresAt: PROVIDER_DEADLINE,
      });
    },
  );

  it('implicitly again once implicitly confirmed emits nothing', () => {
    const data = initiatedData('MOBILE_MONEY', false);
    const state = rebuild([
      { type: EVENTS.initiated, data },
      {
        type: EVENTS.confirmed,
        data: {
          internalReference: data.internalReference,
          confirmedAt: T0,
          implicit: true,
          providerExpiresAt: PROVIDER_DEADLINE,
        },
      },
    ]);
    expect(decideChecked(confirm(5, true), state)).toEqual([]);
  });

  it.each<[string, string, 'Confirmed' | 'Cancelled']>([
    ['1 ms before the deadline', new Date(Date.parse(CONFIRMATION_DEADLINE) - 1).toISOString(), 'Confirmed'],
    ['exactly at the deadline', CONFIRMATION_DEADLINE, 'Cancelled'],
    ['after the deadline', at(3600), 'Cancelled'],
  ])('%s: %s', (_name, when, expected) => {
    const state = stateIn('MOBILE_MONEY', 'AWAITING_CONFIRMATION');
    const events = decideChecked({ type: 'Confirm', at: when, implicit: false, providerExpiresAt: at(4000) }, state);
    expect(events).toHaveLength(1);
    if (expected === 'Confirmed') {
      expect(events[0].type).toBe(EVENTS.confirmed);
    } else {
      expect(events[0]).toEqual(cancelled(state, 'CONFIRMATION_TIMEOUT', CONFIRMATION_NOT_RECEIVED, when));
      expect(events.reduce(evolve, state)).toMatchObject({ status: 'CANCELLED', phase: 'FINAL' });
    }
  });

  it.each(METHODS.flatMap((method) => FINAL_STATES.map((status) => [method, status] as const)))(
    'on a final %s collection (%s) is rejected as not_awaiting_confirmation',
    (method, status) => {
      const state = stateIn(method, status);
      for (const implicit of [false, true]) {
        const error = rejection(() => decide(confirm(200, implicit), state));
        expect(error).toMatchObject({ code: 'not_awaiting_confirmation' });
        expect(error.message).toContain(status);
      }
    },
  );
});

describe('Expire', () => {
  const justBefore = (iso: string) => new Date(Date.parse(iso) - 1).toISOString();

  it.each<[string, string, boolean]>([
    ['before the deadline', justBefore(CONFIRMATION_DEADLINE), false],
    ['at the deadline', CONFIRMATION_DEADLINE, true],
    ['after the deadline', at(7200), true],
  ])('the confirmation timer %s', (_name, when, cancels) => {
    for (const method of METHODS) {
      const state = stateIn(method, 'AWAITING_CONFIRMATION');
      const events = decideChecked(expire('confirmation', when), state);
      if (!cancels) {
        expect(events).toEqual([]);
        continue;
      }
      expect(events).toEqual([cancelled(state, 'CONFIRMATION_TIMEOUT', CONFIRMATION_NOT_RECEIVED, when)]);
      expect(events.reduce(evolve, state)).toMatchObject({ status: 'CANCELLED', phase: 'FINAL' });
    }
  });

  const promptExpired: Record<TransactionMethod, string> = {
    MOBILE_MONEY: 'Transaction cancelled: payment prompt not answered in time',
    CARD: 'Transaction cancelled: card checkout expired before payment',
  };

  it.each(
    METHODS.flatMap((method) =>
      (['AWAITING_PROVIDER', 'WITH_PROVIDER'] as const).flatMap((situation) =>
        [
          ['before', justBefore(PROVIDER_DEADLINE), false],
          ['at', PROVIDER_DEADLINE, true],
          ['after', at(3600), true],
        ].map(
          ([name, when, cancels]) => [method, situation, name as string, when as string, cancels as boolean] as const,
        ),
      ),
    ),
  )('the provider timer on %s in %s %s providerExpiresAt', (method, situation, _name, when, cancels) => {
    const state = stateIn(method, situation);
    const events = decideChecked(expire('provider', when), state);
    if (!cancels) {
      expect(events).toEqual([]);
      return;
    }
    expect(events).toEqual([cancelled(state, 'PROVIDER_TIMEOUT', promptExpired[method], when)]);
    expect(events.reduce(evolve, state)).toMatchObject({
      status: 'CANCELLED',
      phase: 'FINAL',
      statusMessage: promptExpired[method],
    });
  });

  it.each<[string, 'confirmation' | 'provider', Situation]>([
    ['confirmation timer once confirmed', 'confirmation', 'AWAITING_PROVIDER'],
    ['confirmation timer with the provider', 'confirmation', 'WITH_PROVIDER'],
    ['provider timer before confirmation', 'provider', 'AWAITING_CONFIRMATION'],
  ])('the %s emits nothing, however late', (_name, timer, situation) => {
    for (const method of METHODS)
      expect(decideChecked(expire(timer, at(999_999)), stateIn(method, situation))).toEqual([]);
  });

  it('the confirmation timer of a require_confirmation=false collection emits nothing', () => {
    expect(decideChecked(expire('confirmation', at(999_999)), apply(null, initiate('MOBILE_MONEY', false)))).toEqual(
      [],
    );
  });

  it.each(['confirmation', 'provider'] as const)(
    'the %s timer of an unknown collection is rejected as not_found',
    (timer) => {
      expect(rejection(() => decide(expire(timer, at(1)), null))).toMatchObject({ code: 'not_found' });
    },
  );
});
