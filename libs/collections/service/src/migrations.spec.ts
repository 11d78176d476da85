import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { migrate } from '@paygate/sql';
import { describeOnSqlEngines } from '@paygate/testing';
import { COLLECTIONS_MIGRATIONS } from './migrations';

/**
 * Databases record a migration's checksum when they apply it: a released one never changes (libs/sql migrations.ts).
 */
describe('COLLECTIONS_MIGRATIONS', () => {
  it('keeps the ids and checksums they were released with', () => {
    expect(COLLECTIONS_MIGRATIONS.map(({ id, checksum }) => ({ id, checksum }))).toEqual([
      {
        id: 'collections/0001_references_view_and_timers',
        checksum: 'b61d791b4d0a4113e2fdb63d5946153f0b2f3e967c4bd2e706427e236b12333b',
      },
      {
        id: 'collections/0002_timers_onto_job_queue',
        checksum: '9bfaab340f322af65ea8c0dee399745593e64f7b0e899f61daef45b92b29d576',
      },
      {
        id: 'collections/0003_view_list_columns',
        checksum: 'e0ddfdd2da95700cfe652a87d197940bc5df7576535ec4e349c1eb0019f3ce99',
      },
      {
        id: 'collections/0004_view_amount_columns',
        checksum: '66a38fef9e512c1473e7b10ae29af3f45ed99a57c2457065aec5b9f4b8a52cc0',
      },
      {
        id: 'collections/0005_view_pending_index',
        checksum: '340d5f6dc81c32970f43916a9ad62b771ac51d6da99e7a13e49e2220c36ba243',
      },
    ]);
  });
});

describeOnSqlEngines('collections/0003_view_list_columns', 'collections_0003', (open) => {
  it('fills the list columns of collections the view held before it', async () => {
    const { db, close } = await open();
    try {
      await migrate(db, [...JOBS_MIGRATIONS, ...COLLECTIONS_MIGRATIONS.slice(0, 2)]);
      const state = {
        status: 'COMPLETED',
        initiated: { transactionMethod: 'CARD', providerCode: 'card_ug', initiatedAt: '2026-11-26T10:00:00.000Z' },
      };
      await db.query(
        `insert into collection_view (internal_reference, merchant_id, merchant_reference, revision, state)
         values ('PG7K3M9Q2X4T8V6B1N5R0D2F3H', 'mer_1', 'order-1', 3, $1::jsonb)`,
        [JSON.stringify(state)],
      );
      await migrate(db, [...JOBS_MIGRATIONS, ...COLLECTIONS_MIGRATIONS]);
      expect(
        await db.query('select status, transaction_method, provider_code, created_at from collection_view'),
      ).toEqual([
        {
          status: 'COMPLETED',
          transaction_method: 'CARD',
          provider_code: 'card_ug',
          created_at: '2026-11-26T10:00:00.000Z',
        },
      ]);
    } finally {
      await close();
    }
  });
});

describeOnSqlEngines('collections/0004_view_amount_columns', 'collections_0004', (open) => {
  it('fills the currency and amount of collections the view held before it', async () => {
    const { db, close } = await open();
    try {
      await migrate(db, [...JOBS_MIGRATIONS, ...COLLECTIONS_MIGRATIONS.slice(0, 3)]);
      const state = { status: 'PENDING', initiated: { currency: 'UGX', requestAmount: 81_000 } };
      await db.query(
        `insert into collection_view (internal_reference, merchant_id, merchant_reference, revision, state)
         values ('PG7K3M9Q2X4T8V6B1N5R0D2F3H', 'mer_1', 'order-1', 3, $1::jsonb)`,
        [JSON.stringify(state)],
      );
      await migrate(db, [...JOBS_MIGRATIONS, ...COLLECTIONS_MIGRATIONS]);
      expect(await db.query('select currency, request_amount from collection_view')).toEqual([
        { currency: 'UGX', request_amount: expect.anything() },
      ]);
      const [{ amount }] = await db.query<{ amount: string }>(
        'select request_amount::text as amount from collection_view',
      );
      expect(amount).toBe('81000');
    } finally {
      await close();
    }
  });
});
