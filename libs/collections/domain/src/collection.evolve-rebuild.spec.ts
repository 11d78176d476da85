/**
 * The Collection aggregate, pure decide/evolve (fixtures in collection-test-setup.ts). This file:
 * evolve() and rebuild(): what each event does to the state, and acknowledgedState(), the state a
 * retried initialize replays.
 */
import { type CollectionStatus } from '@paygate/contracts';
import { COLLECTION_EVENT_TYPES as EVENTS, type CollectionEvent } from './events';
import {
  acknowledgedState,
  CollectionRejected,
  decide,
  evolve,
  rebuild,
  type Collection,
  type CollectionCommand,
  type CollectionState,
  type Phase,
} from './collection';
import {
  at,
  confirm,
  decideChecked,
  initiate,
  initiatedData,
  MASKED_CARD,
  METHODS,
  MSISDN,
  outcome,
  PAYMENT_URL,
  PROVIDER_DEADLINE,
  providerRequest,
  SUCCESS_CARD,
  SUCCESS_MOMO,
  T0,
} from './collection-test-setup';
import { MESSAGES } from './messages';

describe('evolve', () => {
  const momo = initiatedData('MOBILE_MONEY');
  const card = initiatedData('CARD');
  const ref = momo.internalReference;
  const base = evolve(null, { type: EVENTS.initiated, data: momo }) as Collection;
  const cardBase = evolve(null, { type: EVENTS.initiated, data: card }) as Collection;

  it('CollectionInitiated (require_confirmation=true) starts PENDING, awaiting confirmation', () => {
    expect(base).toEqual({
      initiated: momo,
      status: 'PENDING',
      phase: 'AWAITING_CONFIRMATION',
      statusMessage: 'Transaction initiated. Pending customer confirmation',
      transactionAccount: MSISDN,
      updatedAt: T0,
    });
  });

  it('CollectionInitiated (require_confirmation=false) starts PENDING, pending processing, waiting for the implicit confirm of initialize', () => {
    const state = evolve(null, { type: EVENTS.initiated, data: initiatedData('CARD', false) });
    expect(state).toMatchObject({ status: 'PENDING', statusMessage: 'Transaction initiated. Pending processing' });
    expect(state?.phase).toBe('AWAITING_CONFIRMATION');
    expect(() =>
      decide(
        {
          type: 'Confirm',
          at: state!.initiated.initiatedAt,
          implicit: false,
          providerExpiresAt: state!.initiated.initiatedAt,
        },
        state,
      ),
    ).toThrow(CollectionRejected);
    expect(state?.transactionAccount).toBeUndefined();
  });

  it.each<[string, Collection, CollectionEvent, CollectionStatus, Phase, string]>([
    [
      'CollectionConfirmed',
      base,
      {
        type: EVENTS.confirmed,
        data: { internalReference: ref, confirmedAt: at(1), implicit: false, providerExpiresAt: at(301) },
      },
      'PENDING',
      'AWAITING_PROVIDER',
      MESSAGES.initiatedAwaitingConfirmation,
    ],
    [
      'PinPromptSent',
      { ...base, phase: 'AWAITING_PROVIDER' },
      { type: EVENTS.pinPromptSent, data: { internalReference: ref, providerReference: 'p-1', sentAt: at(1) } },
      'PENDING',
      'WITH_PROVIDER',
      MESSAGES.promptSent,
    ],
    [
      'CardCheckoutOpened',
      { ...cardBase, phase: 'AWAITING_PROVIDER' },
      {
        type: EVENTS.cardCheckoutOpened,
        data: {
          internalReference: card.internalReference,
          providerReference: 's-1',
          paymentUrl: PAYMENT_URL,
          openedAt: at(1),
        },
      },
      'PENDING',
      'WITH_PROVIDER',
      MESSAGES.checkoutOpen,
    ],
    [
      'CollectionCompleted',
      { ...base, phase: 'WITH_PROVIDER' },
      {
        type: EVENTS.completed,
        data: {
          internalReference: ref,
          providerTransactionId: 't',
          transactionAccount: MSISDN,
          statusMessage: 'done',
          completedAt: at(1),
        },
      },
      'COMPLETED',
      'FINAL',
      'done',
    ],
    [
      'CollectionFailed',
      { ...base, phase: 'WITH_PROVIDER' },
      {
        type: EVENTS.failed,
        data: { internalReference: ref, reason: 'DECLINED', statusMessage: 'Card declined', failedAt: at(1) },
      },
      'FAILED',
      'FINAL',
      'Card declined',
    ],
    [
      'CollectionCancelled',
      base,
      {
        type: EVENTS.cancelled,
        data: { internalReference: ref, reason: 'CONFIRMATION_TIMEOUT', statusMessage: 'too late', cancelledAt: at(1) },
      },
      'CANCELLED',
      'FINAL',
      'too late',
    ],
  ])('%s sets status, phase, statusMessage and updatedAt', (_name, state, event, status, phase, statusMessage) => {
    const after = evolve(state, event);
    expect(after).toMatchObject({ status, phase, statusMessage, updatedAt: at(1) });
    expect(after?.initiated).toBe(state.initiated);
  });

  it('records what each event carries', () => {
    expect(
      evolve(base, {
        type: EVENTS.confirmed,
        data: { internalReference: ref, confirmedAt: at(1), implicit: false, providerExpiresAt: at(301) },
      })?.providerExpiresAt,
    ).toBe(at(301));
    expect(
      evolve(cardBase, {
        type: EVENTS.cardCheckoutOpened,
        data: { internalReference: ref, providerReference: 's-1', paymentUrl: PAYMENT_URL, openedAt: at(1) },
      }),
    ).toMatchObject({
      providerReference: 's-1',
      paymentUrl: PAYMENT_URL,
    });
    expect(
      evolve(cardBase, {
        type: EVENTS.completed,
        data: {
          internalReference: ref,
          providerTransactionId: 't',
          transactionAccount: MASKED_CARD,
          statusMessage: 'ok',
          completedAt: at(1),
        },
      })?.transactionAccount,
    ).toBe(MASKED_CARD);
  });

  it('does not mutate the state it is given', () => {
    const before = JSON.stringify(base);
    evolve(base, {
      type: EVENTS.cancelled,
      data: { internalReference: ref, reason: 'CONFIRMATION_TIMEOUT', statusMessage: 'x', cancelledAt: at(1) },
    });
    expect(JSON.stringify(base)).toBe(before);
  });

  it('ignores anything but CollectionInitiated without a state', () => {
    expect(
      evolve(null, {
        type: EVENTS.confirmed,
        data: { internalReference: ref, confirmedAt: at(1), implicit: false, providerExpiresAt: at(2) },
      }),
    ).toBeNull();
  });
});

describe('rebuild', () => {
  it('of no events is no collection', () => {
    expect(rebuild([])).toBeNull();
  });

  it.each(METHODS)('folds a full %s stream into the state decide/evolve reached step by step', (method) => {
    const commands: CollectionCommand[] = [
      initiate(method),
      confirm(60),
      providerRequest(method, 61),
      outcome(method === 'CARD' ? SUCCESS_CARD : SUCCESS_MOMO, 120),
    ];
    const stream: CollectionEvent[] = [];
    let state: CollectionState = null;
    for (const command of commands) {
      const events = decideChecked(command, state);
      stream.push(...events);
      state = events.reduce(evolve, state);
    }
    expect(stream.map((event) => event.type)).toEqual([
      EVENTS.initiated,
      EVENTS.confirmed,
      method === 'CARD' ? EVENTS.cardCheckoutOpened : EVENTS.pinPromptSent,
      EVENTS.completed,
    ]);
    const rebuilt = rebuild(stream);
    expect(rebuilt).toEqual(state);
    expect(rebuilt).toMatchObject({
      status: 'COMPLETED',
      phase: 'FINAL',
      statusMessage: MESSAGES.completed,
      providerExpiresAt: PROVIDER_DEADLINE,
      providerReference: method === 'CARD' ? 'sess_123' : '3f1c0e7a-1111-4222-8333-444455556666',
      transactionAccount: method === 'CARD' ? MASKED_CARD : MSISDN,
      updatedAt: at(120),
    });
  });
});

describe('acknowledgedState: what a retried initialize replays', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const completed = {
    type: EVENTS.completed,
    data: {
      internalReference: 'PGREF',
      providerTransactionId: '1',
      transactionAccount: '256772000001',
      statusMessage: 'Transaction completed successfully',
      completedAt: at,
    },
  } as const;

  it('is the state right after CollectionInitiated when the merchant confirms', () => {
    const initiated = { type: EVENTS.initiated, data: initiatedData('MOBILE_MONEY', true) } as const;
    const confirmed = {
      type: EVENTS.confirmed,
      data: { internalReference: 'PGREF', confirmedAt: at, implicit: false, providerExpiresAt: at },
    } as const;
    expect(acknowledgedState([initiated, confirmed, completed])).toEqual(evolve(null, initiated));
  });

  it('includes the checkout (payment_url) when initialize confirmed it', () => {
    const initiated = { type: EVENTS.initiated, data: initiatedData('CARD', false) } as const;
    const confirmed = {
      type: EVENTS.confirmed,
      data: { internalReference: 'PGREF', confirmedAt: at, implicit: true, providerExpiresAt: at },
    } as const;
    const opened = {
      type: EVENTS.cardCheckoutOpened,
      data: {
        internalReference: 'PGREF',
        providerReference: 'cs_1',
        paymentUrl: 'https://pay.example/cs_1',
        openedAt: at,
      },
    } as const;
    const state = acknowledgedState([initiated, confirmed, opened, completed]);
    expect(state).toMatchObject({ status: 'PENDING', phase: 'WITH_PROVIDER', paymentUrl: 'https://pay.example/cs_1' });
  });
});
