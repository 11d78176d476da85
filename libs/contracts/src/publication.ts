import type { Static, TSchema } from '@sinclair/typebox';

/**
 * What a bounded context publishes for others: integration events, typed `<context>.<Name>`
 * (e.g. `collections.CollectionSettled`), versioned, each with a JSON Schema here. They are
 * appended to the context's own streams in the same write as the domain events that caused
 * them, so they exist exactly when their cause does; the broker carries them to other contexts
 * (Kafka: topic `paygate.integration.<context>`). Other contexts consume only these, never the
 * domain events, and keep their own projections from them.
 */
export interface Publication {
  context: string;
  /** Streams the context's integration events are written to. */
  streamPrefixes: string[];
}

/** The context an integration event type belongs to, or undefined for a domain event type. */
export function publishingContext(eventType: string): string | undefined {
  const dot = eventType.indexOf('.');
  return dot > 0 ? eventType.slice(0, dot) : undefined;
}

/** An integration event as a consumer receives it. */
export interface IntegrationEnvelope<Type extends string = string, Data = unknown> {
  /** Unique per event: consumers deduplicate by it. */
  id: string;
  type: Type;
  version: number;
  data: Data;
  /** The producing stream: events of one stream arrive in order. */
  streamName: string;
  revision: number;
}

/** The envelope union of a context's integration events, from its map of event type to data declaration. */
export type IntegrationEventsOf<Declarations extends Record<string, TSchema>> = {
  [EventType in keyof Declarations & string]: IntegrationEnvelope<EventType, Static<Declarations[EventType]>>;
}[keyof Declarations & string];

export class UnsupportedEventVersionError extends Error {
  override readonly name = 'UnsupportedEventVersionError';
  constructor(type: string, version: number, supported: number[]) {
    super(
      `${type} version ${version} is not supported here (supported: ${supported.join(', ')}); upgrade this consumer`,
    );
  }
}
