import { SqlEventStore } from '@paygate/event-store';
import { createLogger } from '@paygate/logging';
import { NO_METRICS, type Metrics } from '@paygate/metrics';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { freePort } from '@paygate/net-guard';
import { join } from 'node:path';
import {
  CONFORMANCE_ACCESS,
  CONFORMANCE_SERVICE,
  describeOnAllSqlEngines,
  describeWithService,
  eventually,
  issueAppCertificates,
  messagingConformance,
  serviceUrl,
  uniqueSchema,
} from '@paygate/testing';
import { KAFKA_MESSAGES_METRIC } from './kafka/kafka-event-bus';
import { openMessaging } from './open-messaging';
import type { CommandRoutes } from './remote/command-routes';
import { readCommandTls, type CommandTls } from './remote/command-tls';

const log = createLogger('messaging-test', 'error');

let tls: CommandTls | undefined;

/** Each instance, as its own process would, serves the conformance service on a port of its own and sends there. */
async function ownCommandRoutes(): Promise<CommandRoutes> {
  const url = `tcp://127.0.0.1:${await freePort()}`;
  tls ??= readCommandTls(join(issueAppCertificates(), CONFORMANCE_ACCESS.servedBy));
  return { listenUrl: url, services: { [CONFORMANCE_SERVICE]: url }, tls };
}

async function setup(brokerUrl: string, db: SqlDatabase, close: () => Promise<void>, metrics?: Metrics) {
  const store = await SqlEventStore.create(db);
  return {
    store,
    open: async () =>
      openMessaging(
        brokerUrl,
        { store, sql: db, log, metrics },
        { clientId: 'messaging-test', partitions: 3, commandRoutes: await ownCommandRoutes() },
      ),
    dispose: close,
  };
}

describeOnAllSqlEngines('in-process messaging', 'msg_inproc', (open) => {
  messagingConformance(async () => {
    const { db, close } = await open();
    return setup('inproc://', db, close);
  });
});

/** The relay's store: PostgreSQL when configured (as in production), else embedded. */
async function kafkaSetup(brokerUrl: string, schema: string, metrics?: Metrics) {
  const storeUrl = serviceUrl('postgres');
  const db = storeUrl ? await openSqlDatabase(storeUrl, { schema }) : await openSqlDatabase('pglite://memory');
  const close = async () => {
    if (storeUrl) await db.query(`drop schema ${schema} cascade`);
    await db.close();
  };
  return setup(brokerUrl, db, close, metrics);
}

describeWithService('kafka', 'Kafka messaging', (brokerUrl) => {
  const schema = uniqueSchema('msg_kafka');
  messagingConformance(() => kafkaSetup(brokerUrl, schema));
});

describeWithService('kafka', 'Kafka messaging, counted', (brokerUrl) => {
  it('counts the messages the relay produced and a consumer fetched', async () => {
    const counted: Record<string, number> = {};
    const metrics: Metrics = {
      ...NO_METRICS,
      counter: (spec) => ({
        inc: (labels: Record<string, string>, by = 1) => {
          if (spec.name === KAFKA_MESSAGES_METRIC) counted[labels.direction] = (counted[labels.direction] ?? 0) + by;
        },
      }),
    };
    const subject = await kafkaSetup(brokerUrl, uniqueSchema('msg_kafka_counted'), metrics);
    const messaging = await subject.open();
    try {
      // The category (text before the first dash) names the topic: a fresh topic, so only these two events are on it.
      const prefix = `kc${Date.now().toString(36)}-`;
      await messaging.events.publish([prefix]);
      const seen: string[] = [];
      await messaging.events.consume({ group: `${prefix}g`, streamPrefixes: [prefix] }, async (e) => {
        seen.push(e.type);
      });
      await subject.store.appendToStream(`${prefix}s`, [
        { type: 'A', data: {} },
        { type: 'B', data: {} },
      ]);
      await eventually(() => (seen.length >= 2 && counted.produced === 2 ? true : undefined), 30_000, 'both events');
      // At least once: a rebalance may fetch a message again.
      expect(counted.fetched).toBeGreaterThanOrEqual(2);
    } finally {
      await messaging.close();
      await subject.dispose();
    }
  }, 60_000);
});
