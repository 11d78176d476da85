import type { EventPlace, EventStore, RecordedEvent } from '@paygate/event-store';

/** What a message claims: the event's id, type and place, whatever else it holds. */
export interface Claim extends EventPlace {
  id: string;
  type: string;
}

/** Text a store can look up: PostgreSQL refuses NUL, and a query that fails would hold the batch forever. */
const storable = (value: unknown): value is string => typeof value === 'string' && !value.includes('\u0000');

/** The message's value as a claim, or undefined when it is not one (not JSON, or fields missing or unstorable). */
export function claimIn(value: Buffer | null): Claim | undefined {
  if (!value) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { id, type, streamName, revision } = parsed as Record<string, unknown>;
  return storable(id) &&
    storable(type) &&
    storable(streamName) &&
    Number.isSafeInteger(revision) &&
    (revision as number) >= 0
    ? { id, type, streamName, revision: revision as number }
    : undefined;
}

/**
 * Kafka carries word that an event was stored; the store says what it was. The batch's claims
 * are read back in one read (`readAt`) and each is handed on as stored, so a message that anyone
 * able to write to the broker forged (an id the store does not hold at that place) or altered
 * (the data) moves nothing. The relay produces only what it read from the store, so a genuine
 * message always finds its event.
 */
export async function storedEvents(store: EventStore, claims: Claim[]): Promise<(RecordedEvent | undefined)[]> {
  const at = (streamName: string, revision: number) => `${revision} ${streamName}`;
  const stored = new Map((await store.readAt(claims)).map((event) => [at(event.streamName, event.revision), event]));
  return claims.map((claim) => {
    const event = stored.get(at(claim.streamName, claim.revision));
    return event && event.id === claim.id && event.type === claim.type ? event : undefined;
  });
}
