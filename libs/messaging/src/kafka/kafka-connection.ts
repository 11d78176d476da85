import { Kafka, logLevel, type Admin, type LogEntry } from 'kafkajs';
import type { Logger } from '@paygate/logging';

/** `kafka://host:port[,host:port]` → broker list. */
export function parseKafkaUrl(url: string): string[] {
  const match = /^kafka:\/\/(.+)$/.exec(url);
  const brokers = match?.[1].replace(/\/+$/, '').split(',').map((b) => b.trim()).filter(Boolean) ?? [];
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

export function createKafka(brokers: string[], clientId: string, log: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3_000,
    retry: { initialRetryTime: 100, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...fields } = entry.log;
      log[LEVELS[entry.level] ?? 'info'](message, { kafka: entry.namespace, ...fields });
    },
  });
}

/** Topics are created explicitly so partition counts are ours, not the broker's default. */
export async function ensureTopics(admin: Admin, topics: string[], numPartitions: number): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((topic) => !existing.has(topic));
  if (missing.length === 0) return;
  await admin.createTopics({ waitForLeaders: true, topics: missing.map((topic) => ({ topic, numPartitions })) }).catch((error: unknown) => {
    // Another instance creating the same topic at the same moment is fine.
    if (!(error instanceof Error && /already exists/i.test(error.message))) throw error;
  });
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
