import type { SqlDatabase } from './sql-database';

/*
 * Notifications carried by the statements that cause work: a NOTIFY sent inside a transaction is
 * delivered when it commits, never before, so a listener that looks at once finds what it was told
 * about. Channels are per database while tables are per schema, so the payload starts with the
 * schema and a listener hears only its own.
 */

/** The SQL expression to put in a statement: notifies `channel` with `payloadSql` (a text expression). */
export function notifyInSchema(channel: string, payloadSql: string): string {
  return `pg_notify('${channel}', current_schema() || ' ' || (${payloadSql}))`;
}

/** Listens on `channel` for this handle's schema: `onNotify` gets the payload after the schema, or undefined to look again. */
export async function listenInSchema(
  db: SqlDatabase,
  channel: string,
  onNotify: (payload: string | undefined) => void,
): Promise<() => Promise<void>> {
  const [{ schema }] = await db.query<{ schema: string }>('select current_schema() as schema');
  const prefix = `${schema} `;
  return db.listen(channel, (payload) => {
    if (payload === undefined) onNotify(undefined);
    else if (payload.startsWith(prefix)) onNotify(payload.slice(prefix.length));
  });
}
