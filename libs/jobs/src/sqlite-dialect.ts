import { notifyInSchema, type SqlClient } from '@paygate/sql';
import type { JobRow, JobsDialect } from './jobs-dialect';
import { JOBS_CHANNEL } from './work-queue';

/*
 * SQLite runs one statement at a time on one connection, so claims never run together: no row
 * locks to skip. Times are epoch milliseconds (INTEGER): a lease comes back as the number it was
 * stored as, and completing matches it exactly. Many rows travel as one JSON array parameter.
 * Tables: migrations.ts.
 */

/** Now in epoch ms: the same for every row of a statement, as SQLite keeps 'now' for a whole statement. */
const NOW = `cast(round(unixepoch('subsec') * 1000) as integer)`;
const SET_LEASE = `set run_at = ${NOW} + $3, lease_until = ${NOW} + $3, attempts = attempts + 1`;
const RETURNING = 'returning key, lane, payload, due_at, attempts, lease_until';

const CLAIM = `update jobs ${SET_LEASE}
  where queue = $1 and key in (select key from jobs where queue = $1 and run_at <= ${NOW} order by run_at limit $2)
  ${RETURNING}`;

/** As PostgreSQL's (postgres-dialect.ts): lanes at their cap left out of the window, each lane given the room it has left. */
const CLAIM_CAPPED = `with inflight as (
    select lane, count(*) as n from jobs where queue = $1 and lease_until is not null and lease_until > ${NOW} group by lane
  ), due as (
    select key, lane, run_at from jobs
    where queue = $1 and run_at <= ${NOW} and lane not in (select lane from inflight where n >= $5)
    order by run_at limit $4
  ), picked as (
    select d.key from (select key, lane, run_at, row_number() over (partition by lane order by run_at, key) as rn from due) d
    left join inflight i on i.lane = d.lane
    where d.rn + coalesce(i.n, 0) <= $5
    order by d.run_at limit $2
  )
  update jobs ${SET_LEASE} where queue = $1 and key in (select key from picked) ${RETURNING}`;

const NOTIFY = `select ${notifyInSchema(JOBS_CHANNEL, '$1')}`;

/**
 * Runs `statement` (a write returning `run_at`), then notifies the earliest `run_at` it wrote,
 * when it wrote any: SQLite has no writes inside WITH, so the notification is a statement of its own.
 */
async function announced(client: SqlClient, queue: string, statement: string, params: unknown[]): Promise<void> {
  const written = await client.query<{ run_at: number }>(statement, params);
  if (written.length > 0) await client.query(NOTIFY, [`${queue} ${Math.min(...written.map((row) => row.run_at))}`]);
}

export const SQLITE_DIALECT: JobsDialect = {
  async schedule(client, queue, jobs, replace) {
    // `where true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
    await announced(
      client,
      queue,
      `insert into jobs (queue, key, lane, payload, due_at, run_at)
       select $1, u.value ->> 0, u.value ->> 1, u.value ->> 2, u.value ->> 3, u.value ->> 3 from json_each($2) u where true
       on conflict (queue, key) do ${
         replace
           ? 'update set lane = excluded.lane, payload = excluded.payload, due_at = excluded.due_at, run_at = excluded.run_at, lease_until = null, attempts = 0'
           : 'nothing'
       }
       returning run_at`,
      [queue, JSON.stringify(jobs.map((job) => [job.key, job.lane, job.payload, job.runAt.getTime()]))],
    );
  },

  async cancel(client, queue, keys) {
    await client.query('delete from jobs where queue = $1 and key in (select value from json_each($2))', [
      queue,
      JSON.stringify(keys),
    ]);
  },

  async advance(client, queue, moves) {
    await announced(
      client,
      queue,
      `update jobs as j set run_at = u.at
       from (select value ->> 0 as key, value ->> 1 as at from json_each($2)) u
       where j.queue = $1 and j.key = u.key and j.run_at > u.at and (j.lease_until is null or j.lease_until <= ${NOW})
       returning run_at`,
      [queue, JSON.stringify(moves.map((move) => [move.key, move.at.getTime()]))],
    );
  },

  async claim(client, queue, { limit, leaseMs, laneCap, window }) {
    const rows =
      laneCap === undefined
        ? await client.query<JobRow>(CLAIM, [queue, limit, leaseMs])
        : await client.query<JobRow>(CLAIM_CAPPED, [queue, limit, leaseMs, window, laneCap]);
    // The payload is JSON text here, parsed where PostgreSQL's jsonb arrives parsed.
    return rows.map((row) => ({ ...row, payload: row.payload === null ? null : JSON.parse(row.payload as string) }));
  },

  async complete(client, queue, leases) {
    await client.query(
      `delete from jobs where queue = $1 and (key, lease_until) in (select value ->> 0, value ->> 1 from json_each($2))`,
      [queue, JSON.stringify(leases.map((lease) => [lease.key, lease.lease.getTime()]))],
    );
  },

  async retry(client, queue, retries) {
    await announced(
      client,
      queue,
      `update jobs as j set run_at = u.at, lease_until = null
       from (select value ->> 0 as key, value ->> 1 as lease, value ->> 2 as at from json_each($2)) u
       where j.queue = $1 and j.key = u.key and j.lease_until = u.lease
       returning run_at`,
      [queue, JSON.stringify(retries.map((retry) => [retry.key, retry.lease.getTime(), retry.at.getTime()]))],
    );
  },
};
