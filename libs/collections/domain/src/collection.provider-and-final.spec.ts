/**
 * The Collection aggregate, pure decide/evolve (fixtures in collection-test-setup.ts). This file:
 * decide() once the provider is involved: RecordProviderRequest (PIN prompt or card checkout),
 * RecordProviderOutcome (every outcome, for both methods), final states that no command leaves;
 * and, last, that the events decide() emitted in this file cover every event type.
 */
import { type CollectionStatus, type TransactionMethod } from '@paygate/contracts';
import { COLLECTION_EVENT_TYPES as EVENTS } from './events';
import { decide, evolve, type CollectionCommand, type ProviderOutcome } from './collection';
import {
  at,
  confirm,
  decideChecked,
  emitted,
  eventSchemaErrors,
  expire,
  FINAL_STATES,
  initiate,
  MASKED_CARD,
  METHODS,
  MSISDN,
  outcome,
  PAYMENT_URL,
  providerRequest,
  rejection,
  stateIn,
  SUCCESS_CARD,
  SUCCESS_MOMO,
} from './collection-test-setup';
import { MESSAGES } from './messages';

describe('RecordProviderRequest', () => {
  it('for MOBILE_MONEY emits PinPromptSent and moves to WITH_PROVIDER', () => {
    const state = stateIn('MOBILE_MONEY', 'AWAITING_PROVIDER');
    const events = decideChecked(providerRequest('MOBILE_MONEY', 61), state);
    expect(events).toEqual([
      {
        type: EVENTS.pinPromptSent,
        data: {
          internalReference: state.initiated.internalReference,
          providerReference: '3f1c0e7a-1111-4222-8333-444455556666',
          sentAt: at(61),
        },
      },
    ]);
    const after = events.reduce(evolve, state);
    expect(after).toMatchObject({
      phase: 'WITH_PROVIDER',
      providerReference: '3f1c0e7a-1111-4222-8333-444455556666',
      statusMessage: MESSAGES.promptSent,
    });
    expect(after?.paymentUrl).toBeUndefined();
  });

  it('for CARD emits CardCheckoutOpened and records the payment URL', () => {
    const state = stateIn('CARD', 'AWAITING_PROVIDER');
    const events = decideChecked(providerRequest('CARD', 61), state);
    expect(events).toEqual([
      {
        type: EVENTS.cardCheckoutOpened,
        data: {
          internalReference: state.initiated.internalReference,
          providerReference: 'sess_123',
          paymentUrl: PAYMENT_URL,
          openedAt: at(61),
        },
      },
    ]);
    expect(events.reduce(evolve, state)).toMatchObject({
      phase: 'WITH_PROVIDER',
      providerReference: 'sess_123',
      paymentUrl: PAYMENT_URL,
      statusMessage: MESSAGES.checkoutOpen,
    });
  });

  it('for CARD without a payment URL is a programming error', () => {
    const state = stateIn('CARD', 'AWAITING_PROVIDER');
    expect(() => decide({ type: 'RecordProviderRequest', at: at(61), providerReference: 'sess_123' }, state)).toThrow(
      /payment URL/,
    );
  });

  it.each(METHODS)('a second time emits nothing (%s)', (method) => {
    expect(decideChecked(providerRequest(method, 70), stateIn(method, 'WITH_PROVIDER'))).toEqual([]);
  });

  it.each(METHODS)('before confirmation emits nothing (%s)', (method) => {
    expect(decideChecked(providerRequest(method), stateIn(method, 'AWAITING_CONFIRMATION'))).toEqual([]);
  });
});

describe('RecordProviderOutcome', () => {
  const insufficient: ProviderOutcome = {
    status: 'FAILED',
    reason: 'INSUFFICIENT_FUNDS',
    providerReason: 'NOT_ENOUGH_FUNDS',
  };
  const declined: ProviderOutcome = { status: 'FAILED', reason: 'DECLINED', providerReason: 'do_not_honor' };
  const other: ProviderOutcome = { status: 'FAILED', reason: 'OTHER', providerReason: 'INTERNAL_PROCESSING_ERROR' };
  const customerDeclined: ProviderOutcome = {
    status: 'CANCELLED',
    reason: 'CUSTOMER_DECLINED',
    providerReason: 'REJECTED',
  };
  const expired: ProviderOutcome = { status: 'CANCELLED', reason: 'EXPIRED', providerReason: 'EXPIRED' };

  type Expected = {
    type: string;
    status: CollectionStatus;
    reason?: string;
    statusMessage: string;
    transactionAccount?: string;
  };
  const table: Array<[TransactionMethod, string, ProviderOutcome, Expected]> = [
    [
      'MOBILE_MONEY',
      'SUCCESSFUL',
      SUCCESS_MOMO,
      { type: EVENTS.completed, status: 'COMPLETED', statusMessage: MESSAGES.completed, transactionAccount: MSISDN },
    ],
    [
      'CARD',
      'SUCCESSFUL',
      SUCCESS_CARD,
      {
        type: EVENTS.completed,
        status: 'COMPLETED',
        statusMessage: MESSAGES.completed,
        transactionAccount: MASKED_CARD,
      },
    ],
    [
      'MOBILE_MONEY',
      'FAILED INSUFFICIENT_FUNDS',
      insufficient,
      {
        type: EVENTS.failed,
        status: 'FAILED',
        reason: 'INSUFFICIENT_FUNDS',
        statusMessage: 'Balance Insufficient for the transaction',
      },
    ],
    [
      'CARD',
      'FAILED INSUFFICIENT_FUNDS',
      insufficient,
      { type: EVENTS.failed, status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', statusMessage: 'Insufficient funds' },
    ],
    [
      'CARD',
      'FAILED DECLINED',
      declined,
      { type: EVENTS.failed, status: 'FAILED', reason: 'DECLINED', statusMessage: 'Card declined' },
    ],
    [
      'MOBILE_MONEY',
      'FAILED OTHER',
      other,
      {
        type: EVENTS.failed,
        status: 'FAILED',
        reason: 'PROVIDER_ERROR',
        statusMessage: 'The provider could not complete the transaction',
      },
    ],
    [
      'CARD',
      'FAILED OTHER',
      other,
      {
        type: EVENTS.failed,
        status: 'FAILED',
        reason: 'PROVIDER_ERROR',
        statusMessage: 'The provider could not complete the transaction',
      },
    ],
    [
      'MOBILE_MONEY',
      'CANCELLED CUSTOMER_DECLINED',
      customerDeclined,
      {
        type: EVENTS.cancelled,
        status: 'CANCELLED',
        reason: 'CUSTOMER_DECLINED',
        statusMessage: 'Transaction declined by the customer',
      },
    ],
    [
      'CARD',
      'CANCELLED CUSTOMER_DECLINED',
      customerDeclined,
      {
        type: EVENTS.cancelled,
        status: 'CANCELLED',
        reason: 'CUSTOMER_DECLINED',
        statusMessage: 'Transaction cancelled by the customer on the checkout page',
      },
    ],
    [
      'MOBILE_MONEY',
      'CANCELLED EXPIRED',
      expired,
      {
        type: EVENTS.cancelled,
        status: 'CANCELLED',
        reason: 'PROVIDER_TIMEOUT',
        statusMessage: 'Transaction cancelled: payment prompt not answered in time',
      },
    ],
    [
      'CARD',
      'CANCELLED EXPIRED',
      expired,
      {
        type: EVENTS.cancelled,
        status: 'CANCELLED',
        reason: 'PROVIDER_TIMEOUT',
        statusMessage: 'Transaction cancelled: card checkout expired before payment',
      },
    ],
  ];

  it.each(
    table.flatMap(([method, name, result, expected]) =>
      (['WITH_PROVIDER', 'AWAITING_PROVIDER'] as const).map(
        (situation) => [method, name, situation, result, expected] as const,
      ),
    ),
  )('%s %s in %s', (method, _name, situation, result, expected) => {
    const state = stateIn(method, situation);
    const events = decideChecked(outcome(result, 120), state);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event.type).toBe(expected.type);
    const data = event.data as unknown as Record<string, unknown>;
    expect(data['internalReference']).toBe(state.initiated.internalReference);
    expect(data['statusMessage']).toBe(expected.statusMessage);
    if (expected.reason) expect(data['reason']).toBe(expected.reason);
    if (expected.transactionAccount) {
      expect(data['transactionAccount']).toBe(expected.transactionAccount);
      expect(data['providerTransactionId']).toBe((result as { providerTransactionId: string }).providerTransactionId);
    }
    const timeField = {
      [EVENTS.completed]: 'completedAt',
      [EVENTS.failed]: 'failedAt',
      [EVENTS.cancelled]: 'cancelledAt',
    }[expected.type as string];
    expect(data[timeField as string]).toBe(at(120));

    const after = events.reduce(evolve, state);
    expect(after).toMatchObject({
      status: expected.status,
      phase: 'FINAL',
      statusMessage: expected.statusMessage,
      updatedAt: at(120),
    });
    if (expected.transactionAccount) expect(after?.transactionAccount).toBe(expected.transactionAccount);
  });

  it('prefers the masked account the provider reports over the msisdn', () => {
    const state = stateIn('MOBILE_MONEY', 'WITH_PROVIDER');
    const [event] = decideChecked(
      outcome({ status: 'SUCCESSFUL', providerTransactionId: 'x', maskedAccount: '2567720*****' }),
      state,
    );
    expect((event.data as { transactionAccount: string }).transactionAccount).toBe('2567720*****');
  });

  it.each(
    METHODS.flatMap((method) =>
      (['AWAITING_PROVIDER', 'WITH_PROVIDER'] as const).map((situation) => [method, situation] as const),
    ),
  )('PENDING emits nothing (%s, %s)', (method, situation) => {
    expect(decideChecked(outcome({ status: 'PENDING' }), stateIn(method, situation))).toEqual([]);
  });

  it.each(
    METHODS.flatMap((method) =>
      [SUCCESS_MOMO, insufficient, customerDeclined, expired].map((result) => [method, result.status, result] as const),
    ),
  )('is ignored before confirmation (%s, %s)', (method, _status, result) => {
    expect(decideChecked(outcome(result), stateIn(method, 'AWAITING_CONFIRMATION'))).toEqual([]);
  });
});

describe('final states are never left', () => {
  /** Every command kind, in every variant that could move a collection; typed so a new kind must be added here. */
  const ALL_COMMANDS: (method: TransactionMethod) => Record<CollectionCommand['type'], CollectionCommand[]> = (
    method,
  ) => ({
    Initiate: [initiate(method)],
    Confirm: [confirm(500, false), confirm(500, true)],
    RecordProviderRequest: [providerRequest(method, 500)],
    RecordProviderOutcome: [
      outcome({ status: 'PENDING' }, 500),
      outcome(SUCCESS_CARD, 500),
      outcome(SUCCESS_MOMO, 500),
      outcome({ status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'x' }, 500),
      outcome({ status: 'FAILED', reason: 'DECLINED', providerReason: 'x' }, 500),
      outcome({ status: 'FAILED', reason: 'OTHER', providerReason: 'x' }, 500),
      outcome({ status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'x' }, 500),
      outcome({ status: 'CANCELLED', reason: 'EXPIRED', providerReason: 'x' }, 500),
    ],
    Expire: [expire('confirmation', at(999_999)), expire('provider', at(999_999))],
    AcceptPrn: [{ type: 'AcceptPrn', at: at(500) }],
    RejectPrn: [{ type: 'RejectPrn', at: at(500), reason: 'PRN already paid' }],
  });

  it.each(METHODS.flatMap((method) => FINAL_STATES.map((status) => [method, status] as const)))(
    '%s %s: every command except Initiate/Confirm decides []',
    (method, status) => {
      const state = stateIn(method, status);
      expect(state.phase).toBe('FINAL');
      for (const [kind, commands] of Object.entries(ALL_COMMANDS(method))) {
        for (const command of commands) {
          if (kind === 'Initiate' || kind === 'Confirm') {
            expect(rejection(() => decide(command, state)).code).toBe(
              kind === 'Initiate' ? 'already_exists' : 'not_awaiting_confirmation',
            );
          } else {
            expect({ kind, command, events: decideChecked(command, state) }).toEqual({ kind, command, events: [] });
          }
        }
      }
    },
  );
});

// Declared last, so it runs after every test above has added to `emitted`.
describe('events decide() emitted in this file', () => {
  it('cover every event type, and every one conformed to its JSON schema', () => {
    // PrnAccepted is collect-for-payment's own: collection.prn.spec.ts checks it.
    expect(new Set(emitted.map((event) => event.type))).toEqual(
      new Set(Object.values(EVENTS).filter((type) => type !== EVENTS.prnAccepted)),
    );
    expect(emitted.flatMap(eventSchemaErrors)).toEqual([]);
  });
});
