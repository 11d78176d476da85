import type { StoredEvent } from './decider';

/** Turns the data of one event type written at one version into the shape of the next version. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** An event whose `metadata.schemaVersion` this release cannot read: written by a newer one, or corrupt. */
export class UnknownEventVersion extends Error {
  override readonly name = 'UnknownEventVersion';
}

/**
 * The schema version an event was written with: `metadata.schemaVersion`, 1 when absent (the
 * first events were written without it). The one place that reads it.
 */
export function schemaVersionOf(metadata: Record<string, unknown>): number {
  const version = metadata.schemaVersion;
  return typeof version === 'number' ? version : 1;
}

/** A recorded event (any store's) as a reader takes it. */
export function storedEvent(recorded: {
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}): StoredEvent {
  return { type: recorded.type, data: recorded.data, schemaVersion: schemaVersionOf(recorded.metadata) };
}

export interface EventFamily {
  /** The types this family owns; any other type in its streams (published integration events) is not its event. */
  types: Iterable<string>;
  /** The version its events are written with today. */
  currentVersion: number;
  /**
   * Per type, per version `v` below the current one: the upcaster from `v` to `v + 1`. A type
   * without one at some version kept its shape across that version.
   */
  upcasters?: Readonly<Record<string, Readonly<Record<number, Upcaster>>>>;
}

/**
 * How a context reads its events back, declared once per family of streams: a stored event of
 * one of `types` comes back in today's shape, upcast step by step from the version it was
 * written at; a version above the current one stops the reader (never misread); another type is
 * `undefined`. Deciders' `read`, their projections and exports all go through it.
 */
export function eventReader<Event>(family: EventFamily): (stored: StoredEvent) => Event | undefined {
  const types = new Set(family.types);
  const { currentVersion, upcasters = {} } = family;
  return ({ type, data, schemaVersion }) => {
    if (!types.has(type)) return undefined;
    if (!(Number.isInteger(schemaVersion) && schemaVersion >= 1 && schemaVersion <= currentVersion)) {
      throw new UnknownEventVersion(
        `${type} version ${schemaVersion} is not one this service reads (1 to ${currentVersion})`,
      );
    }
    let upcast = data;
    for (let version = schemaVersion; version < currentVersion; version++)
      upcast = upcasters[type]?.[version]?.(upcast) ?? upcast;
    const event: { type: string; data: object } = { type, data: upcast };
    return event as Event;
  };
}
