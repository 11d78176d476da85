import { defineMigrations, SQLITE_NOW } from '@paygate/sql';

/** Consumer and relay positions (CheckpointStore). */
export const MESSAGING_MIGRATIONS = defineMigrations('messaging', [
  {
    name: '0001_checkpoints',
    statements: [
      `create table if not exists messaging_checkpoints (
         name text primary key,
         position text not null,
         updated_at timestamptz not null default now()
       )`,
    ],
    sqlite: [
      `create table messaging_checkpoints (
         name text primary key,
         position text not null,
         updated_at text not null default (${SQLITE_NOW})
       )`,
    ],
  },
]);
