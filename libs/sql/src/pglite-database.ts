import { mkdirSync } from 'node:fs';
import { oneConnectionQueue, TRANSACTION_SQL } from './one-connection-queue';
import type { SqlDatabase } from './sql-database';

export interface PgliteOptions {
  /** The longest the adapter keeps the event loop in statements before it lets timers and I/O run; default 5 ms. */
  turnBudgetMs?: number;
}

/** `dataDir` undefined keeps the database in memory (tests). */
export async function openPglite(
  dataDir: string | undefined,
  { turnBudgetMs = 5 }: PgliteOptions = {},
): Promise<SqlDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = new PGlite(dataDir);
  await db.waitReady;

  // PGlite runs one statement at a time: the queue orders them (one-connection-queue.ts).
  const queue = oneConnectionQueue(
    {
      dialect: 'postgres',
      query: async <Row>(text: string, params?: unknown[]) => (await db.query<Row>(text, params)).rows,
      step: async (step) => void (await db.exec(TRANSACTION_SQL[step])),
    },
    turnBudgetMs,
  );

  return {
    engine: 'pglite',
    ...queue.database,
    // Delivered in this process after the commit; the one connection is never lost. LISTEN waits
    // its turn: inside a queued transaction it would take effect only with that one's commit.
    listen: async (channel, onNotify) => {
      const stop = await queue.after(() => db.listen(channel, onNotify));
      return () => queue.after(() => stop());
    },
    close: () => db.close(),
  };
}
