/**
 * The built `paygate` interrupted mid-export by SIGTERM stops cleanly and prints where it got
 * to; resumed from there, the two parts hold every event exactly once.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { SqlEventStore } from '@paygate/event-store';
import { openSqlDatabase } from '@paygate/sql';
import { builtCli, lines, runCli, temporaryDir } from './cli-test-setup';

const STREAMS = 1_000;

describe('an interrupted export, resumed', () => {
  const dir = temporaryDir('interrupt');
  const env = { STORE_URL: `pglite://${join(dir.path, 'store')}` };

  beforeAll(async () => {
    const sql = await openSqlDatabase(env.STORE_URL);
    const store = await SqlEventStore.create(sql);
    const padding = 'x'.repeat(200);
    for (let i = 0; i < STREAMS; i++) {
      await store.appendToStream(
        `collection-PG${i}`,
        ['CollectionInitiated', 'CollectionConfirmed', 'CollectionCompleted'].map((type) => ({
          type,
          data: { merchantId: 'm1', padding },
        })),
      );
    }
    await sql.close();
  });
  afterAll(() => dir.remove());

  it('yields every event exactly once', async () => {
    const child = spawn(process.execPath, [builtCli(), 'events', 'export'], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const out: Buffer[] = [];
    // Stop reading at the first output, so the export blocks on a full pipe, and signal it there.
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    child.stdout.pause();
    out.push(first);
    child.kill('SIGTERM');
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stdout.resume();
    const [code] = (await once(child, 'close')) as [number];

    expect(code).toBe(130);
    const printed =
      /^paygate: interrupted; (\d+) events exported, last position (\S+) \(continue with --after \2\)\n$/.exec(stderr);
    expect(printed).not.toBeNull();
    const firstPart = lines(Buffer.concat(out).toString('utf8'));
    expect(firstPart.length).toBe(Number(printed![1]));
    expect(firstPart.length).toBeLessThan(STREAMS * 3);
    expect(firstPart[firstPart.length - 1].position).toBe(printed![2]);

    const rest = await runCli(['events', 'export', '--after', printed![2]], env);
    const full = await runCli(['events', 'export'], env);
    const union = [...firstPart, ...lines(rest.stdout)];
    expect(union).toEqual(lines(full.stdout));
    expect(new Set(union.map((event) => event.id)).size).toBe(STREAMS * 3);
  });
});
