import { publishingContext, type IntegrationEnvelope, type Publication } from '@paygate/contracts';
import { schemaVersionOf } from '@paygate/decider';
import type { PageHandler, RecordedEvent } from '@paygate/event-store';

/**
 * Events delivered to consumer groups: at least once, in order per stream, redelivered when
 * a handler throws, resumed after a restart. Handlers must be idempotent (deduplicate by
 * event id).
 */
export type ConsumerOptions = {
  /** One checkpoint (inproc) or Kafka consumer group per name. */
  group: string;
} & (
  | {
      /** A context's own streams, every event (its read models, timers): prefixes such as `collection-`. */
      streamPrefixes: string[];
    }
  | {
      /** Other contexts' integration events only (libs/contracts publications). */
      publications: Publication[];
    }
);

/** The stream prefixes a consumer reads and, for publications, the event types it keeps. */
export function consumerSource(options: ConsumerOptions): {
  streamPrefixes: string[];
  accepts: (eventType: string) => boolean;
} {
  if ('streamPrefixes' in options) return { streamPrefixes: options.streamPrefixes, accepts: () => true };
  const contexts = new Set(options.publications.map((publication) => publication.context));
  return {
    streamPrefixes: options.publications.flatMap((publication) => publication.streamPrefixes),
    accepts: (eventType) => contexts.has(publishingContext(eventType) ?? ''),
  };
}

/** A recorded integration event as its consumers read it. */
export function integrationEnvelope(event: RecordedEvent): IntegrationEnvelope {
  return {
    id: event.id,
    type: event.type,
    version: schemaVersionOf(event.metadata),
    data: event.data,
    streamName: event.streamName,
    revision: event.revision,
  };
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

export interface EventBus {
  /** One event at a time, each in its log context; a handler that throws gets that event again after a back-off. */
  consume(options: ConsumerOptions, handler: (event: RecordedEvent) => Promise<void>): Promise<RunningConsumer>;
  /**
   * The same delivery a page at a time, for handlers that write a page in one statement: the
   * events of one store read (in process) or of one fetch from a partition (Kafka), in order per
   * stream, never empty. A handler that throws gets the whole page again after a back-off.
   */
  consumePages(options: ConsumerOptions, handler: PageHandler): Promise<RunningConsumer>;
  /**
   * Makes this process's streams with these prefixes reach consumers in other processes
   * (Kafka: the outbox relay), with the integration events of `publication` on their own topic.
   * In process, the event store already is the broker.
   */
  publish(streamPrefixes: string[], publication?: Publication): Promise<void>;
  /** Resolves when the broker answers (readiness). */
  ping(): Promise<void>;
  /** Consumer groups of this process that have not finished stopping: what a shutdown that gives up abandons. */
  openGroups(): string[];
  close(): Promise<void>;
}

/** A stream prefix names its category: `service-payment-` is `service-payment`. One Kafka topic per category. */
export function prefixCategory(prefix: string): string {
  return prefix.endsWith('-') ? prefix.slice(0, -1) : prefix;
}

/**
 * The category of a stream is that of the longest of `prefixes` it starts with, so a prefix
 * with dashes of its own (`service-payment-`) is not cut at its first dash.
 */
export function streamCategory(streamName: string, prefixes: readonly string[]): string {
  const matching = prefixes.filter((prefix) => streamName.startsWith(prefix));
  if (matching.length === 0) throw new Error(`stream ${streamName} is not under any of ${prefixes.join(', ')}`);
  return prefixCategory(matching.reduce((longest, prefix) => (prefix.length > longest.length ? prefix : longest)));
}

/**
 * How a bus runs a consumer's pages: `handled(i)` marks the page's events up to `i` as handled
 * (the checkpoint or offset may move past them), so one-at-a-time consumers resume after the
 * last event they finished, page consumers after the page.
 */
export type PageRunner = (page: RecordedEvent[], handled: (index: number) => Promise<void>) => Promise<void>;

/** `consume`'s handler as a PageRunner: each event in turn, counted and in its log context. */
export function oneAtATime(handle: (event: RecordedEvent) => Promise<void>): PageRunner {
  return async (page, handled) => {
    for (let i = 0; i < page.length; i++) {
      await handle(page[i]);
      await handled(i);
    }
  };
}

/** `consumePages`' handler as a PageRunner: the whole page, then all of it handled. */
export function wholePage(handle: PageHandler): PageRunner {
  return async (page, handled) => {
    await handle(page);
    await handled(page.length - 1);
  };
}

/** Retry delay after a handler failure: 100 ms doubling to 5 s. */
export function redeliveryDelayMs(failures: number): number {
  return Math.min(5_000, 100 * 2 ** Math.max(0, failures - 1));
}
