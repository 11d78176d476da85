import type { SqlClient, SqlDatabase } from './sql-database';

/*
 * Notifications tell other processes that there is work: a NOTIFY is delivered once what sent it
 * commits, never before, so a listener that looks at once finds what it was told about. Channels
 * are per database while tables are per schema, so the payload starts with the schema and a
 * listener hears only its own.
 */

/** The SQL expression to put in a statement: notifies `channel` with `payloadSql` (a text expression). */
export function notifyInSchema(channel: string, payloadSql: string): string {
  return `pg_notify('${channel}', current_schema() || ' ' || (${payloadSql}))`;
}

/**
 * Notifies `channel` after commits, in a statement of its own. PostgreSQL serialises the commits
 * of transactions that sent a NOTIFY (a lock held through each commit's flush), which held 16
 * concurrent appenders to a quarter of their INSERT rate; a NOTIFY on its own commits nothing to
 * flush. One is in flight at a time, and the commits announced while it is share the next one.
 */
export class CommitAnnouncer {
  private sending = false;
  private again = false;
  private readonly statement: string;

  constructor(
    private readonly db: SqlClient,
    channel: string,
    private readonly payload: string,
    /** A notification not sent: listeners find the work at their fallback poll instead. */
    private readonly onError: (error: unknown) => void,
  ) {
    this.statement = `select ${notifyInSchema(channel, '$1::text')}`;
  }

  /** After a commit: the listeners will be told, once for this commit and any others until then. */
  announce(): void {
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = true;
    void this.send();
  }

  private async send(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.db.query(this.statement, [this.payload]);
      } while (this.again);
    } catch (error) {
      this.onError(error);
    } finally {
      this.sending = false;
    }
  }
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
