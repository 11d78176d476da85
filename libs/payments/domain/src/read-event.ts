import { PAYMENTS_EVENT_SCHEMA_VERSION, WALLET_EVENT_SCHEMA_VERSION, WALLET_EVENT_TYPES } from '@paygate/contracts';
import { describeHold } from './references';

export class UnknownPaymentsEventVersion extends Error {
  override readonly name = 'UnknownPaymentsEventVersion';
}

interface Stored {
  type: string;
  data: object;
  schemaVersion: number;
}

/** Turns a stored event of `version` into the shape of the next version; absent types are unchanged. */
type Upcaster = (type: string, data: Record<string, unknown>) => Record<string, unknown>;

/**
 * Reads an event of `ownTypes` back in today's shape: a stored version below `current` goes
 * through `upcasters[version]`, `upcasters[version + 1]`, … up to `current`; a version above it
 * was written by a newer release and stops the reader (never misread).
 */
function readOwn<Event>(ownTypes: ReadonlySet<string>, current: number, upcasters: Record<number, Upcaster>, { type, data, schemaVersion }: Stored): Event | undefined {
  if (!ownTypes.has(type)) return undefined;
  if (!(Number.isInteger(schemaVersion) && schemaVersion >= 1 && schemaVersion <= current)) {
    throw new UnknownPaymentsEventVersion(`${type} version ${schemaVersion} is not one this service reads (1 to ${current})`);
  }
  let upcast = data as Record<string, unknown>;
  for (let version = schemaVersion; version < current; version++) upcast = upcasters[version](type, upcast);
  const event: { type: string; data: object } = { type, data: upcast };
  return event as Event;
}

/** A ServicePayment event: version 1 is the only shape written so far. */
export function readServicePaymentEvent<Event>(ownTypes: ReadonlySet<string>, stored: Stored): Event | undefined {
  return readOwn<Event>(ownTypes, PAYMENTS_EVENT_SCHEMA_VERSION, {}, stored);
}

/** Version 1 → 2: WalletHoldPlaced gains `purpose` and `internalReference`, told by its hold id as the ledger does when it writes version 2. */
const walletV1toV2: Upcaster = (type, data) => (type === WALLET_EVENT_TYPES.holdPlaced ? { ...data, ...describeHold(String(data.holdId)) } : data);

/** A wallet event, version 1 upcast to 2 (WALLET_EVENT_SCHEMA_VERSION). */
export function readWalletEvent<Event>(ownTypes: ReadonlySet<string>, stored: Stored): Event | undefined {
  return readOwn<Event>(ownTypes, WALLET_EVENT_SCHEMA_VERSION, { 1: walletV1toV2 }, stored);
}
