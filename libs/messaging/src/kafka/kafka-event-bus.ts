import { setTimeout as wait } from 'node:timers/promises';
import { Partitioners, type Admin, type Kafka, type Producer } from 'kafkajs';
import { publishingContext, type Publication } from '@paygate/contracts';
import type { EventStore, PageHandler, RecordedEvent } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { Counter } from '@paygate/metrics';
import type { SqlDatabase } from '@paygate/sql';
import { openSpan, tracingIsOn, type OpenSpan } from '@paygate/tracing';
import type { CheckpointStore } from '../checkpoints';
import { traceparentOf, withTraceparent, type ConsumerInstruments } from '../consumer-instruments';
import {
  consumerSource,
  oneAtATime,
  redeliveryDelayMs,
  prefixCategory,
  streamCategory,
  wholePage,
  type ConsumerOptions,
  type EventBus,
  type PageRunner,
  type RunningConsumer,
} from '../event-bus';
import { groupLag, KAFKA_GROUP_LAG_METRIC } from './group-lag';
import { ensureTopics, lastCertificateFailure, withDeadline } from './kafka-connection';
import { claimIn, storedEvents, type Claim } from './stored-events';
import { startSupervisedConsumer, type SupervisedConsumer } from './supervised-consumer';

export const eventTopic = (category: string) => `paygate.events.${category}`;
/** Integration events of one context, for the other contexts: `paygate.integration.collections`. */
export const integrationTopic = (context: string) => `paygate.integration.${context}`;

/**
 * Messages this process produced to Kafka (the relay, counted once the broker acknowledged them; an event produced to
 * its category's topic and its context's integration topic counts twice) and fetched from it (every message of a
 * consumer's batches, those its group skips and those redelivered included): what the broker carries per lifecycle.
 */
export const KAFKA_MESSAGES_METRIC = 'paygate_kafka_messages_total';

/** Messages a consumer did not hand on because they named no event the store holds (forged, altered or not events). */
export const KAFKA_REFUSED_METRIC = 'paygate_kafka_messages_refused_total';

/** A topic's refusals of one kind are logged at most this often (every one is counted). */
const LOG_REFUSALS_EVERY_MS = 60_000;
/**
 * How long closing waits for the admin client: it carries only readiness probes and lag reads, and kafkajs waits for
 * a request in flight before it closes a connection, so a probe sent to a broker that stopped answering would hold the
 * shutdown until the probe's own time-out.
 */
const ADMIN_CLOSE_MS = 1_000;

export interface KafkaEventBusOptions {
  partitions: number;
}

/**
 * Distributed mode. A relay tails this service's streams in the event store (checkpoint in
 * SQL, one leader per relay name by advisory lock) and produces them to one topic per stream
 * category, keyed by stream name so each stream stays in order. There is no dual write: the
 * store is the outbox. Consumers are Kafka consumer groups whose offsets are committed only
 * for handled messages, so a failing handler sees the message again.
 */
export class KafkaEventBus implements EventBus {
  private readonly admin: Admin;
  private readonly producer: Producer;
  /** Each running consumer and its group. */
  private readonly consumers = new Map<SupervisedConsumer, string>();
  private readonly relays: Promise<void>[] = [];
  private readonly stopping = new AbortController();
  private connected?: Promise<void>;
  private readonly messages: Counter<'direction'>;
  private readonly refused: Counter<'reason'>;
  private readonly refusalsLoggedAt = new Map<string, number>();
  /** What stops each consumer's lag report. */
  private readonly lagReports = new Set<() => void>();

  constructor(
    private readonly kafka: Kafka,
    private readonly store: EventStore,
    private readonly sql: SqlDatabase,
    private readonly checkpoints: CheckpointStore,
    private readonly log: Logger,
    private readonly options: KafkaEventBusOptions,
    private readonly instruments: ConsumerInstruments,
  ) {
    this.admin = kafka.admin();
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.messages = instruments.metrics.counter({
      name: KAFKA_MESSAGES_METRIC,
      help: "Kafka messages this process produced (acknowledged by the broker) and fetched (every message of its consumers' batches), by direction.",
      labelNames: ['direction'],
    });
    this.refused = instruments.metrics.counter({
      name: KAFKA_REFUSED_METRIC,
      help: 'Kafka messages consumers did not hand on: not an event (not_an_event), or an event the store does not hold as the message says (not_in_store).',
      labelNames: ['reason'],
    });
  }

  /** Counts a message no handler will see, and says so in the log once a minute per topic and reason. */
  private refuse(topic: string, reason: 'not_an_event' | 'not_in_store', group: string): void {
    this.refused.inc({ reason });
    const key = `${topic} ${reason}`;
    const now = Date.now();
    if (now - (this.refusalsLoggedAt.get(key) ?? -Infinity) < LOG_REFUSALS_EVERY_MS) return;
    this.refusalsLoggedAt.set(key, now);
    this.log.warn('Kafka message refused: it names no event the store holds', { topic, reason, group });
  }

  /** Shared by every caller; a failed attempt is forgotten so the next caller tries again. */
  private connect(): Promise<void> {
    this.connected ??= Promise.all([this.admin.connect(), this.producer.connect()]).then(
      () => undefined,
      (error: unknown) => {
        this.connected = undefined;
        throw error;
      },
    );
    return this.connected;
  }

  consume(options: ConsumerOptions, handler: (event: RecordedEvent) => Promise<void>): Promise<RunningConsumer> {
    return this.run(options, oneAtATime(this.instruments.handling(options.group, handler)));
  }

  consumePages(options: ConsumerOptions, handler: PageHandler): Promise<RunningConsumer> {
    return this.run(options, wholePage(this.instruments.handlingPage(options.group, handler)));
  }

  private async run(options: ConsumerOptions, runPage: PageRunner): Promise<RunningConsumer> {
    await this.connect();
    const source = consumerSource(options);
    const topics =
      'publications' in options
        ? options.publications.map((publication) => integrationTopic(publication.context))
        : [...new Set(options.streamPrefixes.map((prefix) => eventTopic(prefixCategory(prefix))))];
    await ensureTopics(this.admin, topics, this.options.partitions);
    let failures = 0;
    const groupId = `paygate.${options.group}`;
    const consumer = await startSupervisedConsumer(
      this.kafka,
      {
        groupId,
        topics,
        fromBeginning: true,
        description: options.group,
        run: {
          partitionsConsumedConcurrently: this.options.partitions,
          // Offsets are resolved as events are handled, never for a batch cut short by a stop or a rebalance.
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
            this.messages.inc(FETCHED, batch.messages.length);
            const claims: Claim[] = [];
            const claimed: string[] = [];
            const carried: (string | undefined)[] = [];
            for (const message of batch.messages) {
              const claim = claimIn(message.value);
              if (!claim) {
                this.refuse(batch.topic, 'not_an_event', options.group);
                continue;
              }
              if (
                !source.streamPrefixes.some((prefix) => claim.streamName.startsWith(prefix)) ||
                !source.accepts(claim.type)
              )
                continue;
              claims.push(claim);
              claimed.push(message.offset);
              carried.push(message.headers?.traceparent?.toString());
            }
            const page: RecordedEvent[] = [];
            const offsets: string[] = [];
            let handledUpTo = -1;
            try {
              const stored = claims.length > 0 ? await storedEvents(this.store, claims) : [];
              stored.forEach((event, index) => {
                if (!event) return this.refuse(batch.topic, 'not_in_store', options.group);
                // The consumer's span continues the message's (the relay's) rather than the store's.
                page.push(withTraceparent(event, carried[index]));
                offsets.push(claimed[index]);
              });
              if (page.length > 0) {
                await runPage(page, async (index) => {
                  resolveOffset(offsets[index]);
                  handledUpTo = index;
                  await heartbeat();
                  if (index < page.length - 1 && (!isRunning() || isStale())) throw new BatchCutShort();
                });
              }
              failures = 0;
            } catch (error) {
              if (error instanceof BatchCutShort) return;
              failures += 1;
              this.log.warn('consumer handler failed; redelivering', {
                group: options.group,
                eventId: page[handledUpTo + 1]?.id,
                failures,
                error,
              });
              await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs(failures)));
              // The offsets not resolved make kafkajs fetch those messages again.
              throw error;
            }
            // Messages this group skips (other streams, other contexts' events) are handled too.
            const last = batch.messages[batch.messages.length - 1];
            if (last) resolveOffset(last.offset);
          },
        },
      },
      this.log,
    );
    this.consumers.set(consumer, options.group);
    // Every member of the group reports the group's lag (alert on max): the broker's numbers, asked at each scrape.
    const stopReportingLag = this.instruments.metrics.gauge({
      name: KAFKA_GROUP_LAG_METRIC,
      help: "Messages a Kafka consumer group of this process has yet to handle, per topic and partition (the broker's committed offsets to the end of the log).",
      labelNames: ['group', 'topic', 'partition'],
      read: () => groupLag(this.admin, groupId, topics),
    });
    this.lagReports.add(stopReportingLag);
    return {
      stop: async () => {
        stopReportingLag();
        this.lagReports.delete(stopReportingLag);
        await consumer.stop();
        this.consumers.delete(consumer);
      },
    };
  }

  async publish(streamPrefixes: string[], publication?: Publication): Promise<void> {
    await this.connect();
    const topics = [...new Set(streamPrefixes.map((prefix) => eventTopic(prefixCategory(prefix))))];
    if (publication) topics.push(integrationTopic(publication.context));
    await ensureTopics(this.admin, topics, this.options.partitions);
    const name = `relay:${[...streamPrefixes].sort().join(',')}`;
    const relay = this.runRelay(name, streamPrefixes, publication);
    this.relays.push(relay);
  }

  /** Competes for leadership, then forwards events until it loses the lock or stops. */
  private async runRelay(name: string, streamPrefixes: string[], publication: Publication | undefined): Promise<void> {
    const signal = this.stopping.signal;
    // Ends early, without an error, when the bus stops.
    const pause = (ms: number) => wait(ms, undefined, { signal }).catch(() => undefined);
    let interrupted = false;
    while (!signal.aborted) {
      try {
        await this.sql.withDedicatedConnection(async (lockConnection) => {
          // Advisory locks are per database: the schema is part of the key, so deployments in other schemas of the same
          // database lead their own relays.
          const [{ leader }] = await lockConnection.query<{ leader: boolean }>(
            "select pg_try_advisory_lock(hashtext(current_schema() || ':' || $1)) as leader",
            [name],
          );
          if (!leader) return pause(1_000);
          this.log.info('relay leading', { relay: name });
          let after = await this.checkpoints.load(name);
          const stopReportingLag = this.instruments.trackLag(name, streamPrefixes, () => after);
          let lastLockCheck = Date.now();
          // Follows the log as subscriptions do: woken by appends (this process's, or others' notifications), never
          // polling while nothing is appended.
          const following = this.store.subscribeToAll({ after, streamPrefixes }, async (page) => {
            // Leadership matters when publishing: a lost connection is a lost lock, found before sending.
            if (Date.now() - lastLockCheck > 1_000) {
              await lockConnection.query('select 1');
              lastLockCheck = Date.now();
            }
            // A producer span per event stored by traced work, in its trace; the message carries it to the consumers.
            const spans = !tracingIsOn()
              ? []
              : page.map((event) => {
                  const parent = traceparentOf(event);
                  return parent
                    ? openSpan(`publish ${event.type}`, {
                        role: 'producer',
                        parent,
                        attributes: { 'messaging.system': 'kafka', 'messaging.message.id': event.id },
                      })
                    : undefined;
                });
            const topicMessages = toTopicMessages(page, streamPrefixes, publication, spans);
            try {
              await this.producer.sendBatch({ acks: -1, topicMessages });
            } finally {
              for (const span of spans) span?.end();
            }
            this.messages.inc(
              PRODUCED,
              topicMessages.reduce((sum, { messages }) => sum + messages.length, 0),
            );
            if (interrupted) this.log.info('relay forwarding again', { relay: name });
            interrupted = false;
            this.instruments.forwarded(name, page.length);
            after = page[page.length - 1].position;
            await this.checkpoints.save(name, after);
          });
          const stopFollowing = () => void following.stop();
          signal.addEventListener('abort', stopFollowing, { once: true });
          if (signal.aborted) stopFollowing();
          try {
            await following.ended;
          } finally {
            signal.removeEventListener('abort', stopFollowing);
            stopReportingLag();
            await lockConnection
              .query("select pg_advisory_unlock(hashtext(current_schema() || ':' || $1))", [name])
              .catch(() => undefined);
          }
        });
      } catch (error) {
        // One line per interruption, not one per retry while the broker or the store is away.
        this.log[interrupted ? 'debug' : 'warn']('relay interrupted; retrying', { relay: name, error });
        interrupted = true;
        await pause(1_000);
      }
    }
  }

  async ping(): Promise<void> {
    await withDeadline(
      this.connect().then(() => this.admin.describeCluster()),
      5_000,
      'Kafka',
    ).catch((error: unknown) => {
      // kafkajs retries a refused certificate like a lost connection; say why it does not answer.
      const refused = lastCertificateFailure(this.kafka);
      throw refused === undefined ? error : new Error(`cannot connect to Kafka over TLS: ${refused}`, { cause: error });
    });
  }

  openGroups(): string[] {
    return [...this.consumers.values()];
  }

  async close(): Promise<void> {
    this.stopping.abort();
    for (const stopReportingLag of this.lagReports) stopReportingLag();
    this.lagReports.clear();
    await Promise.all(this.relays);
    await Promise.all([...this.consumers.keys()].map((consumer) => consumer.stop()));
    this.consumers.clear();
    if (this.connected)
      await Promise.allSettled([
        this.producer.disconnect(),
        Promise.race([this.admin.disconnect(), wait(ADMIN_CLOSE_MS, undefined, { ref: false })]),
      ]);
  }
}

const PRODUCED = { direction: 'produced' } as const;
const FETCHED = { direction: 'fetched' } as const;

/**
 * A stop or a rebalance came while a batch was being handled: the rest is left for the next fetch, by whichever member
 * owns it.
 */
class BatchCutShort extends Error {}

/**
 * One event as the relay produces it (and `paygate events replay` again): keyed by stream name, so each stream stays in
 * order; its id and type as headers, and the relay's span for it as `traceparent` when it has one.
 */
export function relayMessage(
  event: RecordedEvent,
  traceparent?: string,
): { key: string; value: string; headers: Record<string, string> } {
  return {
    key: event.streamName,
    value: JSON.stringify(event),
    headers: { 'event-id': event.id, 'event-type': event.type, ...(traceparent && { traceparent }) },
  };
}

/**
 * Every event goes to its stream category's topic (the owning context and analysts read whole
 * streams there); an integration event of the publishing context also goes to that context's
 * integration topic, which is all other contexts subscribe to. Keyed by stream name, so each stream stays in order.
 */
function toTopicMessages(
  events: RecordedEvent[],
  streamPrefixes: readonly string[],
  publication: Publication | undefined,
  spans: readonly (OpenSpan | undefined)[],
) {
  const byTopic = new Map<string, ReturnType<typeof relayMessage>[]>();
  const add = (topic: string, message: ReturnType<typeof relayMessage>) => {
    const messages = byTopic.get(topic) ?? [];
    messages.push(message);
    byTopic.set(topic, messages);
  };
  for (const [index, event] of events.entries()) {
    const message = relayMessage(event, spans[index]?.traceparent());
    add(eventTopic(streamCategory(event.streamName, streamPrefixes)), message);
    if (publication && publishingContext(event.type) === publication.context)
      add(integrationTopic(publication.context), message);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}
