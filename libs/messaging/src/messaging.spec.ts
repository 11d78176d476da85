import { SqlEventStore } from '@paygate/event-store';
import { createLogger } from '@paygate/logging';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { freePort } from '@paygate/net-guard';
import {
  CONFORMANCE_SERVICE,
  describeWithService,
  issueTestCertificates,
  messagingConformance,
  serviceUrl,
  uniqueSchema,
} from '@paygate/testing';
import { openMessaging } from './open-messaging';
import type { CommandRoutes } from './remote/command-routes';
import { readCommandTls, type CommandTls } from './remote/command-tls';

const log = createLogger('messaging-test', 'error');

let tls: CommandTls | undefined;

/** Each instance, as its own process would, serves the conformance service on a port of its own and sends there. */
async function ownCommandRoutes(): Promise<CommandRoutes> {
  const url = `tcp://127.0.0.1:${await freePort()}`;
  tls ??= readCommandTls(issueTestCertificates());
  return { listenUrl: url, services: { [CONFORMANCE_SERVICE]: url }, tls };
}

async function setup(brokerUrl: string, db: SqlDatabase, schema?: string) {
  const store = await SqlEventStore.create(db);
  return {
    store,
    open: async () =>
      openMessaging(
        brokerUrl,
        { store, sql: db, log },
        { clientId: 'messaging-test', partitions: 3, commandRoutes: await ownCommandRoutes() },
      ),
    dispose: async () => {
      if (schema) await db.query(`drop schema ${schema} cascade`);
      await db.close();
    },
  };
}

describe('in-process messaging on PGlite', () => {
  messagingConformance(async () => setup('inproc://', await openSqlDatabase('pglite://memory')));
});

describeWithService('postgres', 'in-process messaging on PostgreSQL', (url) => {
  const schema = uniqueSchema('msg_inproc');
  messagingConformance(async () => setup('inproc://', await openSqlDatabase(url, { schema }), schema));
});

describeWithService('kafka', 'Kafka messaging', (brokerUrl) => {
  const schema = uniqueSchema('msg_kafka');
  messagingConformance(async () => {
    // The relay's store: PostgreSQL when configured (as in production), else embedded.
    const storeUrl = serviceUrl('postgres');
    return storeUrl
      ? setup(brokerUrl, await openSqlDatabase(storeUrl, { schema }), schema)
      : setup(brokerUrl, await openSqlDatabase('pglite://memory'));
  });
});
