/**
 * Shared fixtures of the Collection aggregate specs (collection.*.spec.ts): the event checker
 * (libs/testing), a collection's initiation data, command builders, and collections driven
 * through decide/evolve into each situation, every emitted event checked against its schema.
 *
 * Test code (decideChecked uses jest's `expect`): jest does not collect it (not *.spec.ts) and
 * the build leaves it out (tsconfig.build.json).
 */
import { type CollectionStatus, type TransactionMethod } from '@paygate/contracts';
import { COLLECTION_EVENT_SCHEMAS, type CollectionEvent, type CollectionInitiatedV1 } from './events';
import {
  CollectionRejected,
  decide,
  evolve,
  type Collection,
  type CollectionCommand,
  type CollectionState,
  type ProviderOutcome,
} from './collection';
import { decidedEvents, eventSchemaErrors as checkEvent, UGX_81000_MERCHANT_PAYS_FEE } from '@paygate/testing';

/** The event as it is stored, checked against its type's declaration. */
export const eventSchemaErrors = (event: { type: string; data: unknown }) =>
  checkEvent(COLLECTION_EVENT_SCHEMAS, event);

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

export const T0 = '2025-03-01T10:00:00.000Z';
export const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
export const CONFIRMATION_DEADLINE = at(1800);
export const PROVIDER_DEADLINE = at(300);
export const MSISDN = '256772000001';
export const MASKED_CARD = '424242******4242';
export const PAYMENT_URL = 'https://checkout.sandbox.test/pay/sess_123';
const HASH = 'a'.repeat(64);

export function initiatedData(
  method: TransactionMethod,
  requireConfirmation = true,
  overrides: Partial<CollectionInitiatedV1> = {},
): CollectionInitiatedV1 {
  const card = method === 'CARD';
  return {
    id: 42,
    merchantId: 'merchant-1',
    merchantReference: card ? 'order-card-1' : 'order-momo-1',
    internalReference: card ? 'PGCARD0000000000000000000001' : 'PGMOMO0000000000000000000001',
    transactionMethod: method,
    providerCode: card ? 'card_ug' : 'mtn_momo_ug',
    institutionName: card ? 'Visa / Mastercard (Uganda)' : 'MTN Mobile Money Uganda',
    ...UGX_81000_MERCHANT_PAYS_FEE,
    requireConfirmation,
    msisdn: card ? undefined : MSISDN,
    customerName: 'Jane Doe',
    customerEmail: card ? 'jane@example.com' : undefined,
    description: card ? undefined : 'School fees',
    redirectUrl: card ? 'https://merchant.example/return' : undefined,
    requestHash: HASH,
    initiatedAt: T0,
    confirmationExpiresAt: requireConfirmation ? CONFIRMATION_DEADLINE : undefined,
    ...overrides,
  };
}

/**
 * Every event decideChecked() emitted in this spec file (jest loads this module once per file), for a coverage check.
 */
export const emitted: CollectionEvent[] = [];

/** decide(), with every emitted event checked against its JSON schema. */
export function decideChecked(command: CollectionCommand, state: CollectionState): CollectionEvent[] {
  const events = decide(command, state);
  for (const event of events) {
    expect({ type: event.type, errors: eventSchemaErrors(event) }).toEqual({ type: event.type, errors: [] });
    emitted.push(event);
  }
  return events;
}

/** Decides and folds the events in, as the repository does. */
export function apply(state: CollectionState, command: CollectionCommand): CollectionState {
  return decideChecked(command, state).reduce(evolve, state);
}

export const initiate = (method: TransactionMethod, requireConfirmation = true): CollectionCommand => ({
  type: 'Initiate',
  data: initiatedData(method, requireConfirmation),
});
export const confirm = (seconds = 60, implicit = false): CollectionCommand => ({
  type: 'Confirm',
  at: at(seconds),
  implicit,
  providerExpiresAt: PROVIDER_DEADLINE,
});
export const providerRequest = (method: TransactionMethod, seconds = 61): CollectionCommand => ({
  type: 'RecordProviderRequest',
  at: at(seconds),
  providerReference: method === 'CARD' ? 'sess_123' : '3f1c0e7a-1111-4222-8333-444455556666',
  paymentUrl: method === 'CARD' ? PAYMENT_URL : undefined,
});
export const outcome = (result: ProviderOutcome, seconds = 120): CollectionCommand => ({
  type: 'RecordProviderOutcome',
  at: at(seconds),
  outcome: result,
});
export const expire = (timer: 'confirmation' | 'provider', when: string): CollectionCommand => ({
  type: 'Expire',
  at: when,
  timer,
});

export const SUCCESS_MOMO: ProviderOutcome = { status: 'SUCCESSFUL', providerTransactionId: 'mtn-tx-1' };
export const SUCCESS_CARD: ProviderOutcome = {
  status: 'SUCCESSFUL',
  providerTransactionId: 'card-tx-1',
  maskedAccount: MASKED_CARD,
};

export type Situation =
  'AWAITING_CONFIRMATION' | 'AWAITING_PROVIDER' | 'WITH_PROVIDER' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

/** The commands that drive a collection (require_confirmation=true) from nothing to `situation`. */
export function commandsTo(method: TransactionMethod, situation: Situation): CollectionCommand[] {
  const commands = [initiate(method)];
  if (situation !== 'AWAITING_CONFIRMATION') commands.push(confirm());
  if (!['AWAITING_CONFIRMATION', 'AWAITING_PROVIDER'].includes(situation)) commands.push(providerRequest(method));
  if (situation === 'COMPLETED') commands.push(outcome(method === 'CARD' ? SUCCESS_CARD : SUCCESS_MOMO));
  if (situation === 'FAILED')
    commands.push(outcome({ status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'NOT_ENOUGH_FUNDS' }));
  if (situation === 'CANCELLED')
    commands.push(outcome({ status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'REJECTED' }));
  return commands;
}

/** A collection driven through decide/evolve to `situation` (require_confirmation=true). */
export function stateIn(method: TransactionMethod, situation: Situation): Collection {
  const state = commandsTo(method, situation).reduce<CollectionState>(apply, null);
  if (!state) throw new Error('no state');
  return state;
}

/** The events `commands` record, decided one after another from nothing (each checked against its schema). */
export const eventsOf = (...commands: CollectionCommand[]): CollectionEvent[] =>
  decidedEvents({ decide: decideChecked, evolve, initialState: null }, commands);

/** The events that reach `situation` (require_confirmation=true). */
export const eventsTo = (method: TransactionMethod, situation: Situation): CollectionEvent[] =>
  eventsOf(...commandsTo(method, situation));

export function rejection(run: () => unknown): CollectionRejected {
  try {
    run();
  } catch (error) {
    if (error instanceof CollectionRejected) return error;
    throw error;
  }
  throw new Error('expected a CollectionRejected');
}

export const METHODS: TransactionMethod[] = ['MOBILE_MONEY', 'CARD'];
export const FINAL_STATES: Array<Extract<Situation, CollectionStatus>> = ['COMPLETED', 'FAILED', 'CANCELLED'];
