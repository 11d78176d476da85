import { defineMigrations } from '@paygate/sql';
import { timerTableStatements } from './leased-timers';

/**
 * The contexts' released migrations carry the timer DDL (collections/0001, payments/0001) and
 * databases record their checksums: the DDL sourced from here must keep them, or every existing
 * database would refuse to start. The checksums are those the migrations were released with.
 */
describe('timerTableStatements', () => {
  it('is, whitespace aside, the DDL the released migrations were applied with', () => {
    const released = (table: string) => [
      `create table if not exists ${table} ( internal_reference text not null, kind text not null, due_at timestamptz not null, fire_at timestamptz not null, primary key (internal_reference, kind) )`,
      `create index if not exists ${table}_fire_at on ${table} (fire_at)`,
    ];
    for (const table of ['collection_timers', 'payment_timers']) {
      const [fromHere] = defineMigrations('timers', [{ name: '0001_table', statements: timerTableStatements(table) }]);
      const [asReleased] = defineMigrations('timers', [{ name: '0001_table', statements: released(table) }]);
      expect(fromHere.checksum).toBe(asReleased.checksum);
    }
  });

  it('refuses a table name that is not a plain SQL identifier', () => {
    expect(() => timerTableStatements('timers; drop table x')).toThrow(
      'timer table name "timers; drop table x" is not a plain SQL identifier',
    );
  });
});
