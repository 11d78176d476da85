import type { RecordedEvent } from '@paygate/event-store';

/**
 * Events delivered to consumer groups: at least once, in order per stream, redelivered when
 * a handler throws, resumed after a restart. Handlers must be idempotent (deduplicate by
 * event id).
 */
export interface ConsumerOptions {
  /** One checkpoint (inproc) or Kafka consumer group per name. */
  group: string;
  /** Stream-name prefixes such as `collection-`. */
  streamPrefixes: string[];
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

export interface EventBus {
  consume(options: ConsumerOptions, handler: (event: RecordedEvent) => Promise<void>): Promise<RunningConsumer>;
  /**
   * Makes this process's streams with these prefixes reach consumers in other processes
   * (Kafka: the outbox relay). In process, the event store already is the broker.
   */
  publish(streamPrefixes: string[]): Promise<void>;
  /** Resolves when the broker answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The category of `collection-abc` is `collection`: one Kafka topic per category. */
export function streamCategory(streamName: string): string {
  const dash = streamName.indexOf('-');
  return dash === -1 ? streamName : streamName.slice(0, dash);
}

/** Retry delay after a handler failure: 100 ms doubling to 5 s. */
export function redeliveryDelayMs(failures: number): number {
  return Math.min(5_000, 100 * 2 ** Math.max(0, failures - 1));
}
