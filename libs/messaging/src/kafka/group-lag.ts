import type { Admin } from 'kafkajs';
import type { GaugeSample } from '@paygate/metrics';
import { withDeadline } from './kafka-connection';

export const KAFKA_GROUP_LAG_METRIC = 'paygate_kafka_consumer_group_lag_messages';

/** A scrape waits this long for the broker's answer, then leaves the series out (the scrape itself still answers). */
const LAG_DEADLINE_MS = 5_000;

export type LagLabels = 'group' | 'topic' | 'partition';

/** A partition's offsets as the broker reports them: its log's first and next offsets, the group's committed one. */
export interface PartitionOffsets {
  topic: string;
  partition: number;
  low: string;
  high: string;
  /** '-1': the group has committed nothing here yet. */
  committed: string;
}

/**
 * Messages the group has yet to handle, per partition: from its committed offset to the end of the log, or from the
 * log's start when it has committed nothing (Paygate's groups start from the beginning).
 */
export function lagSamples(group: string, offsets: readonly PartitionOffsets[]): GaugeSample<LagLabels>[] {
  return offsets.map(({ topic, partition, low, high, committed }) => {
    const from = committed === '-1' ? Number(low) : Number(committed);
    return { labels: { group, topic, partition: String(partition) }, value: Math.max(0, Number(high) - from) };
  });
}

/** The group's lag on each partition of `topics`, asked of the broker (two requests per topic). */
export async function groupLag(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<GaugeSample<LagLabels>[]> {
  const [committed, ends] = await withDeadline(
    Promise.all([
      admin.fetchOffsets({ groupId, topics: [...topics] }),
      Promise.all(topics.map(async (topic) => ({ topic, partitions: await admin.fetchTopicOffsets(topic) }))),
    ]),
    LAG_DEADLINE_MS,
    `Kafka (offsets of consumer group ${groupId})`,
  );
  const committedAt = new Map(
    committed.flatMap(({ topic, partitions }) =>
      partitions.map(({ partition, offset }) => [`${topic}:${partition}`, offset] as const),
    ),
  );
  return lagSamples(
    groupId,
    ends.flatMap(({ topic, partitions }) =>
      partitions.map(({ partition, low, high }) => ({
        topic,
        partition,
        low,
        high,
        committed: committedAt.get(`${topic}:${partition}`) ?? '-1',
      })),
    ),
  );
}
