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
    ]);
  });
});
