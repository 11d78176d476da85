import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { EXPORTED_COLUMNS, type ExportedEvent } from './exported-event';

export const EXPORT_FORMATS = ['jsonl', 'csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Where exported events go. `flush` returns once everything written so far is out of the process. */
export interface EventSink {
  write(event: ExportedEvent): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** A text destination: a new file, or the command's stdout. */
class TextOutput {
  private constructor(
    private readonly out: Writable,
    private readonly owned: boolean,
  ) {}

  static async open(path: string | undefined, stdout: Writable): Promise<TextOutput> {
    if (!path) return new TextOutput(stdout, false);
    // `wx`: an existing file is never overwritten (a finished export may be in it).
    const file = createWriteStream(path, { flags: 'wx' });
    await once(file, 'open');
    return new TextOutput(file, true);
  }

  async write(text: string): Promise<void> {
    if (!this.out.write(text)) await once(this.out, 'drain');
  }

  flush(): Promise<void> {
    return new Promise((resolve, reject) => this.out.write('', (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    if (!this.owned) return this.flush();
    this.out.end();
    await once(this.out, 'close');
  }
}

/** One JSON object per line, keys in EXPORTED_COLUMNS order. */
class JsonLinesSink implements EventSink {
  constructor(private readonly out: TextOutput) {}
  write(event: ExportedEvent) {
    return this.out.write(JSON.stringify(event) + '\n');
  }
  flush() {
    return this.out.flush();
  }
  close() {
    return this.out.close();
  }
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header row, then one row per event; data and metadata are JSON text. */
class CsvSink implements EventSink {
  constructor(private readonly out: TextOutput) {}
  static async open(out: TextOutput): Promise<CsvSink> {
    await out.write(EXPORTED_COLUMNS.join(',') + '\r\n');
    return new CsvSink(out);
  }
  write(event: ExportedEvent) {
    const row = EXPORTED_COLUMNS.map((column) => {
      const value = event[column];
      return csvField(typeof value === 'object' ? JSON.stringify(value) : value);
    });
    return this.out.write(row.join(',') + '\r\n');
  }
  flush() {
    return this.out.flush();
  }
  close() {
    return this.out.close();
  }
}

/**
 * Parquet through DuckDB: rows are appended to an in-memory table (DuckDB spills to disk when
 * it must) and written as one Parquet file on close, with `time` a timestamp and `data` and
 * `metadata` JSON. A Parquet file is complete only once closed, so an interrupted export writes
 * what it had, and the resumed one writes a second file: query both with a glob.
 */
class ParquetSink implements EventSink {
  private constructor(
    private readonly path: string,
    private readonly release: () => void,
    private readonly connection: import('@duckdb/node-api').DuckDBConnection,
    private readonly appender: import('@duckdb/node-api').DuckDBAppender,
  ) {}

  static async open(path: string): Promise<ParquetSink> {
    // Loaded only for Parquet: DuckDB's native library is large.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(
      'create table events (position varchar, stream varchar, type varchar, version integer, time varchar, id varchar, revision bigint, data varchar, metadata varchar)',
    );
    const appender = await connection.createAppender('events');
    return new ParquetSink(
      path,
      () => {
        connection.closeSync();
        instance.closeSync();
      },
      connection,
      appender,
    );
  }

  async write(event: ExportedEvent): Promise<void> {
    const row = this.appender;
    row.appendVarchar(event.position);
    row.appendVarchar(event.stream);
    row.appendVarchar(event.type);
    row.appendInteger(event.version);
    row.appendVarchar(event.time);
    row.appendVarchar(event.id);
    row.appendBigInt(BigInt(event.revision));
    row.appendVarchar(JSON.stringify(event.data));
    row.appendVarchar(JSON.stringify(event.metadata));
    row.endRow();
  }

  /** Nothing reaches the file before close. */
  async flush(): Promise<void> {}

  async close(): Promise<void> {
    try {
      this.appender.closeSync();
      const target = `'${this.path.replace(/'/g, "''")}'`;
      await this.connection.run(
        `copy (select position, stream, type, version, cast(time as timestamptz) as time, cast(id as uuid) as id, revision,
                      cast(data as json) as data, cast(metadata as json) as metadata from events)
         to ${target} (format parquet)`,
      );
    } finally {
      this.release();
    }
  }
}

/** `path` undefined writes to `stdout` (not for Parquet, whose file is written at the end). */
export async function openSink(format: ExportFormat, path: string | undefined, stdout: Writable): Promise<EventSink> {
  switch (format) {
    case 'jsonl':
      return new JsonLinesSink(await TextOutput.open(path, stdout));
    case 'csv':
      return CsvSink.open(await TextOutput.open(path, stdout));
    case 'parquet':
      if (!path) throw new Error('Parquet needs --output <file>');
      return ParquetSink.open(path);
  }
}
