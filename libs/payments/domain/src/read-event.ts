import { PAYMENTS_EVENT_SCHEMA_VERSION } from '@paygate/contracts';

export class UnknownPaymentsEventVersion extends Error {
  override readonly name = 'UnknownPaymentsEventVersion';
}

/** Reads a payments domain event of `ownTypes` back; version 1 is the only shape written so far (a later one adds its upcaster here). */
export function readOwnEvent<Event>(ownTypes: ReadonlySet<string>, { type, data, schemaVersion }: { type: string; data: object; schemaVersion: number }): Event | undefined {
  if (!ownTypes.has(type)) return undefined;
  if (schemaVersion !== PAYMENTS_EVENT_SCHEMA_VERSION) throw new UnknownPaymentsEventVersion(`${type} version ${schemaVersion} is newer than this service`);
  const stored: { type: string; data: object } = { type, data };
  return stored as Event;
}
