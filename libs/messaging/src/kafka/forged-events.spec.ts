import { randomUUID } from 'node:crypto';
import { SqlEventStore, type RecordedEvent } from '@paygate/event-store';
import { createLogger } from '@paygate/logging';
import { NO_METRICS, type Metrics } from '@paygate/metrics';
import { openSqlDatabase } from '@paygate/sql';
import { bareKafkaProducer, describeWithService, eventually, serviceUrl, uniqueSchema } from '@paygate/testing';
import { prefixCategory } from '../event-bus';
import { openMessaging } from '../open-messaging';
import { eventTopic, KAFKA_REFUSED_METRIC } from './kafka-event-bus';

const log = createLogger('forged-events-test', 'error');

describeWithService('kafka', 'a Kafka consumer hands on only events the store holds', (brokerUrl) => {
  it('drops a forged event and messages that are no event, and hands on an altered one as it was stored', async () => {
    const refused: Record<string, number> = {};
    const metrics: Metrics = {
      ...NO_METRICS,
      counter: (spec) => ({
        inc: (labels: Record<string, string>, by = 1) => {
          if (spec.name === KAFKA_REFUSED_METRIC) refused[labels.reason] = (refused[labels.reason] ?? 0) + by;
        },
      }),
    };
    const postgres = serviceUrl('postgres');
    const schema = uniqueSchema('kafka_forged');
    const sql = await openSqlDatabase(postgres ?? 'pglite://memory', postgres ? { schema } : {});
    const store = await SqlEventStore.create(sql);
    const messaging = await openMessaging(
      brokerUrl,
      { store, sql, log, metrics },
      { clientId: 'forged', partitions: 3 },
    );
    const forger = bareKafkaProducer(brokerUrl);
    try {
      // A fresh category, so its topic holds only this test's messages.
      const prefix = `kf${Date.now().toString(36)}-`;
      await messaging.events.publish([prefix]);
      const seen: RecordedEvent[] = [];
      await messaging.events.consume({ group: `${prefix}g`, streamPrefixes: [prefix] }, async (event) => {
        seen.push(event);
      });
      await store.appendToStream(`${prefix}wallet`, [{ type: 'Credited', data: { amount: 100 } }]);
      const [genuine] = await eventually(async () => (seen.length > 0 ? seen : undefined), 30_000, 'the stored event');

      await forger.connect();
      const forged = (streamName: string, data: Record<string, unknown>, id: string = randomUUID()) => ({
        key: streamName,
        value: JSON.stringify({ ...genuine, id, streamName, data }),
      });
      await forger.send({
        topic: eventTopic(prefixCategory(prefix)),
        messages: [
          forged(`${prefix}other`, { amount: 999_999 }),
          forged(genuine.streamName, { amount: 999_999 }, genuine.id),
          { key: genuine.streamName, value: 'not an event' },
          { key: genuine.streamName, value: JSON.stringify({ amount: 999_999 }) },
          // A stream name no PostgreSQL query can hold: refused, rather than failing the batch for ever.
          forged(`${prefix}nul\u0000`, { amount: 999_999 }),
        ],
      });
      await eventually(
        async () => ((refused.not_in_store ?? 0) >= 1 && (refused.not_an_event ?? 0) >= 3 ? true : undefined),
        30_000,
        'the forged messages to be refused',
      );
      await store.appendToStream(`${prefix}wallet`, [{ type: 'Credited', data: { amount: 5 } }], {
        expectedRevision: 0,
      });
      await eventually(
        async () => (seen.some((event) => event.revision === 1) ? true : undefined),
        30_000,
        'the next stored event',
      );

      // The altered copy came through as stored: the forger's amount never reached a handler.
      expect(seen.map((event) => event.data.amount)).not.toContain(999_999);
      expect(new Set(seen.map((event) => event.id)).size).toBe(2);
      expect(seen.every((event) => event.streamName === genuine.streamName)).toBe(true);
      expect(refused).toEqual({ not_in_store: 1, not_an_event: 3 });
    } finally {
      await forger.disconnect();
      await messaging.close();
      if (postgres) await sql.query(`drop schema ${schema} cascade`);
      await sql.close();
    }
  }, 90_000);
});
