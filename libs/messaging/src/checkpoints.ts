import { migrate, type SqlDatabase } from '@paygate/sql';
import { MESSAGING_MIGRATIONS } from './migrations';

/** Consumer and relay positions, kept in STORE_URL whichever event store is used. */
export class CheckpointStore {
  private constructor(private readonly db: SqlDatabase) {}

  static async create(db: SqlDatabase): Promise<CheckpointStore> {
    await migrate(db, MESSAGING_MIGRATIONS);
    return new CheckpointStore(db);
  }

  async load(name: string): Promise<string | null> {
    const rows = await this.db.query<{ position: string }>(
      'select position from messaging_checkpoints where name = $1',
      [name],
    );
    return rows[0]?.position ?? null;
  }

  async save(name: string, position: string): Promise<void> {
    // The time comes from here: one statement for every engine, SQLite having no time type.
    await this.db.query(
      `insert into messaging_checkpoints (name, position, updated_at) values ($1, $2, $3)
       on conflict (name) do update set position = excluded.position, updated_at = excluded.updated_at`,
      [name, position, new Date().toISOString()],
    );
  }
}
