/**
 * Shared fixtures of the payments domain specs: a checker for the subset of JSON Schema the
 * payments schemas use, a collect-for-payment collection, ServicePayment command builders and
 * payments driven through decide/evolve into each situation, wallet command builders; every
 * emitted and published event checked against its schema.
 *
 * Test code (uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out (tsconfig.build.json).
 */
import {
  CommandRejectedError,
  PAYMENTS_INTEGRATION_SCHEMAS,
  SERVICE_PAYMENT_EVENT_SCHEMAS,
  WALLET_EVENT_SCHEMAS,
  type CollectionStatus,
  type PrnDetails,
  type PublishedCollectionV1,
  type ServicePaymentEvent,
  type WalletEvent,
  type WalletRef,
} from '@paygate/contracts';
import type { PublishedEvent } from '@paygate/decider';
import type { PrnVerdict } from './eligibility';
import { decideServicePayment, evolveServicePayment, type FeeHoldOutcome, type PaymentAttemptOutcome, type ServicePayment, type ServicePaymentCommand, type ServicePaymentState } from './service-payment';
import { servicePaymentDecider } from './service-payment-decider';
import { decideWallet, evolveWallet, type WalletCommand, type WalletState } from './wallet-ledger';

// ---------------------------------------------------------------------------------------------
// A tiny checker for the subset of JSON Schema the payments schemas use.
// ---------------------------------------------------------------------------------------------

export type Schema = Record<string, unknown>;

export const SUPPORTED_KEYWORDS = new Set(['$schema', 'type', 'required', 'additionalProperties', 'properties', 'items', 'minItems', 'minLength', 'minimum', 'pattern', 'enum', 'format']);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const TYPES: Record<string, (value: unknown) => boolean> = {
  object: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  array: Array.isArray,
  string: (value) => typeof value === 'string',
  integer: Number.isInteger,
  boolean: (value) => typeof value === 'boolean',
  null: (value) => value === null,
};

/** Every violation of `schema` by `value`, as `path: problem`; empty when it conforms. */
export function schemaErrors(schema: Schema, value: unknown, path = '$'): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!SUPPORTED_KEYWORDS.has(keyword)) throw new Error(`${path}: the spec's checker does not support keyword ${keyword}`);
  }
  if (schema['type'] !== undefined) {
    const types = ([] as unknown[]).concat(schema['type']) as string[];
    for (const type of types) if (!TYPES[type]) throw new Error(`${path}: unsupported type ${type}`);
    if (!types.some((type) => TYPES[type](value))) return [`${path}: expected ${types.join(' or ')}, got ${JSON.stringify(value)}`];
  }
  const errors: string[] = [];
  if (schema['enum'] !== undefined && !(schema['enum'] as unknown[]).includes(value)) errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema['enum'])}`);
  if (typeof value === 'string') {
    if (schema['minLength'] !== undefined && value.length < (schema['minLength'] as number)) errors.push(`${path}: shorter than ${String(schema['minLength'])}`);
    if (schema['pattern'] !== undefined && !new RegExp(schema['pattern'] as string, 'u').test(value)) errors.push(`${path}: does not match ${String(schema['pattern'])}`);
    if (schema['format'] !== undefined) {
      if (schema['format'] !== 'date-time') throw new Error(`${path}: unsupported format ${String(schema['format'])}`);
      if (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))) errors.push(`${path}: ${JSON.stringify(value)} is not a date-time`);
    }
  }
  if (typeof value === 'number' && schema['minimum'] !== undefined && value < (schema['minimum'] as number)) errors.push(`${path}: ${value} is below ${String(schema['minimum'])}`);
  if (Array.isArray(value)) {
    if (schema['minItems'] !== undefined && value.length < (schema['minItems'] as number)) errors.push(`${path}: fewer than ${String(schema['minItems'])} items`);
    if (schema['items'] !== undefined) value.forEach((item, index) => errors.push(...schemaErrors(schema['items'] as Schema, item, `${path}[${index}]`)));
  }
  if (TYPES['object'](value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
    for (const key of (schema['required'] ?? []) as string[]) if (!Object.hasOwn(record, key)) errors.push(`${path}: missing required ${key}`);
    for (const [key, child] of Object.entries(record)) {
      if (Object.hasOwn(properties, key)) errors.push(...schemaErrors(properties[key], child, `${path}.${key}`));
      else if (schema['additionalProperties'] === false) errors.push(`${path}: unexpected property ${key}`);
    }
  }
  return errors;
}

const ALL_SCHEMAS: Record<string, Schema> = { ...SERVICE_PAYMENT_EVENT_SCHEMAS, ...WALLET_EVENT_SCHEMAS, ...PAYMENTS_INTEGRATION_SCHEMAS };

/** The event as it is stored (JSON: undefined optional fields disappear), checked against its schema. */
export function eventSchemaErrors(event: { type: string; data: unknown }): string[] {
  const schema = ALL_SCHEMAS[event.type];
  if (!schema) return [`no schema for event type ${event.type}`];
  return schemaErrors(schema, JSON.parse(JSON.stringify(event.data)));
}

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
  return {
    id: 7,
    merchantId: 'merchant-1',
    merchantReference: 'tax-2025-03',
    internalReference: REF,
    transactionMethod: 'MOBILE_MONEY',
    providerCode: 'mtn_momo_ug',
    institutionName: 'MTN Mobile Money Uganda',
    currency: 'UGX',
    requestAmount: 81000,
    transactionAmount: 81000,
    fee: 1215,
    totalCredit: 79785,
    chargeCustomer: false,
    requireConfirmation: true,
    customerName: 'Jane Doe',
    transactionAccount: '256772000001',
    status: 'PENDING',
    statusMessage: 'Transaction initiated. Pending customer confirmation',
    ...overrides,
  };
}

/** The biller's view of PRN: due UGX 81,000, available until the end of March. */
export function prnDetails(overrides: Partial<PrnDetails> = {}): PrnDetails {
  return { prn: PRN, status: 'AVAILABLE', amount: 81000, currency: 'UGX', expiresAt: '2025-03-31T23:59:59.000Z', taxpayerName: 'Jane Doe', ...overrides };
}

export const ELIGIBLE: PrnVerdict = { eligible: true };
export const ALREADY_PAID: PrnVerdict = { eligible: false, reasonCode: 'PRN_ALREADY_PAID', reason: 'already paid' };

export const open = (overrides: Partial<PublishedCollectionV1> = {}, prn = PRN): ServicePaymentCommand => ({ type: 'Open', collection: collection(overrides), prn, serviceName: 'URA', at: T0 });
export const deferValidation = (attempt = 1, seconds = 5): ServicePaymentCommand => ({
  type: 'DeferValidation',
  attempt,
  reason: 'biller unavailable: 503',
  nextAttemptAt: at(seconds + 30),
  at: at(seconds),
});
export const recordEligibility = (verdict: PrnVerdict, feeHold: FeeHoldOutcome = 'HELD', seconds = 5): ServicePaymentCommand => ({ type: 'RecordEligibility', verdict, feeHold, at: at(seconds) });
export const settled = (collectionStatus: CollectionStatus, seconds = 60): ServicePaymentCommand => ({
  type: 'RecordCollectionSettled',
  collectionStatus,
  collectionStatusMessage: collectionStatus === 'COMPLETED' ? 'Transaction completed successfully' : 'Transaction declined by the customer',
  at: at(seconds),
});
export const attempt = (outcome: PaymentAttemptOutcome, seconds = 90): ServicePaymentCommand => ({ type: 'RecordPaymentAttempt', outcome, at: at(seconds) });
export const retryable = (n: number, seconds = 90): ServicePaymentCommand => attempt({ result: 'RETRYABLE_FAILURE', attempt: n, reason: 'biller unavailable (503)', nextAttemptAt: at(seconds + 30 * 2 ** (n - 1)) }, seconds);
export const succeeded = (seconds = 120): ServicePaymentCommand => attempt({ result: 'SUCCEEDED', billerPaymentId: 'ura-pay-1', receiptNumber: 'RCPT-1' }, seconds);
export const refused = (seconds = 120): ServicePaymentCommand => attempt({ result: 'REFUSED', reason: 'PRN cancelled by URA' }, seconds);
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

export type Situation = 'OPENED' | 'OPENED_COLLECTED' | 'ELIGIBLE' | 'PAYING' | 'PAYING_RETRIED' | 'REJECTED' | 'COMPLETED' | 'FAILED';
export const SITUATIONS: Situation[] = ['OPENED', 'OPENED_COLLECTED', 'ELIGIBLE', 'PAYING', 'PAYING_RETRIED', 'REJECTED', 'COMPLETED', 'FAILED'];
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

export const topUp = (reference: string, amount: number, wallet = WALLET): WalletCommand => ({ type: 'TopUp', wallet, reference, amount, at: T0 });
export const credit = (internalReference: string, totalCredit: number, fee: number, wallet = WALLET): WalletCommand => ({ type: 'CreditCollection', wallet, internalReference, totalCredit, fee, at: T0 });
export const hold = (holdId: string, amount: number, replaces?: string, wallet = WALLET): WalletCommand => ({ type: 'Hold', wallet, holdId, amount, ...(replaces ? { replaces } : {}), at: T0 });
export const release = (holdId: string, wallet = WALLET): WalletCommand => ({ type: 'ReleaseHold', wallet, holdId, at: T0 });
export const capture = (holdId: string, transferId: string, wallet = WALLET): WalletCommand => ({ type: 'CaptureHold', wallet, holdId, transferId, toAccount: 'biller_settlement', at: T0 });

/** decideWallet(), with every emitted event checked against its JSON schema. */
export function decideWalletChecked(command: WalletCommand, state: WalletState): WalletEvent[] {
  const events = decideWallet(command, state);
  for (const event of events) expectSchemaValid(event);
  return events;
}

export function applyWallet(state: WalletState, command: WalletCommand): WalletState {
  return decideWalletChecked(command, state).reduce(evolveWallet, state);
}
