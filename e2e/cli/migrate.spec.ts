import { openSqlDatabase } from '@paygate/sql';
import { runCli, temporaryDir } from './cli-test-setup';
import { paygateMigrations } from '@paygate/cli';

const lines = (text: string) => text.split('\n').filter(Boolean);

describe('paygate migrate', () => {
  let dir: ReturnType<typeof temporaryDir>;
  beforeEach(() => {
    dir = temporaryDir('migrate');
  });
  afterEach(() => dir.remove());

  it('applies what STORE_URL lacks and says what it did; the sandbox tables only with --sandbox', async () => {
    const env = { STORE_URL: `pglite://${dir.path}` };
    const core = paygateMigrations({ eventsInSql: true, sandbox: false });

    const first = await runCli(['migrate'], env);
    expect(first.code).toBe(0);
    expect(lines(first.stdout)).toEqual([
      ...core.map((m) => `applied ${m.id}`),
      `${core.length} applied, 0 already in place`,
    ]);
    expect(first.stderr).toBe('');
    expect(first.stdout).not.toContain('sandbox/');

    expect(await runCli(['migrate'], env)).toEqual({
      code: 0,
      stdout: `0 applied, ${core.length} already in place\n`,
      stderr: '',
    });
    expect(await runCli(['migrate', '--sandbox'], env)).toEqual({
      code: 0,
      stdout:
        'applied sandbox/0001_momo_card_and_biller\napplied sandbox/0002_money_out\n' +
        `2 applied, ${core.length} already in place\n`,
      stderr: '',
    });
  });

  it('exits 1 with one line when an applied migration was changed, and applies nothing', async () => {
    const env = { STORE_URL: `pglite://${dir.path}` };
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const db = await openSqlDatabase(env.STORE_URL);
    await db.query("update schema_migrations set checksum = 'f00d' || checksum where owner = 'merchants'");
    await db.close();

    const drifted = await runCli(['migrate', '--sandbox'], env);
    expect(drifted.code).toBe(1);
    expect(drifted.stdout).toBe('');
    expect(drifted.stderr).toMatch(
      /^paygate: migration merchants\/0001_merchants differs from the one applied to this database \(checksum f00d[0-9a-f]{8}, this release [0-9a-f]{12}\): restore it and put the change in a new migration\n$/,
    );
    const after = await openSqlDatabase(env.STORE_URL);
    expect(await after.query("select 1 from schema_migrations where owner = 'sandbox'")).toEqual([]);
    await after.close();
  });

  it('leaves the event tables out when events live in EVENT_STORE_URL', async () => {
    const run = await runCli(['migrate'], {
      STORE_URL: `pglite://${dir.path}`,
      EVENT_STORE_URL: 'kurrentdb://127.0.0.1:2113?tls=false',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('applied messaging/0001_checkpoints');
    expect(run.stdout).not.toContain('event-store/');
  });

  it('answers a wrong command line or a bad variable with one line, before opening anything', async () => {
    expect(await runCli(['migrate', '--dry-run'], {})).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^paygate: migrate: .*'--dry-run'.* \(see paygate migrate --help\)\n$/),
    });
    expect(await runCli(['migrate'], { STORE_URL: 'mysql://db/paygate' })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'paygate: invalid configuration: STORE_URL must be pglite://<dir> or postgres://…, got "mysql://db/paygate"\n',
    });
    const help = await runCli(['--help'], {});
    expect(help.stdout).toContain('migrate');
  });
});
