/**
 * `paygate events export`: what an analyst gets in each format, the filters, and resuming from
 * the last position printed. Runs the CLI's main against a PGlite store seeded in a temp dir.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEventStore } from '@paygate/event-store';
import { openSqlDatabase } from '@paygate/sql';
import { describeWithService } from '@paygate/testing';
import { lines, runCli, seedPgliteStore, temporaryDir } from './cli-test-setup';

describe('paygate events export', () => {
  const dir = temporaryDir('export');
  const env = { STORE_URL: `pglite://${join(dir.path, 'store')}` };
  let all: Array<Record<string, unknown>>;

  beforeAll(async () => {
    await seedPgliteStore(join(dir.path, 'store'), 4);
    const full = await runCli(['events', 'export'], env);
    expect(full.code).toBe(0);
    all = lines(full.stdout);
  });
  afterAll(() => dir.remove());

  it('writes every event as a JSON line in global order, with position, stream, type, version, time, data and metadata', async () => {
    expect(all).toHaveLength(14);
    expect(Object.keys(all[0])).toEqual([
      'position',
      'stream',
      'type',
      'version',
      'time',
      'id',
      'revision',
      'data',
      'metadata',
    ]);
    expect(all[0]).toMatchObject({
      stream: 'collection-PG0',
      type: 'CollectionInitiated',
      version: 1,
      revision: 0,
      data: { merchantId: 'm1', requestAmount: 1_000 },
      metadata: { schemaVersion: 1 },
    });
    expect(all.map((event) => event.stream).slice(-2)).toEqual(['wallet-m1-UGX', 'service-payment-PG0']);
    expect(new Set(all.map((event) => event.id)).size).toBe(14);
  });

  it('says on stderr how many events it wrote and the position to continue after', async () => {
    const run = await runCli(['events', 'export', '--limit', '3'], env);
    expect(run.stderr).toBe(
      `paygate: 3 events exported, last position ${all[2].position} (continue with --after ${all[2].position})\n`,
    );
  });

  it.each<[string, string[], (event: Record<string, unknown>) => boolean]>([
    [
      'a stream prefix',
      ['--stream-prefix', 'wallet-,service-payment-'],
      (event) => !String(event.stream).startsWith('collection-'),
    ],
    ['an event type', ['--type', 'CollectionCompleted'], (event) => event.type === 'CollectionCompleted'],
    [
      "a merchant (also the events that do not name it, by their stream's first event)",
      ['--merchant', 'm2'],
      (event) => ['collection-PG1', 'collection-PG3'].includes(String(event.stream)),
    ],
  ])('selects by %s', async (_what, options, expected) => {
    const run = await runCli(['events', 'export', ...options], env);
    expect(run.code).toBe(0);
    const selected = lines(run.stdout);
    expect(selected.length).toBeGreaterThan(0);
    expect(selected).toEqual(all.filter(expected));
  });

  it('selects a merchant also when it starts past the events that name it', async () => {
    const run = await runCli(['events', 'export', '--merchant', 'm2', '--after', String(all[3].position)], env);
    expect(lines(run.stdout).map((event) => `${event.stream} ${event.type}`)).toEqual([
      'collection-PG1 CollectionConfirmed',
      'collection-PG1 CollectionCompleted',
      'collection-PG3 CollectionInitiated',
      'collection-PG3 CollectionConfirmed',
      'collection-PG3 CollectionCompleted',
    ]);
  });

  it('selects a position range: after one position, through another', async () => {
    const run = await runCli(
      ['events', 'export', '--after', String(all[4].position), '--through', String(all[8].position)],
      env,
    );
    expect(lines(run.stdout)).toEqual(all.slice(5, 9));
  });

  it('selects a time range: since is inclusive, until exclusive', async () => {
    const since = String(all[6].time);
    const run = await runCli(['events', 'export', '--since', since, '--until', '2999-01-01T00:00:00Z'], env);
    const selected = lines(run.stdout);
    expect(selected).toEqual(all.filter((event) => String(event.time) >= since));
    expect(selected.length).toBeGreaterThanOrEqual(8);
    expect(lines((await runCli(['events', 'export', '--until', String(all[0].time)], env)).stdout)).toEqual([]);
  });

  it('resumed from the last position printed, an export split in three yields every event exactly once', async () => {
    const parts: Array<Record<string, unknown>> = [];
    let after: string | undefined;
    for (;;) {
      const run = await runCli(['events', 'export', '--limit', '5', ...(after ? ['--after', after] : [])], env);
      expect(run.code).toBe(0);
      parts.push(...lines(run.stdout));
      const printed = /continue with --after (\S+)\)/.exec(run.stderr);
      if (!printed) break;
      after = printed[1];
    }
    expect(parts).toEqual(all);
  });

  it('writes CSV with a header, quoting what needs it; data and metadata as JSON', async () => {
    const out = join(dir.path, 'events.csv');
    expect((await runCli(['events', 'export', '--format', 'csv', '--output', out, '--limit', '1'], env)).code).toBe(0);
    const [header, row, end] = readFileSync(out, 'utf8').split('\r\n');
    expect(header).toBe('position,stream,type,version,time,id,revision,data,metadata');
    const data = JSON.stringify(all[0].data).replace(/"/g, '""');
    expect(row).toBe(
      `${all[0].position},collection-PG0,CollectionInitiated,1,${all[0].time},${all[0].id},0,"${data}","{""schemaVersion"":1}"`,
    );
    expect(end).toBe('');
  });

  it('writes Parquet that DuckDB reads back: typed time, JSON data', async () => {
    const out = join(dir.path, 'events.parquet');
    expect((await runCli(['events', 'export', '--format', 'parquet', '--output', out], env)).code).toBe(0);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const reader = await duck.runAndReadAll(
      `select stream, count(*)::integer as events, sum((data->>'requestAmount')::integer)::integer as requested, min(typeof(time)) as time_type
       from '${out}' group by stream having stream like 'collection-%' order by stream`,
    );
    expect(reader.getRowObjectsJson()).toEqual([
      { stream: 'collection-PG0', events: 3, requested: 1_000, time_type: 'TIMESTAMP WITH TIME ZONE' },
      { stream: 'collection-PG1', events: 3, requested: 2_000, time_type: 'TIMESTAMP WITH TIME ZONE' },
      { stream: 'collection-PG2', events: 3, requested: 3_000, time_type: 'TIMESTAMP WITH TIME ZONE' },
      { stream: 'collection-PG3', events: 3, requested: 4_000, time_type: 'TIMESTAMP WITH TIME ZONE' },
    ]);
    duck.closeSync();
  });

  it('prints a progress line on stderr every n events', async () => {
    const run = await runCli(['events', 'export', '--progress-every', '5'], env);
    expect(run.stderr.split('\n')).toEqual([
      `paygate: 5 events exported, last position ${all[4].position}`,
      `paygate: 10 events exported, last position ${all[9].position}`,
      `paygate: 14 events exported, last position ${all[13].position} (continue with --after ${all[13].position})`,
      '',
    ]);
  });
});

describeWithService('kurrentdb', 'paygate events export from KurrentDB (EVENT_STORE_URL)', (kurrentUrl) => {
  const dir = temporaryDir('export-kurrent');
  const stream = `collection-PGKURRENT${Date.now()}`;
  const env = { STORE_URL: `pglite://${join(dir.path, 'store')}`, EVENT_STORE_URL: kurrentUrl };

  beforeAll(async () => {
    const sql = await openSqlDatabase(env.STORE_URL);
    const store = await openEventStore(sql, kurrentUrl);
    await store.appendToStream(stream, [
      { type: 'CollectionInitiated', data: { merchantId: 'm-kurrent' }, metadata: { schemaVersion: 1 } },
      { type: 'CollectionConfirmed', data: {}, metadata: { schemaVersion: 1 } },
    ]);
    await store.close();
    await sql.close();
  });
  afterAll(() => dir.remove());

  it('reads the events from KurrentDB, with its positions, and resumes after one', async () => {
    const run = await runCli(['events', 'export', '--stream-prefix', stream], env);
    expect(run.code).toBe(0);
    const exported = lines(run.stdout);
    expect(exported.map((event) => [event.stream, event.type, event.revision])).toEqual([
      [stream, 'CollectionInitiated', 0],
      [stream, 'CollectionConfirmed', 1],
    ]);
    const rest = lines(
      (await runCli(['events', 'export', '--stream-prefix', stream, '--after', String(exported[0].position)], env))
        .stdout,
    );
    expect(rest).toEqual(exported.slice(1));
  });
});
