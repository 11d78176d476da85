import { describeOnSqlEngines } from '@paygate/testing';
import type { SqlDatabase } from '@paygate/sql';
import { SqlJobQueue } from './job-queue';
import { CLAIM, CLAIM_CAPPED } from './postgres-dialect';

const BACKLOG = 20_000;

type PlanNode = {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
};
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * The plan PostgreSQL executed for `statement`, in a transaction rolled back afterwards so the claim leaves nothing
 * behind.
 */
async function executedPlan(db: SqlDatabase, statement: string, params: unknown[]): Promise<PlanNode[]> {
  let plan: PlanNode[] = [];
  await db
    .transaction(async (tx) => {
      const [row] = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `explain (analyze, format json) ${statement}`,
        params,
      );
      plan = nodesOf(row['QUERY PLAN'][0].Plan);
      throw new Error('rolled back');
    })
    .catch((error: Error) => {
      if (error.message !== 'rolled back') throw error;
    });
  return plan;
}

/**
 * A claim must cost the same at any backlog: it reads the due end of `jobs_due` and stops after
 * its window. A sequential scan, or a sort of every due job, would grow with the queue.
 */
describeOnSqlEngines('the claim of a queue with a long backlog', 'jobs_plan', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await open());
    await SqlJobQueue.migrate(db);
    await db.query(
      `insert into jobs (queue, key, lane, due_at, run_at)
       select 'backlog', 'job-' || n, 'lane-' || (n % 10), now() - interval '1 hour', now() - (n || ' milliseconds')::interval from generate_series(1, $1::int) n`,
      [BACKLOG],
    );
    await db.query(
      `insert into jobs (queue, key, due_at, run_at) select 'other', 'job-' || n, now(), now() + interval '1 hour' from generate_series(1, $1::int) n`,
      [BACKLOG],
    );
    await db.query('analyze jobs');
  });
  afterAll(() => close?.());

  it('takes the due jobs from the claim index, reading only its window of them', async () => {
    const plan = await executedPlan(db, CLAIM, ['backlog', 50, 30_000]);
    expect(plan.some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'jobs')).toBe(false);
    const scan = plan.find((node) => node['Index Name'] === 'jobs_due');
    expect(scan).toBeDefined();
    expect(scan?.['Actual Rows']).toBeLessThanOrEqual(50);
  });

  it('with a cap per lane, still reads a window of the claim index, and what is in flight from the lease index', async () => {
    await db.query(
      `update jobs set lease_until = now() + interval '1 minute', run_at = now() + interval '1 minute' where queue = 'backlog' and key = 'job-1'`,
    );
    const plan = await executedPlan(db, CLAIM_CAPPED, ['backlog', 50, 30_000, 200, 5]);
    expect(plan.some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'jobs')).toBe(false);
    const due = plan.filter((node) => node['Index Name'] === 'jobs_due');
    expect(due.length).toBeGreaterThan(0);
    for (const scan of due) expect(scan['Actual Rows']).toBeLessThanOrEqual(200);
    expect(plan.some((node) => node['Index Name'] === 'jobs_leased')).toBe(true);
  });
});
