import { PAYMENTS_MIGRATIONS } from './migrations';

/**
 * Databases record a migration's checksum when they apply it: a released one never changes (libs/sql migrations.ts).
 */
describe('PAYMENTS_MIGRATIONS', () => {
  it('keeps the ids and checksums they were released with', () => {
    expect(PAYMENTS_MIGRATIONS.map(({ id, checksum }) => ({ id, checksum }))).toEqual([
      {
        id: 'payments/0001_balances_view_and_timers',
        checksum: '40daee5059221f0955c02ee4f7161954bdbb6e2ad7b7973607652ca82a072c1d',
      },
      {
        id: 'payments/0002_timers_onto_job_queue',
        checksum: 'e318e237aec814a4b07aa46787a700eaba21e3dcfe954230b5f6572094ad72d0',
      },
      {
        id: 'payments/0003_wallet_entries',
        checksum: 'a6aa300fb081e34b66f8afaa8ed8dc4bc5cec3798c613a4dc8411017943429ba',
      },
      {
        id: 'payments/0004_service_payments_by_opening',
        checksum: '44c74b7258a040b336b4e2efbd9df75a391088abb85fdd4e48751c469b46afe4',
      },
    ]);
  });
});
