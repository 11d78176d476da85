import type { Consumer, ConsumerRunConfig, Kafka } from 'kafkajs';
import type { Logger } from '@paygate/logging';
import { withDeadline } from './kafka-connection';

export interface ConsumerSpec {
  groupId: string;
  topics: string[];
  fromBeginning: boolean;
  /** What the group is for, in log lines and errors. */
  description: string;
  run: ConsumerRunConfig;
}

export interface SupervisedConsumer {
  stop(): Promise<void>;
}

const JOIN_TIMEOUT_MS = 30_000;
const MAX_RESTART_DELAY_MS = 30_000;

function newConsumer(kafka: Kafka, spec: ConsumerSpec): Consumer {
  // Topics are created by ensureTopics with our partition count, never by a subscription.
  return kafka.consumer({
    groupId: spec.groupId,
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
    allowAutoTopicCreation: false,
  });
}

async function join(consumer: Consumer, spec: ConsumerSpec): Promise<void> {
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.connect();
  await consumer.subscribe({ topics: spec.topics, fromBeginning: spec.fromBeginning });
  await consumer.run(spec.run);
  await withDeadline(joined, JOIN_TIMEOUT_MS, `Kafka consumer group ${spec.description}`);
}

/**
 * A consumer group member that outlives its broker: kafkajs restarts a consumer after
 * retriable failures itself, but one stopped by an error it deems final (a partition without a
 * leader while topics settle, an unknown member after a long outage) would stay stopped and
 * its group silently unconsumed. This one is replaced, with capped backoff, until it joins.
 * The first join is awaited (and throws), so a process start fails and is retried as a whole.
 */
export async function startSupervisedConsumer(
  kafka: Kafka,
  spec: ConsumerSpec,
  log: Logger,
): Promise<SupervisedConsumer> {
  let stopping = false;
  let current = newConsumer(kafka, spec);
  let restartTimer: NodeJS.Timeout | undefined;

  const watch = (consumer: Consumer) =>
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || stopping) return;
      log.warn('consumer stopped by a non-retriable error; replacing it', {
        group: spec.description,
        error: payload.error,
      });
      void replace(consumer, 1_000);
    });

  const replace = async (crashed: Consumer, delayMs: number): Promise<void> => {
    await crashed.disconnect().catch(() => undefined);
    await new Promise<void>((resolve) => (restartTimer = setTimeout(resolve, delayMs)));
    if (stopping) return;
    const replacement = newConsumer(kafka, spec);
    current = replacement;
    watch(replacement);
    try {
      await join(replacement, spec);
      log.info('consumer rejoined its group', { group: spec.description });
    } catch (error) {
      if (stopping) return;
      log.debug('consumer could not rejoin yet', { group: spec.description, error });
      void replace(replacement, Math.min(delayMs * 2, MAX_RESTART_DELAY_MS));
    }
  };

  watch(current);
  try {
    await join(current, spec);
  } catch (error) {
    stopping = true;
    await current.disconnect().catch(() => undefined);
    throw error;
  }
  return {
    stop: async () => {
      stopping = true;
      clearTimeout(restartTimer);
      await current.disconnect();
    },
  };
}
