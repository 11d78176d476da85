import { fromJson, type SqlClient } from '@paygate/sql';
import type { ModelTable, ProjectionDialect } from './projection-dialect';

/*
 * SQLite runs one transaction at a time (BEGIN IMMEDIATE holds the write lock): rows read in
 * one are the rows it writes over, with no lock of their own. Rows travel as one JSON array
 * parameter of arrays; `jsonb` columns hold JSON text. There are no writes inside WITH, so the
 * revisions the rows had are read in a statement before the write.
 */

/** `(k1, k2) in (...)`, the keys being $1's arrays. */
const keyIn = (keyColumns: readonly string[]) =>
  `(${keyColumns.join(', ')}) in (select ${keyColumns.map((_, i) => `value ->> ${i}`).join(', ')} from json_each($1))`;

const keyText = (values: readonly unknown[]) => JSON.stringify(values.map(String));

async function rowsOf(
  tx: SqlClient,
  { table, keyColumns }: ModelTable,
  columns: readonly string[],
  keys: readonly (readonly string[])[],
): Promise<Record<string, unknown>[]> {
  return tx.query(
    `select ${[...keyColumns, ...columns, 'revision'].join(', ')} from ${table} where ${keyIn(keyColumns)}`,
    [JSON.stringify(keys)],
  );
}

export const SQLITE_DIALECT: ProjectionDialect = {
  async storedRows(tx, model, keys) {
    const rows = await rowsOf(tx, model, Object.keys(model.columns), keys);
    const json = Object.keys(model.columns).filter((column) => model.columns[column] === 'jsonb');
    return rows.map((row) => {
      for (const column of json) row[column] = fromJson(tx, row[column]);
      return row;
    });
  },

  async upsert(tx, model, rows) {
    const { table, keyColumns, columns } = model;
    const had = new Map(
      (
        await rowsOf(
          tx,
          model,
          [],
          rows.map(({ key }) => key),
        )
      ).map((row) => [keyText(keyColumns.map((column) => row[column])), Number(row.revision)]),
    );
    const names = Object.keys(columns);
    const all = [...keyColumns, ...names, 'revision'];
    // `where true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
    await tx.query(
      `insert into ${table} (${all.join(', ')}) select ${all.map((_, i) => `value ->> ${i}`).join(', ')} from json_each($1) where true
       on conflict (${keyColumns.join(', ')}) do update set ${[...names, 'revision'].map((column) => `${column} = excluded.${column}`).join(', ')}
       where ${table}.revision < excluded.revision`,
      [JSON.stringify(rows.map(({ key, values, revision }) => [...key, ...values, revision]))],
    );
    return rows.map(({ key }) => had.get(keyText(key)) ?? -1);
  },
};
