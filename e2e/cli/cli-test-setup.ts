import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SqlEventStore, type EventToAppend } from '@paygate/event-store';
import { openSqlDatabase } from '@paygate/sql';
import { main } from '@paygate/cli';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI's main in this process with `env` as its whole environment. */
export async function runCli(
  argv: string[],
  env: Record<string, string>,
  signal = new AbortController().signal,
): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await main(argv, { env, stdout, stderr, signal });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

export function temporaryDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `paygate-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const T0 = Date.parse('2025-06-01T10:00:00.000Z');

/**
 * A PGlite store with two merchants' collections, a wallet and a service payment, in a known
 * order: `count` collection streams alternating merchants m1 and m2, three events each (only the
 * first names its merchant, as in the real streams), then m1's wallet and a service payment.
 */
export async function seedPgliteStore(dir: string, count = 4): Promise<void> {
  const sql = await openSqlDatabase(`pglite://${dir}`);
  const store = await SqlEventStore.create(sql);
  const event = (type: string, data: Record<string, unknown>): EventToAppend => ({
    type,
    data,
    metadata: { schemaVersion: 1 },
  });
  for (let i = 0; i < count; i++) {
    const merchantId = i % 2 === 0 ? 'm1' : 'm2';
    const internalReference = `PG${i}`;
    await store.appendToStream(`collection-${internalReference}`, [
      event('CollectionInitiated', {
        merchantId,
        internalReference,
        requestAmount: 1_000 * (i + 1),
        note: 'a, "quoted"\nline',
      }),
    ]);
    await store.appendToStream(`collection-${internalReference}`, [
      event('CollectionConfirmed', { internalReference }),
    ]);
    await store.appendToStream(`collection-${internalReference}`, [
      event('CollectionCompleted', { internalReference }),
    ]);
  }
  await store.appendToStream('wallet-m1-UGX', [event('WalletToppedUp', { merchantId: 'm1', currency: 'UGX' })]);
  await store.appendToStream('service-payment-PG0', [
    event('ServicePaymentOpened', { merchantId: 'm1', internalReference: 'PG0' }),
  ]);
  await sql.close();
}

/** JSON Lines back into objects. */
export function lines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The built CLI (`npm run build`), built here when a suite runs before it was. */
export function builtCli(): string {
  const root = join(__dirname, '..', '..');
  const cli = join(root, 'dist/apps/cli/main.js');
  if (!existsSync(cli)) {
    const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) throw new Error('npm run build failed');
  }
  return cli;
}
