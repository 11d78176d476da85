import { createLogger } from '@paygate/logging';
import { SqlEventStore } from '@paygate/event-store';
import { openSqlDatabase } from '@paygate/sql';
import { describeWithService, eventually, RecordingMetrics, serviceUrl, uniqueSchema } from '@paygate/testing';
import { openMessaging } from '../open-messaging';
import { KAFKA_GROUP_LAG_METRIC, lagSamples } from './group-lag';

describe('consumer group lag from the offsets the broker reports', () => {
  it('counts from the committed offset to the end of the log, from its start where nothing was committed', () => {
    expect(
      lagSamples('paygate.g', [
        { topic: 't', partition: 0, low: '0', high: '10', committed: '7' },
        { topic: 't', partition: 1, low: '4', high: '9', committed: '-1' },
        { topic: 't', partition: 2, low: '0', high: '0', committed: '-1' },
      ]),
    ).toEqual([
      { labels: { group: 'paygate.g', topic: 't', partition: '0' }, value: 3 },
      { labels: { group: 'paygate.g', topic: 't', partition: '1' }, value: 5 },
      { labels: { group: 'paygate.g', topic: 't', partition: '2' }, value: 0 },
    ]);
  });

  it('never reports a negative lag when the log was truncated past a committed offset', () => {
    expect(lagSamples('g', [{ topic: 't', partition: 0, low: '50', high: '60', committed: '70' }])[0].value).toBe(0);
  });
});

describeWithService('kafka', 'Kafka consumer group lag, read at the scrape', (brokerUrl) => {
  it('reports the messages a blocked group has yet to handle, per partition, and 0 once it has handled them', async () => {
    const storeUrl = serviceUrl('postgres');
    const schema = uniqueSchema('msg_kafka_lag');
    const db = await openSqlDatabase(storeUrl ?? 'pglite://memory', storeUrl ? { schema } : {});
    const store = await SqlEventStore.create(db);
    const metrics = new RecordingMetrics();
    const messaging = await openMessaging(
      brokerUrl,
      { store, sql: db, log: createLogger('group-lag-test', 'error'), metrics },
      { clientId: 'group-lag-test', partitions: 3 },
    );
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    try {
      // A fresh category, so a fresh topic: only this spec's events are on it.
      const prefix = `lag${Date.now().toString(36)}-`;
      await messaging.events.publish([prefix]);
      await messaging.events.consume({ group: `${prefix}g`, streamPrefixes: [prefix] }, () => released);
      await store.appendToStream(`${prefix}s`, [
        { type: 'A', data: {} },
        { type: 'B', data: {} },
        { type: 'C', data: {} },
      ]);
      const lag = async () => {
        const samples = (await metrics.read(KAFKA_GROUP_LAG_METRIC)).filter(
          (sample) => sample.labels.group === `paygate.${prefix}g`,
        );
        return { samples, total: samples.reduce((sum, sample) => sum + sample.value, 0) };
      };
      const behind = await eventually(
        async () => ((await lag()).total === 3 ? lag() : undefined),
        30_000,
        'the three unhandled messages to show as lag',
      );
      // One stream is one key, so one partition holds all three; the topic's other partitions are reported at 0.
      expect(behind.samples.map((sample) => sample.labels.partition).sort()).toEqual(['0', '1', '2']);
      expect(behind.samples.map((sample) => sample.value).sort()).toEqual([0, 0, 3]);
      expect(behind.samples.every((sample) => sample.labels.topic === `paygate.events.${prefix.slice(0, -1)}`)).toBe(
        true,
      );

      release();
      await eventually(async () => ((await lag()).total === 0 ? true : undefined), 30_000, 'the lag to clear');
    } finally {
      release();
      await messaging.close();
      if (storeUrl) await db.query(`drop schema ${schema} cascade`);
      await db.close();
    }
    expect(await metrics.read(KAFKA_GROUP_LAG_METRIC)).toEqual([]);
  }, 90_000);
});
