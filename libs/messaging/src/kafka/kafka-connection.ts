import { Kafka, logLevel, type Admin, type LogEntry } from 'kafkajs';
import type { Logger } from '@paygate/logging';

/** `kafka://host:port[,host:port]` → broker list. */
export function parseKafkaUrl(url: string): string[] {
  const match = /^kafka:\/\/(.+)$/.exec(url);
  const brokers =
    match?.[1]
      .replace(/\/+$/, '')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean) ?? [];
  if (brokers.length === 0 || brokers.some((b) => !/^[^\s:/]+:\d{1,5}$/.test(b))) {
    throw new Error(`invalid BROKER_URL "${url}" (expected kafka://host:port[,host:port])`);
  }
  return brokers;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * kafkajs logs every failed retry; while the broker is away that is several lines per attempt.
 * Connection failures and error answers to single requests go to debug (the readiness monitor
 * logs the broker going away and coming back, once each; callers report what fails for good), and any other line is written once a minute per distinct message.
 */
const REPEAT_QUIET_MS = 60_000;
const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection error|Connection timeout|Closed connection|connect to seed broker|KafkaJSConnection/;
const lastLogged = new Map<string, number>();

export function createKafka(brokers: string[], clientId: string, log: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3_000,
    // Retries inside one operation; the callers retry whole operations (start, relay, consumers) beyond this.
    retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...fields } = entry.log;
      // "Response X(…)" is a broker's error answer to one request, which kafkajs retries (or the caller hears of).
      if (message.startsWith('Response ') || CONNECTION_FAILURE.test(`${message} ${String(fields.error ?? '')}`)) {
        log.debug(message, { kafka: entry.namespace, ...fields });
        return;
      }
      const key = `${entry.namespace}:${message}`;
      const now = Date.now();
      if (now - (lastLogged.get(key) ?? -Infinity) < REPEAT_QUIET_MS) return;
      if (lastLogged.size > 1_000) lastLogged.clear();
      lastLogged.set(key, now);
      log[LEVELS[entry.level] ?? 'info'](message, { kafka: entry.namespace, ...fields });
    },
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Create-or-verify, safe when many processes start at once on a fresh broker: topics are
 * created explicitly (so partition counts are ours, not the broker's default); a topic another
 * process creates meanwhile is joined; and nothing returns before every partition of every
 * topic has a leader, since producing to or subscribing to a partition without one fails with
 * "This server does not host this topic-partition".
 */
export async function ensureTopics(admin: Admin, topics: string[], numPartitions: number, timeoutMs = 60_000): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((topic) => !existing.has(topic));
  if (missing.length > 0) {
    await admin.createTopics({ waitForLeaders: false, topics: missing.map((topic) => ({ topic, numPartitions })) }).catch((error: unknown) => {
      if (!createdElsewhere(error)) throw error;
    });
  }
  const deadline = Date.now() + timeoutMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
    const leaderless = await topicsWithoutLeaders(admin, topics);
    if (leaderless.length === 0) return;
    if (Date.now() > deadline) throw new Error(`Kafka topics without a partition leader after ${timeoutMs} ms: ${leaderless.join(', ')}`);
    await sleep(pause);
  }
}

/** kafkajs reports a topic that already exists inside an aggregate "Topic creation errors". */
function createdElsewhere(error: unknown): boolean {
  const errors = (error as { errors?: { type?: string }[] })?.errors;
  if (Array.isArray(errors) && errors.length > 0) return errors.every((inner) => inner.type === 'TOPIC_ALREADY_EXISTS');
  return (error as { type?: string })?.type === 'TOPIC_ALREADY_EXISTS' || (error instanceof Error && /already exists/i.test(error.message));
}

async function topicsWithoutLeaders(admin: Admin, topics: string[]): Promise<string[]> {
  try {
    const metadata = await admin.fetchTopicMetadata({ topics });
    const ready = new Set(
      metadata.topics
        .filter(({ partitions }) => partitions.length > 0 && partitions.every((partition) => partition.partitionErrorCode === 0 && partition.leader >= 0))
        .map(({ name }) => name),
    );
    return topics.filter((topic) => !ready.has(topic));
  } catch {
    // A topic the broker does not know yet (still being created) fails the whole request.
    return topics;
  }
}

export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    work.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]);
}
