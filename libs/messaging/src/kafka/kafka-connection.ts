import { Kafka, logLevel, type Admin, type KafkaConfig, type LogEntry, type SASLOptions } from 'kafkajs';
import { redactUrl, type Secret } from '@paygate/config';
import type { Logger } from '@paygate/logging';
import './request-queue-idle';

/** `kafka://host:port[,host:port]` (plaintext) or `kafkas://…` (TLS) → broker list. */
export function parseKafkaUrl(url: string): string[] {
  const match = /^kafkas?:\/\/(.+)$/.exec(url);
  const brokers =
    match?.[1]
      .replace(/\/+$/, '')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean) ?? [];
  if (brokers.length === 0 || brokers.some((b) => !/^[^\s:/@]+:\d{1,5}$/.test(b))) {
    throw new Error(`invalid BROKER_URL "${redactUrl(url)}" (expected kafka://host:port[,host:port] or kafkas://…)`);
  }
  return brokers;
}

/** How the client proves itself and checks the brokers (KAFKA_TLS_CA_FILE, KAFKA_SASL_*). */
export interface KafkaSecurity {
  /** PEM CA certificates for the brokers' certificates (kafkas:// only); unset: Node's public CAs. */
  tlsCa?: string;
  saslMechanism?: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  saslUsername?: string;
  saslPassword?: Secret;
}

/**
 * The kafkajs connection settings of `url` and `security`: TLS for kafkas:// (always verifying the
 * broker's certificate and name), SASL when a mechanism is set. The password is revealed here
 * only, into the client; kafkajs logs that SASL is on, never its settings.
 */
export function kafkaConnection(
  url: string,
  security: KafkaSecurity = {},
): Pick<KafkaConfig, 'brokers' | 'ssl' | 'sasl'> {
  const brokers = parseKafkaUrl(url);
  const tls = url.startsWith('kafkas://');
  if (security.tlsCa !== undefined && !tls) throw new Error('a TLS CA (KAFKA_TLS_CA_FILE) needs BROKER_URL=kafkas://');
  const ssl = tls
    ? security.tlsCa !== undefined
      ? { ca: [security.tlsCa], rejectUnauthorized: true }
      : { rejectUnauthorized: true }
    : undefined;
  const { saslMechanism: mechanism, saslUsername: username, saslPassword: password } = security;
  if (mechanism === undefined) return { brokers, ssl };
  if (username === undefined || password === undefined)
    throw new Error(`SASL ${mechanism} needs a user name and a password (KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD)`);
  if (mechanism === 'plain' && !tls)
    throw new Error('SASL plain sends the password as it is: it needs BROKER_URL=kafkas://');
  // kafkajs types each mechanism apart; one object of the union is the same for all three.
  return { brokers, ssl, sasl: { mechanism, username, password: password.reveal() } as SASLOptions };
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * kafkajs logs every failed retry; while the broker is away that is several lines per attempt. Connection failures and
 * error answers to single requests go to debug (the readiness monitor logs the broker going away and coming back, once
 * each; callers report what fails for good), and any other line is written once a minute per distinct message.
 */
const REPEAT_QUIET_MS = 60_000;
const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection error|Connection timeout|Closed connection|connect to seed broker|KafkaJSConnection/;
const lastLogged = new Map<string, number>();

/**
 * A broker certificate Node does not accept: a configuration problem (wrong CA file, a name the
 * certificate lacks) that retrying will not mend, so it is logged as an error, not as an outage.
 */
const CERTIFICATE_FAILURE = /certificate|self[- ]signed|altnames|ERR_TLS|SSL routines|wrong version number/i;

/** Per client, the last broker certificate it refused, for an error that would otherwise only say "did not answer". */
const refusedCertificates = new WeakMap<Kafka, { last?: string }>();

/** The last certificate failure `kafka` met (its message: no credentials), if any. */
export function lastCertificateFailure(kafka: Kafka): string | undefined {
  return refusedCertificates.get(kafka)?.last;
}

export function createKafka(url: string, security: KafkaSecurity, clientId: string, log: Logger): Kafka {
  const refused: { last?: string } = {};
  const kafka = new Kafka({
    clientId,
    ...kafkaConnection(url, security),
    connectionTimeout: 3_000,
    // Retries inside one operation; the callers retry whole operations (start, relay, consumers) beyond this.
    retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...fields } = entry.log;
      const text = `${message} ${String(fields.error ?? '')}`;
      // "Response X(…)" is a broker's error answer to one request, which kafkajs retries (or the caller hears of).
      const misconfigured = CERTIFICATE_FAILURE.test(text);
      if (misconfigured) refused.last = text.trim();
      if (!misconfigured && (message.startsWith('Response ') || CONNECTION_FAILURE.test(text))) {
        log.debug(message, { kafka: entry.namespace, ...fields });
        return;
      }
      const key = `${entry.namespace}:${message}`;
      const now = Date.now();
      if (now - (lastLogged.get(key) ?? -Infinity) < REPEAT_QUIET_MS) return;
      if (lastLogged.size > 1_000) lastLogged.clear();
      lastLogged.set(key, now);
      log[misconfigured ? 'error' : (LEVELS[entry.level] ?? 'info')](message, { kafka: entry.namespace, ...fields });
    },
  });
  refusedCertificates.set(kafka, refused);
  return kafka;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Create-or-verify, safe when many processes start at once on a fresh broker: topics are
 * created explicitly (so partition counts are ours, not the broker's default); a topic another
 * process creates meanwhile is joined; and nothing returns before every partition of every
 * topic has a leader, since producing to or subscribing to a partition without one fails with
 * "This server does not host this topic-partition".
 */
export async function ensureTopics(
  admin: Admin,
  topics: string[],
  numPartitions: number,
  timeoutMs = 60_000,
): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((topic) => !existing.has(topic));
  if (missing.length > 0) {
    await admin
      .createTopics({ waitForLeaders: false, topics: missing.map((topic) => ({ topic, numPartitions })) })
      .catch((error: unknown) => {
        if (!createdElsewhere(error)) throw error;
      });
  }
  const deadline = Date.now() + timeoutMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
    const leaderless = await topicsWithoutLeaders(admin, topics);
    if (leaderless.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`Kafka topics without a partition leader after ${timeoutMs} ms: ${leaderless.join(', ')}`);
    await sleep(pause);
  }
}

/** kafkajs reports a topic that already exists inside an aggregate "Topic creation errors". */
function createdElsewhere(error: unknown): boolean {
  const errors = (error as { errors?: { type?: string }[] })?.errors;
  if (Array.isArray(errors) && errors.length > 0) return errors.every((inner) => inner.type === 'TOPIC_ALREADY_EXISTS');
  return (
    (error as { type?: string })?.type === 'TOPIC_ALREADY_EXISTS' ||
    (error instanceof Error && /already exists/i.test(error.message))
  );
}

async function topicsWithoutLeaders(admin: Admin, topics: string[]): Promise<string[]> {
  try {
    const metadata = await admin.fetchTopicMetadata({ topics });
    const ready = new Set(
      metadata.topics
        .filter(
          ({ partitions }) =>
            partitions.length > 0 &&
            partitions.every((partition) => partition.partitionErrorCode === 0 && partition.leader >= 0),
        )
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
