import type { EventStore, EventSubscription, PageHandler, RecordedEvent } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { CheckpointStore } from '../checkpoints';
import type { ConsumerInstruments } from '../consumer-instruments';
import {
  consumerSource,
  oneAtATime,
  redeliveryDelayMs,
  wholePage,
  type ConsumerOptions,
  type EventBus,
  type PageRunner,
  type RunningConsumer,
} from '../event-bus';

/**
 * A consumer's position is saved at most this often (and when it stops): a write per page would be
 * a statement per event at low load, while after a crash the handlers, idempotent as at-least-once
 * asks, only see again what the last second brought.
 */
export const CHECKPOINT_FLUSH_MS = 1_000;

/**
 * Standalone mode: the event store is the broker. A consumer group is a catch-up subscription
 * whose checkpoint lives in SQL, so a restart resumes where it stopped; a handler failure
 * restarts the subscription from the last handled event after a back-off.
 */
export class InProcessEventBus implements EventBus {
  /** Each running consumer and its group. */
  private readonly consumers = new Map<RunningConsumer, string>();

  constructor(
    private readonly store: EventStore,
    private readonly checkpoints: CheckpointStore,
    private readonly log: Logger,
    private readonly instruments: ConsumerInstruments,
  ) {}

  consume(options: ConsumerOptions, handler: (event: RecordedEvent) => Promise<void>): Promise<RunningConsumer> {
    return this.run(options, oneAtATime(this.instruments.handling(options.group, handler)));
  }

  consumePages(options: ConsumerOptions, handler: PageHandler): Promise<RunningConsumer> {
    return this.run(options, wholePage(this.instruments.handlingPage(options.group, handler)));
  }

  private async run(options: ConsumerOptions, runPage: PageRunner): Promise<RunningConsumer> {
    const checkpointName = `consumer:${options.group}`;
    const source = consumerSource(options);
    let position = await this.checkpoints.load(checkpointName);
    let saved = position;
    let flushTimer: NodeJS.Timeout | undefined;
    let subscription: EventSubscription | undefined;
    let stopped = false;
    let failures = 0;
    const stopReportingLag = this.instruments.trackLag(options.group, source.streamPrefixes, () => position);

    const flush = async () => {
      flushTimer = undefined;
      if (position && position !== saved) {
        const toSave = position;
        await this.checkpoints.save(checkpointName, toSave);
        saved = toSave;
      }
    };
    const scheduleFlush = () => {
      flushTimer ??= setTimeout(
        () =>
          flush().catch((error) => {
            this.log.warn('checkpoint save failed; retrying', { group: options.group, error });
            scheduleFlush();
          }),
        CHECKPOINT_FLUSH_MS,
      );
    };

    const loop = (async () => {
      while (!stopped) {
        subscription = this.store.subscribeToAll(
          { after: position, streamPrefixes: source.streamPrefixes },
          async (page) => {
            const accepted = page.filter((event) => source.accepts(event.type));
            if (accepted.length > 0) {
              await runPage(accepted, async (index) => {
                position = accepted[index].position;
                scheduleFlush();
              });
            }
            failures = 0;
            position = page[page.length - 1].position;
            scheduleFlush();
          },
        );
        try {
          await subscription.ended;
        } catch (error) {
          failures += 1;
          this.log.warn('consumer handler failed; redelivering', { group: options.group, failures, error });
          await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs(failures)));
        }
      }
    })();

    const consumer: RunningConsumer = {
      stop: async () => {
        stopped = true;
        stopReportingLag();
        await subscription?.stop();
        await loop;
        clearTimeout(flushTimer);
        // At least once: an unsaved checkpoint only means redelivery after the next start.
        await flush().catch((error) => this.log.warn('final checkpoint save failed', { group: options.group, error }));
        this.consumers.delete(consumer);
      },
    };
    this.consumers.set(consumer, options.group);
    return consumer;
  }

  async publish(): Promise<void> {
    // Consumers read the store directly.
  }

  async ping(): Promise<void> {
    await this.store.ping();
  }

  openGroups(): string[] {
    return [...this.consumers.values()];
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers.keys()].map((consumer) => consumer.stop()));
  }
}
