import { mkdirSync } from 'node:fs';
import { oneConnectionQueue, SAVEPOINT_SQL } from './one-connection-queue';
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

  const rows = async <Row>(client: { query: typeof db.query }, text: string, params?: unknown[]) =>
    (await client.query<Row>(text, params)).rows;
  // PGlite runs one statement at a time: the queue orders them (one-connection-queue.ts).
  const queue = oneConnectionQueue(
    {
      dialect: 'postgres',
      query: (text, params) => rows(db, text, params),
      transaction: (work) =>
        db.transaction((tx) =>
          work({
            query: (text, params) => rows(tx, text, params),
            step: async (step) => void (await tx.exec(SAVEPOINT_SQL[step])),
          }),
        ),
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
