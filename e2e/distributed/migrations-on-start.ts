import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { postgresUrlInSchema } from '@paygate/sql';
import { describeWithService, dropSchemas, eventually, uniqueSchema } from '@paygate/testing';
import { ensureBuilt, startApp, type AppProcess } from './processes';

const root = join(__dirname, '..', '..');

/** `paygate migrate` as the Helm hook Job runs it: the built CLI in its own process. */
function paygateMigrate(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(root, 'dist/apps/cli/main.js'), 'migrate'], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Migrations when built apps start on PostgreSQL; declared by distributed.spec.ts, which always has tests of its own.
 */
export function migrationsOnStartSuite(): void {
  describeWithService('postgres', 'migrations when apps start (built apps, PostgreSQL)', (url) => {
    const schemas: string[] = [];
    const apps: AppProcess[] = [];
    const freshStore = () => {
      const schema = uniqueSchema('migrations_e2e');
      schemas.push(schema);
      return postgresUrlInSchema(url, schema);
    };

    beforeAll(() => ensureBuilt());
    afterEach(async () => {
      for (const app of apps.splice(0)) await app.stop();
    });
    afterAll(async () => {
      await dropSchemas(url, schemas);
    });

    it('with MIGRATE_ON_START=false an app waits unready, in one log line, for the database `paygate migrate` has not prepared, and serves once it has', async () => {
      const env = { STORE_URL: freshStore(), BROKER_URL: 'inproc://', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn' };
      const waiting = await startApp('collections', env, undefined, { until: 'live' });
      apps.push(waiting);
      const ready = await eventually(
        async () => {
          const response = await fetch(`${waiting.url}/health/ready`);
          const body = (await response.json()) as { data?: { waiting_for?: string[] } };
          return body.data?.waiting_for?.length
            ? { status: response.status, waitingFor: body.data.waiting_for }
            : undefined;
        },
        30_000,
        'the app to say what it waits for',
      );
      expect(ready).toEqual({ status: 503, waitingFor: ['the event store (STORE_URL)'] });
      const lines = () =>
        waiting
          .output()
          .split('\n')
          .filter((line) => line.includes('"message":"waiting for the event store (STORE_URL)"'));
      await eventually(() => (lines().length > 0 ? true : undefined), 30_000, 'the waiting line');
      expect(lines()).toHaveLength(1);
      expect(JSON.parse(lines()[0])).toMatchObject({
        reason:
          'the database lacks migration event-store/0001_streams_and_events: run "paygate migrate" first (MIGRATE_ON_START is false)',
      });

      const migrated = paygateMigrate({ STORE_URL: env.STORE_URL });
      expect(migrated).toMatchObject({ status: 0, stderr: '' });
      expect(migrated.stdout).toMatch(
        /^applied event-store\/0001_streams_and_events\n[\s\S]*\n\d+ applied, 0 already in place\n$/,
      );

      await eventually(
        async () => ((await fetch(`${waiting.url}/health/ready`)).ok ? true : undefined),
        30_000,
        'the app to turn ready after paygate migrate',
      );
      expect(lines()).toHaveLength(1);
    });

    it('apps starting together on a fresh database all start, leaving none of their migrations to `paygate migrate`', async () => {
      const env = { STORE_URL: freshStore(), BROKER_URL: 'inproc://', LOG_LEVEL: 'error' };
      apps.push(
        ...(await Promise.all([
          startApp('collections', env),
          startApp('collections', env),
          startApp('service-payments', env),
        ])),
      );

      const after = paygateMigrate({ STORE_URL: env.STORE_URL });
      expect(after.status).toBe(0);
      // What the apps applied, the CLI finds in place: collections, payments and the shared tables.
      expect(after.stdout).not.toMatch(/applied (event-store|messaging|collections|payments)\//);
    });
  });
}
