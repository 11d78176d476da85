import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { COLLECTION_STREAM_PREFIX, SERVICE_PAYMENT_STREAM_PREFIX, WALLET_STREAM_PREFIX } from '@paygate/contracts';
import type { EventStore } from '@paygate/event-store';
import { eventTopic, kafkaConnection, relayMessage, streamCategory, type KafkaSecurity } from '@paygate/messaging';
import { CliError, oneLine } from './cli-error';
import { selectEvents, type EventSelection } from './event-selection';

/** The streams the relays publish, so a replayed event lands on the topic its relay uses. */
const STREAM_PREFIXES = [COLLECTION_STREAM_PREFIX, SERVICE_PAYMENT_STREAM_PREFIX, WALLET_STREAM_PREFIX];

/** `paygate.events.<category>` as the relay names it, or `topic` when one is given. */
export function replayTopic(streamName: string, topic?: string): string {
  if (topic) return topic;
  if (!STREAM_PREFIXES.some((prefix) => streamName.startsWith(prefix)))
    throw new CliError(`stream ${streamName} is published by no relay; name a topic with --topic`, 1);
  return eventTopic(streamCategory(streamName, STREAM_PREFIXES));
}

const CONNECT_TIMEOUT_MS = 10_000;
const BATCH = 500;

async function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what} did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`)),
          CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ReplayResult {
  replayed: number;
  lastPosition: string | null;
  interrupted: boolean;
  topics: string[];
}

/**
 * Produces the selected events to Kafka exactly as the relay does: same topic (unless `topic`
 * overrides it), same key (the stream name, so each stream stays in order on one partition),
 * same value (the recorded event, with its id) and headers, in global order through an
 * idempotent producer with one request in flight. Consumers that deduplicate by event id (as
 * Paygate's do) see a replay as redeliveries; a replay twice gives them nothing new.
 */
export async function replayEvents(
  store: EventStore,
  selection: EventSelection,
  brokerUrl: string,
  options: {
    topic?: string;
    partitions?: number;
    signal?: AbortSignal;
    onProgress?: (replayed: number, lastPosition: string) => void;
    /** TLS trust and SASL credentials, as the apps read them (KAFKA_TLS_CA_FILE, KAFKA_SASL_*). */
    kafka?: KafkaSecurity;
  } = {},
): Promise<ReplayResult> {
  const connection = kafkaConnection(brokerUrl, options.kafka);
  const brokers = connection.brokers as string[];
  const kafka = new Kafka({
    clientId: 'paygate-cli',
    ...connection,
    connectionTimeout: 3_000,
    retry: { retries: 2 },
    logLevel: logLevel.NOTHING,
  });
  const admin: Admin = kafka.admin();
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  try {
    await within(Promise.all([admin.connect(), producer.connect()]), `Kafka at ${brokers.join(',')}`);
  } catch (error) {
    await Promise.allSettled([admin.disconnect(), producer.disconnect()]);
    throw new CliError(`cannot reach Kafka at ${brokers.join(',')}: ${oneLine(error)}`, 1);
  }
  const known = new Set(await admin.listTopics());
  const result: ReplayResult = { replayed: 0, lastPosition: null, interrupted: false, topics: [] };
  try {
    let batch: { topic: string; message: ReturnType<typeof relayMessage>; position: string }[] = [];
    const send = async () => {
      if (batch.length === 0) return;
      const missing = [...new Set(batch.map((entry) => entry.topic))].filter((topic) => !known.has(topic));
      if (missing.length) {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({ topic, numPartitions: options.partitions ?? 6 })),
        });
        missing.forEach((topic) => known.add(topic));
      }
      const byTopic = new Map<string, ReturnType<typeof relayMessage>[]>();
      for (const { topic, message } of batch) byTopic.set(topic, [...(byTopic.get(topic) ?? []), message]);
      await producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
      for (const topic of byTopic.keys()) if (!result.topics.includes(topic)) result.topics.push(topic);
      result.replayed += batch.length;
      result.lastPosition = batch[batch.length - 1].position;
      options.onProgress?.(result.replayed, result.lastPosition);
      batch = [];
    };
    for await (const event of selectEvents(store, selection, options.signal)) {
      batch.push({
        topic: replayTopic(event.streamName, options.topic),
        message: relayMessage(event),
        position: event.position,
      });
      if (batch.length === BATCH) await send();
    }
    await send();
    result.interrupted = options.signal?.aborted ?? false;
    return result;
  } finally {
    await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
  }
}
