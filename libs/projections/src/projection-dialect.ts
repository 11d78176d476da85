import type { SqlClient } from '@paygate/sql';
import type { ColumnType } from './projection';

/** A read model's table as its statements need it: `revision` is the column every one has besides these. */
export interface ModelTable {
  table: string;
  keyColumns: readonly string[];
  /** The other columns, in the order a row's values come. */
  columns: Readonly<Record<string, ColumnType>>;
}

/** A row to write: its key's and columns' values in ModelTable's order, `jsonb` ones as JSON text. */
export interface RowToWrite {
  key: readonly string[];
  values: readonly unknown[];
  revision: number;
}

/** The statements of a Projection in one dialect (SqlClient.dialect): folding, waves and what goes alongside are Projection's. */
export interface ProjectionDialect {
  /**
   * The rows of these keys (each key's values in `keyColumns` order), with their key, columns and revision, `jsonb`
   * ones parsed; held for the transaction. A key without a row is absent.
   */
  storedRows(
    tx: SqlClient,
    model: ModelTable,
    keys: readonly (readonly string[])[],
  ): Promise<Record<string, unknown>[]>;
  /**
   * Writes each row at its revision, never over a row already past it; returns, row by row, the revision the row had
   * (-1: none). The rows' keys are distinct.
   */
  upsert(tx: SqlClient, model: ModelTable, rows: readonly RowToWrite[]): Promise<number[]>;
}
