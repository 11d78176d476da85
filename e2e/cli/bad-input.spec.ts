/**
 * Bad input and an unreachable store: the CLI exits non-zero with one line on stderr, writes
 * nothing to stdout, and never shows a credential.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { runCli, temporaryDir } from './cli-test-setup';

function expectOneLine(run: { code: number; stdout: string; stderr: string }, code: number, line: string | RegExp) {
  expect(run.code).toBe(code);
  expect(run.stdout).toBe('');
  expect(run.stderr.endsWith('\n')).toBe(true);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  if (typeof line === 'string') expect(run.stderr).toBe(`${line}\n`);
  else expect(run.stderr).toMatch(line);
}

describe('paygate with bad input', () => {
  const dir = temporaryDir('bad-input');
  const env = { STORE_URL: `pglite://${join(dir.path, 'never-created')}` };
  afterAll(() => dir.remove());

  it.each<[string, string[], string]>([
    [
      'an unknown command',
      ['events', 'exprot'],
      'paygate: unknown command "events exprot" (paygate --help lists them)',
    ],
    [
      'an unknown option',
      ['events', 'export', '--bogus'],
      `paygate: events export: Unknown option '--bogus' (see paygate events export --help)`,
    ],
    [
      'an option without its value',
      ['events', 'export', '--after'],
      `paygate: events export: Option '--after <value>' argument missing (see paygate events export --help)`,
    ],
    [
      'a stray argument',
      ['events', 'export', 'everything'],
      `paygate: events export: Unexpected argument 'everything' (see paygate events export --help)`,
    ],
    [
      'a position that is not one',
      ['events', 'export', '--after', 'yesterday'],
      'paygate: --after "yesterday" is not a position (two numbers such as 1234/5678, as printed by an export)',
    ],
    [
      'an empty position range',
      ['events', 'export', '--after', '900/12', '--through', '900/3'],
      'paygate: empty position range: --after 900/12 is not before --through 900/3',
    ],
    [
      'an empty time range',
      ['events', 'export', '--since', '2025-06-02T00:00:00Z', '--until', '2025-06-01T00:00:00Z'],
      'paygate: empty time range: --since 2025-06-02T00:00:00.000Z is not before --until 2025-06-01T00:00:00.000Z',
    ],
    [
      'a time that is not one',
      ['events', 'export', '--since', 'last tuesday'],
      'paygate: --since "last tuesday" is not an ISO 8601 time (such as 2025-06-01T00:00:00Z)',
    ],
    ['a limit of zero', ['events', 'export', '--limit', '0'], 'paygate: --limit "0" is not a positive whole number'],
    [
      'an unknown format',
      ['events', 'export', '--format', 'xlsx'],
      'paygate: --format "xlsx" is not one of jsonl, csv, parquet',
    ],
    ['a replay without --to', ['events', 'replay'], 'paygate: events replay needs --to kafka://host:port'],
    [
      'a replay to something not Kafka',
      ['events', 'replay', '--to', 'http://127.0.0.1:9092'],
      'paygate: --to "http://127.0.0.1:9092" is not a Kafka URL (kafka://host:port[,host:port] or kafkas://…)',
    ],
    [
      'Parquet to stdout',
      ['events', 'export', '--format', 'parquet'],
      'paygate: --format parquet needs --output <file>',
    ],
  ])('%s: exit 2 and one line', async (_what, argv, line) => {
    expectOneLine(await runCli(argv, env), 2, line);
  });

  it('a PGlite directory with no database: exit 1, and none is created', async () => {
    expectOneLine(
      await runCli(['events', 'export'], env),
      1,
      `paygate: no PGlite database at ${join(dir.path, 'never-created')} (STORE_URL=pglite://${join(dir.path, 'never-created')})`,
    );
    expect(existsSync(join(dir.path, 'never-created'))).toBe(false);
  });

  it('a bad STORE_URL: exit 2 with the configuration’s own message', async () => {
    expectOneLine(
      await runCli(['events', 'export'], { STORE_URL: 'mysql://db/x' }),
      2,
      /^paygate: invalid configuration: STORE_URL /,
    );
  });

  describe('a store that does not answer', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      // A listener of this test's own that hangs up on every connection: not a database.
      server = createServer((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('exit 1, one line naming the store without its password', async () => {
      const run = await runCli(['events', 'export'], {
        STORE_URL: `postgres://analyst:s3cret-pw@127.0.0.1:${port}/paygate`,
      });
      expectOneLine(
        run,
        1,
        new RegExp(`^paygate: cannot open the store postgres://\\*\\*\\*@127\\.0\\.0\\.1:${port}/paygate: .+`),
      );
      expect(run.stderr).not.toContain('s3cret-pw');
    });
  });
});
