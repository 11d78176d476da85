import { notifyInSchema } from '@paygate/sql';
import type { JobRow, JobsDialect } from './jobs-dialect';
import { JOBS_CHANNEL } from './work-queue';

// The lease is in whole milliseconds: it comes back as a JavaScript Date, and completing matches it exactly.
const LEASE = `(select date_trunc('milliseconds', now() + $3 * interval '1 millisecond') as lease) l`;
const SET_LEASE = `set run_at = l.lease, lease_until = l.lease, attempts = j.attempts + 1`;
const RETURNING = `returning j.key, j.lane, j.payload, j.due_at, j.attempts, j.lease_until`;

/** Every claim of any queue but one that caps lanes: the due end of `jobs_due`, skipping rows another claim holds. */
export const CLAIM = `update jobs j ${SET_LEASE}
  from (select key from jobs where queue = $1 and run_at <= now() order by run_at limit $2 for update skip locked) due, ${LEASE}
  where j.queue = $1 and j.key = due.key ${RETURNING}`;

/**
 * A claim that keeps each lane under its cap: lanes already at the cap are left out of the window
 * (what is in flight is read from `jobs_leased`, as small as the jobs in flight), and within the
 * window each lane takes only the room it has left.
 */
export const CLAIM_CAPPED = `with inflight as (
    select lane, count(*)::int as n from jobs where queue = $1 and lease_until > now() and lease_until is not null group by lane
  ), due as (
    select key, lane, run_at from jobs
    where queue = $1 and run_at <= now() and not (lane = any(array(select lane from inflight where n >= $5)))
    order by run_at limit $4 for update skip locked
  ), picked as (
    select d.key from (select key, lane, run_at, row_number() over (partition by lane order by run_at, key) as rn from due) d
    left join inflight i on i.lane = d.lane
    where d.rn + coalesce(i.n, 0) <= $5
    order by d.run_at limit $2
  )
  update jobs j ${SET_LEASE} from picked, ${LEASE}
  where j.queue = $1 and j.key = picked.key ${RETURNING}`;

const iso = (date: Date) => date.toISOString();

/**
 * `rows` (a data-modifying statement returning `run_at`) with a notification of the earliest
 * `run_at` it wrote, when it wrote any: delivered at commit, so the worker that hears it finds
 * the job.
 */
const announced = (rows: string) =>
  `with written as (${rows} returning run_at)
   select ${notifyInSchema(JOBS_CHANNEL, `$1 || ' ' || (extract(epoch from min(run_at)) * 1000)::bigint::text`)}
   from written having count(*) > 0`;

/** PostgreSQL's and PGlite's statements: arrays for many rows, `skip locked` for claims running together. */
export const POSTGRES_DIALECT: JobsDialect = {
  async schedule(client, queue, jobs, replace) {
    await client.query(
      announced(`insert into jobs (queue, key, lane, payload, due_at, run_at)
       select $1, u.key, u.lane, u.payload::jsonb, u.run_at, u.run_at from unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) as u(key, lane, payload, run_at)
       on conflict (queue, key) do ${
         replace
           ? 'update set lane = excluded.lane, payload = excluded.payload, due_at = excluded.due_at, run_at = excluded.run_at, lease_until = null, attempts = 0'
           : 'nothing'
       }`),
      [
        queue,
        jobs.map((job) => job.key),
        jobs.map((job) => job.lane),
        jobs.map((job) => job.payload),
        jobs.map((job) => iso(job.runAt)),
      ],
    );
  },

  async cancel(client, queue, keys) {
    await client.query('delete from jobs where queue = $1 and key = any($2::text[])', [queue, keys]);
  },

  async advance(client, queue, moves) {
    await client.query(
      announced(`update jobs j set run_at = u.at
       from unnest($2::text[], $3::timestamptz[]) as u(key, at)
       where j.queue = $1 and j.key = u.key and j.run_at > u.at and (j.lease_until is null or j.lease_until <= now())`),
      [queue, moves.map((move) => move.key), moves.map((move) => iso(move.at))],
    );
  },

  claim: (client, queue, { limit, leaseMs, laneCap, window }) =>
    laneCap === undefined
      ? client.query<JobRow>(CLAIM, [queue, limit, leaseMs])
      : client.query<JobRow>(CLAIM_CAPPED, [queue, limit, leaseMs, window, laneCap]),

  async complete(client, queue, leases) {
    await client.query(
      `delete from jobs j using unnest($2::text[], $3::timestamptz[]) as u(key, lease)
       where j.queue = $1 and j.key = u.key and j.lease_until = u.lease`,
      [queue, leases.map((lease) => lease.key), leases.map((lease) => iso(lease.lease))],
    );
  },

  async retry(client, queue, retries) {
    await client.query(
      announced(`update jobs j set run_at = u.at, lease_until = null
       from unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as u(key, lease, at)
       where j.queue = $1 and j.key = u.key and j.lease_until = u.lease`),
      [
        queue,
        retries.map((retry) => retry.key),
        retries.map((retry) => iso(retry.lease)),
        retries.map((retry) => iso(retry.at)),
      ],
    );
  },
};
