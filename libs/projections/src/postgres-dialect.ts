import type { ColumnType } from './projection';
import type { ProjectionDialect } from './projection-dialect';

/*
 * Rows travel as one array parameter per column, unnested together, so a page's rows are one
 * statement whatever their number.
 */

const arrayType = (type: ColumnType) => (type === 'jsonb' ? 'text[]' : `${type}[]`);

/** One array per column of rows given row by row. */
const byColumn = (rows: readonly (readonly unknown[])[], width: number) =>
  Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));

export const POSTGRES_DIALECT: ProjectionDialect = {
  storedRows: (tx, { table, keyColumns, columns }, keys) =>
    tx.query<Record<string, unknown>>(
      `select ${[...keyColumns, ...Object.keys(columns), 'revision'].map((column) => `t.${column}`).join(', ')}
       from ${table} t join unnest(${keyColumns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) as k(${keyColumns.join(', ')}) using (${keyColumns.join(', ')})
       for update of t`,
      byColumn(keys, keyColumns.length),
    ),

  async upsert(tx, { table, keyColumns, columns }, rows) {
    const names = Object.keys(columns);
    const all = [...keyColumns, ...names, 'revision'];
    const types = [...keyColumns.map(() => 'text[]'), ...names.map((name) => arrayType(columns[name])), 'integer[]'];
    const selected = all.map((column) => (columns[column] === 'jsonb' ? `u.${column}::jsonb` : `u.${column}`));
    // `had` reads the statement's snapshot, so it is each row before this write whatever order the parts run in.
    const written = await tx.query<{ had: number | string }>(
      `with u as (select * from unnest(${types.map((type, i) => `$${i + 1}::${type}`).join(', ')}) with ordinality as u(${all.join(', ')}, ord)),
       had as (select ${keyColumns.map((column) => `t.${column}`).join(', ')}, t.revision from ${table} t join u using (${keyColumns.join(', ')})),
       written as (
         insert into ${table} (${all.join(', ')}) select ${selected.join(', ')} from u
         on conflict (${keyColumns.join(', ')}) do update set ${[...names, 'revision'].map((column) => `${column} = excluded.${column}`).join(', ')}
         where ${table}.revision < excluded.revision)
       select coalesce(had.revision, -1) as had from u left join had using (${keyColumns.join(', ')}) order by u.ord`,
      byColumn(
        rows.map(({ key, values, revision }) => [...key, ...values, revision]),
        all.length,
      ),
    );
    return written.map((row) => Number(row.had));
  },
};
