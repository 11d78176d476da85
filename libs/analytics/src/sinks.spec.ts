/**
 * What an export writes (openSink): CSV a spreadsheet reads back field for field, JSON Lines in the
 * documented column order, and a file that already holds an export never overwritten.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ExportedEvent } from './exported-event';
import { openSink, type ExportFormat } from './sinks';

/** The documented column order, CSV header and JSON Lines keys alike. */
const COLUMNS = ['position', 'stream', 'type', 'version', 'time', 'id', 'revision', 'data', 'metadata'];

const event: ExportedEvent = {
  position: '120/120',
  stream: 'collection-PG7K3M9Q2X4T8V6B1N5R0D2F3H',
  type: 'CollectionFailed',
  version: 2,
  time: '2030-01-01T10:00:00.000Z',
  id: '0b8a4c1e-5d2f-4a6b-9c3d-7e8f9a0b1c2d',
  revision: 3,
  data: { reason: 'customer said "no", twice', note: 'line one\nline two' },
  metadata: { correlationId: 'c-1' },
};

/** Writes `events` to stdout through the sink, and answers what came out. */
async function written(format: ExportFormat, events: ExportedEvent[]): Promise<string> {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const sink = await openSink(format, undefined, stdout);
  for (const each of events) await sink.write(each);
  await sink.close();
  return text;
}

/** RFC 4180 records, as a spreadsheet reads them. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted && char === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && (char === ',' || (char === '\r' && text[i + 1] === '\n'))) {
      row.push(field);
      field = '';
      if (char === ',') continue;
      rows.push(row);
      row = [];
      i++;
    } else {
      field += char;
    }
  }
  return rows;
}

describe('export sinks', () => {
  it('CSV: a header, then fields that read back exactly, quotes and line breaks included', async () => {
    const rows = parseCsv(await written('csv', [event]));
    expect(rows).toEqual([
      COLUMNS,
      [
        '120/120',
        event.stream,
        'CollectionFailed',
        '2',
        event.time,
        event.id,
        '3',
        JSON.stringify(event.data),
        '{"correlationId":"c-1"}',
      ],
    ]);
  });

  it('JSON Lines: one object per line, its keys in the column order', async () => {
    const lines = (await written('jsonl', [event, { ...event, position: '121/121' }])).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(Object.keys(JSON.parse(lines[0]))).toEqual(COLUMNS);
    expect(JSON.parse(lines[1])).toEqual({ ...event, position: '121/121' });
  });

  describe('to a file', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'paygate-sinks-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes a new file, and refuses one that exists, leaving it as it was', async () => {
      const path = join(dir, 'events.jsonl');
      const sink = await openSink('jsonl', path, new PassThrough());
      await sink.write(event);
      await sink.close();
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(event);
      const earlier = join(dir, 'earlier.csv');
      writeFileSync(earlier, 'a finished export\n');
      await expect(openSink('csv', earlier, new PassThrough())).rejects.toMatchObject({ code: 'EEXIST' });
      expect(readFileSync(earlier, 'utf8')).toBe('a finished export\n');
    });

    it('Parquet needs a file', async () => {
      await expect(openSink('parquet', undefined, new PassThrough())).rejects.toThrow('Parquet needs --output <file>');
    });
  });
});
