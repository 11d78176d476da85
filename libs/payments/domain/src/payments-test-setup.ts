/**
 * Shared fixtures of the payments domain specs: the JSON Schema checker (libs/testing), a
 * collect-for-payment collection, ServicePayment command builders and
 * payments driven through decide/evolve into each situation, wallet command builders; every
 * emitted and published event checked against its schema.
 *
 * Test code (uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out (tsconfig.build.json).
 */
import {
  CommandRejectedError,
  PAYMENTS_INTEGRATION_SCHEMAS,
  type CollectionStatus,
  type PrnDetails,
  type PublishedCollectionV1,
  type WalletRef,
} from '@paygate/contracts';
import {
  SERVICE_PAYMENT_EVENT_SCHEMAS,
  WALLET_EVENT_SCHEMAS,
  type ServicePaymentEvent,
  type WalletEvent,
} from './events';
import type { PublishedEvent } from '@paygate/decider';
import { decidedEvents, eventSchemaErrors as checkEvent, publishedCollection } from '@paygate/testing';
import type { PrnVerdict } from './eligibility';
import {
  decideServicePayment,
  evolveServicePayment,
  type FeeHoldOutcome,
  type PaymentAttemptOutcome,
  type ServicePayment,
  type ServicePaymentCommand,
  type ServicePaymentState,
} from './service-payment';
import { servicePaymentDecider } from './service-payment-decider';
import { decideWallet, evolveWallet, type WalletCommand, type WalletState } from './wallet-ledger';

export { schemaErrors } from '@paygate/testing';

const PAYMENTS_SCHEMAS = { ...SERVICE_PAYMENT_EVENT_SCHEMAS, ...WALLET_EVENT_SCHEMAS, ...PAYMENTS_INTEGRATION_SCHEMAS };

/** The event as it is stored, checked against its type's declaration. */
export const eventSchemaErrors = (event: { type: string; data: unknown }) => checkEvent(PAYMENTS_SCHEMAS, event);

export function expectSchemaValid(event: { type: string; data: unknown }): void {
  expect({ type: event.type, errors: eventSchemaErrors(event) }).toEqual({ type: event.type, errors: [] });
}

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

export const T0 = '2025-03-01T10:00:00.000Z';
export const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
export const PRN = '2250000123456';
export const REF = 'PGPAY00000000000000000001';

/** A collect-for-payment collection as collections publishes it: UGX 81,000, fee 1,215 borne by the merchant. */
export function collection(overrides: Partial<PublishedCollectionV1> = {}): PublishedCollectionV1 {
  return publishedCollection({
    merchantId: 'merchant-1',
    merchantReference: 'tax-2025-03',
    internalReference: REF,
    ...overrides,
  });
}

/** The biller's view of PRN: due UGX 81,000, available until the end of March. */
export function prnDetails(overrides: Partial<PrnDetails> = {}): PrnDetails {
  return {
    prn: PRN,
    status: 'AVAILABLE',
    amount: 81000,
    currency: 'UGX',
    expiresAt: '2025-03-31T23:59:59.000Z',
    taxpayerName: 'Jane Doe',
    ...overrides,
  };
}

export const ELIGIBLE: PrnVerdict = { eligible: true };
export const ALREADY_PAID: PrnVerdict = { eligible: false, reasonCode: 'PRN_ALREADY_PAID', reason: 'already paid' };

export const open = (overrides: Partial<PublishedCollectionV1> = {}, prn = PRN): ServicePaymentCommand => ({
  type: 'Open',
  collection: collection(overrides),
  prn,
  serviceName: 'URA',
  at: T0,
});
export const deferValidation = (attempt = 1, seconds = 5): ServicePaymentCommand => ({
  type: 'DeferValidation',
  attempt,
  reason: 'biller unavailable: 503',
  nextAttemptAt: at(seconds + 30),
  at: at(seconds),
});
export const recordEligibility = (
  verdict: PrnVerdict,
  feeHold: FeeHoldOutcome = 'HELD',
  seconds = 5,
): ServicePaymentCommand => ({
  type: 'RecordEligibility',
  verdict,
  feeHold,
  at: at(seconds),
});
export const settled = (collectionStatus: CollectionStatus, seconds = 60): ServicePaymentCommand => ({
  type: 'RecordCollectionSettled',
  collectionStatus,
  collectionStatusMessage:
    collectionStatus === 'COMPLETED' ? 'Transaction completed successfully' : 'Transaction declined by the customer',
  at: at(seconds),
});
export const attempt = (outcome: PaymentAttemptOutcome, seconds = 90): ServicePaymentCommand => ({
  type: 'RecordPaymentAttempt',
  outcome,
  at: at(seconds),
});
export const retryable = (n: number, seconds = 90): ServicePaymentCommand =>
  attempt(
    {
      result: 'RETRYABLE_FAILURE',
      attempt: n,
      reason: 'biller unavailable (503)',
      nextAttemptAt: at(seconds + 30 * 2 ** (n - 1)),
    },
    seconds,
  );
export const succeeded = (seconds = 120): ServicePaymentCommand =>
  attempt({ result: 'SUCCEEDED', billerPaymentId: 'ura-pay-1', receiptNumber: 'RCPT-1' }, seconds);
export const refused = (seconds = 120): ServicePaymentCommand =>
  attempt({ result: 'REFUSED', reason: 'PRN cancelled by URA' }, seconds);
export const giveUp = (seconds = 3600): ServicePaymentCommand => ({ type: 'GiveUp', at: at(seconds) });

/** Every event decideChecked() emitted in this spec file, for a coverage check. */
export const emitted: ServicePaymentEvent[] = [];

/** decide(), with every emitted event and every event it publishes checked against its JSON schema. */
export function decideChecked(command: ServicePaymentCommand, state: ServicePaymentState): ServicePaymentEvent[] {
  const events = decideServicePayment(command, state);
  for (const event of events) expectSchemaValid(event);
  emitted.push(...events);
  for (const event of publishOf(events, state)) expectSchemaValid(event);
  return events;
}

/** What the runtime would publish for `events` decided against `state`. */
export function publishOf(events: ServicePaymentEvent[], state: ServicePaymentState): PublishedEvent[] {
  return servicePaymentDecider.publish?.(events, events.reduce(evolveServicePayment, state)) ?? [];
}

export function apply(state: ServicePaymentState, command: ServicePaymentCommand): ServicePaymentState {
  return decideChecked(command, state).reduce(evolveServicePayment, state);
}

export type Situation =
  'OPENED' | 'OPENED_COLLECTED' | 'ELIGIBLE' | 'PAYING' | 'PAYING_RETRIED' | 'REJECTED' | 'COMPLETED' | 'FAILED';
export const SITUATIONS: Situation[] = [
  'OPENED',
  'OPENED_COLLECTED',
  'ELIGIBLE',
  'PAYING',
  'PAYING_RETRIED',
  'REJECTED',
  'COMPLETED',
  'FAILED',
];
export const FINAL_SITUATIONS: Situation[] = ['REJECTED', 'COMPLETED', 'FAILED'];

/** The commands that reach `situation` from nothing (charge_customer=false, so the fee is held). */
export function commandsTo(situation: Situation): ServicePaymentCommand[] {
  switch (situation) {
    case 'OPENED':
      return [open()];
    case 'OPENED_COLLECTED':
      return [open(), settled('COMPLETED', 30)];
    case 'ELIGIBLE':
      return [open(), recordEligibility(ELIGIBLE)];
    case 'PAYING':
      return [...commandsTo('ELIGIBLE'), settled('COMPLETED')];
    case 'PAYING_RETRIED':
      return [...commandsTo('PAYING'), retryable(1, 70)];
    case 'REJECTED':
      return [open(), recordEligibility(ALREADY_PAID, 'NOT_NEEDED')];
    case 'COMPLETED':
      return [...commandsTo('PAYING'), succeeded()];
    case 'FAILED':
      return [...commandsTo('PAYING'), refused()];
  }
}

/** The events `commands` record, decided one after another from nothing (each checked against its schema). */
export const eventsOf = (...commands: ServicePaymentCommand[]): ServicePaymentEvent[] =>
  decidedEvents({ decide: decideChecked, evolve: evolveServicePayment, initialState: null }, commands);

/** The events that reach `situation` (charge_customer=false, so the fee is held). */
export const eventsTo = (situation: Situation): ServicePaymentEvent[] => eventsOf(...commandsTo(situation));

export function stateIn(situation: Situation): ServicePayment {
  const state = commandsTo(situation).reduce<ServicePaymentState>(apply, null);
  if (!state) throw new Error('no state');
  return state;
}

export function rejection(run: () => unknown): CommandRejectedError {
  try {
    run();
  } catch (error) {
    if (error instanceof CommandRejectedError) return error;
    throw error;
  }
  throw new Error('expected a CommandRejectedError');
}

// ---------------------------------------------------------------------------------------------
// Wallet ledger
// ---------------------------------------------------------------------------------------------

export const WALLET: WalletRef = { merchantId: 'merchant-1', currency: 'UGX' };

export const topUp = (reference: string, amount: number, wallet = WALLET): WalletCommand => ({
  type: 'TopUp',
  wallet,
  reference,
  amount,
  at: T0,
});
export const credit = (
  internalReference: string,
  totalCredit: number,
  fee: number,
  wallet = WALLET,
): WalletCommand => ({
  type: 'CreditCollection',
  wallet,
  internalReference,
  totalCredit,
  fee,
  at: T0,
});
export const hold = (holdId: string, amount: number, replaces?: string, wallet = WALLET): WalletCommand => ({
  type: 'Hold',
  wallet,
  holdId,
  amount,
  ...(replaces ? { replaces } : {}),
  at: T0,
});
export const release = (holdId: string, wallet = WALLET): WalletCommand => ({
  type: 'ReleaseHold',
  wallet,
  holdId,
  at: T0,
});
export const capture = (
  holdId: string,
  transferId: string,
  wallet = WALLET,
  toAccount: 'biller_settlement' | 'money_out' = 'biller_settlement',
): WalletCommand => ({
  type: 'CaptureHold',
  wallet,
  holdId,
  transferId,
  toAccount,
  at: T0,
});
/** A provider's word that the payout held and captured under `holdId` was taken back. */
export const reverse = (holdId: string, wallet = WALLET): WalletCommand => ({
  type: 'ReverseMoneyOut',
  wallet,
  holdId,
  at: T0,
});

/** decideWallet(), with every emitted event checked against its JSON schema. */
export function decideWalletChecked(command: WalletCommand, state: WalletState): WalletEvent[] {
  const events = decideWallet(command, state);
  for (const event of events) expectSchemaValid(event);
  return events;
}

export function applyWallet(state: WalletState, command: WalletCommand): WalletState {
  return decideWalletChecked(command, state).reduce(evolveWallet, state);
}
