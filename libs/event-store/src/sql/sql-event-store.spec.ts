import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { describeWithService, eventStoreConformance, uniqueSchema } from '@paygate/testing';
import { SqlEventStore } from './sql-event-store';

async function underTest(db: SqlDatabase, schema?: string) {
  const store = await SqlEventStore.create(db);
  const dispose = async () => {
    await store.close();
    if (schema) await db.query(`drop schema ${schema} cascade`);
    await db.close();
  };
  return { store, dispose };
}

describe('SqlEventStore on PGlite', () => {
  eventStoreConformance(async () => underTest(await openSqlDatabase('pglite://memory')));
});

describe('SqlEventStore on SQLite', () => {
  eventStoreConformance(async () => underTest(await openSqlDatabase('sqlite://memory')));
});

describeWithService('postgres', 'SqlEventStore on PostgreSQL', (url) => {
  const schema = uniqueSchema('es_conformance');
  eventStoreConformance(async () => underTest(await openSqlDatabase(url, { schema }), schema));
});
