import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@paygate/config';
import { freePort } from '@paygate/net-guard';
import { describeWithService, issueTestCertificates } from '@paygate/testing';
import { openSqlDatabase } from './open-sql-database';
import type { SqlDatabase } from './sql-database';

/*
 * Issue #26: "TLS and SASL where the data flows". A PostgreSQL cluster of the suite's own
 * (initdb + pg_ctl on a free loopback port, server certificate from scripts/certs.sh) that takes
 * TLS connections only: Paygate's store opens it with sslmode=verify-full and the CA file, a
 * client trusting another CA is refused, and so is a connection without TLS.
 */

/** PostgreSQL's server programs: PG_BIN, or the newest Debian install. */
function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = versions
    .map((version) => `/usr/lib/postgresql/${version}/bin`)
    .find((dir) => existsSync(join(dir, 'pg_ctl')));
  if (!bin) throw new Error('no PostgreSQL server programs in /usr/lib/postgresql/*/bin: set PG_BIN');
  return bin;
}

/** PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user. */
const asRoot = userInfo().uid === 0;

function run(command: string, args: string[]): void {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stdout}${result.stderr}`);
}

/** Hands `path` (and what is under it) to the cluster's user, so the server can read its files. */
function giveToServer(path: string): void {
  if (!asRoot) return;
  const owner = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  const [uid, gid] = [Number(owner.stdout), Number(group.stdout)];
  const walk = (entry: string) => {
    chownSync(entry, uid, gid);
    if (!entry.endsWith('.crt') && !entry.endsWith('.key') && !entry.endsWith('password'))
      readdirSync(entry).forEach((name) => walk(join(entry, name)));
  };
  walk(path);
}

describeWithService('postgres', 'PostgreSQL over TLS (a cluster of its own that requires TLS)', () => {
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const bin = postgresBin();
  let dir: string;
  let data: string;
  let port: number;
  let started = false;
  const opened: SqlDatabase[] = [];

  const url = (params: string) => `postgres://paygate:${password}@127.0.0.1:${port}/postgres?${params}`;
  const failureOf = (promise: Promise<SqlDatabase>) =>
    promise.then(
      (db) => {
        opened.push(db);
        return undefined;
      },
      (error: unknown) => error as Error,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-postgres-tls-'));
    chmodSync(dir, 0o755);
    issueTestCertificates({ dir: join(dir, 'server'), names: ['DNS:localhost', 'IP:127.0.0.1'] });
    issueTestCertificates({ dir: join(dir, 'other'), names: ['DNS:localhost', 'IP:127.0.0.1'] });
    data = join(dir, 'data');
    writeFileSync(join(dir, 'password'), password, { mode: 0o600 });
    // The server's copy of its key: owned by the server's user, mode 600, as PostgreSQL demands.
    copyFileSync(join(dir, 'server/tls.key'), join(dir, 'server.key'));
    copyFileSync(join(dir, 'server/tls.crt'), join(dir, 'server.crt'));
    chmodSync(join(dir, 'server.key'), 0o600);
    giveToServer(dir);
    port = await freePort();
    run(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'paygate',
      `--pwfile=${join(dir, 'password')}`,
      '--auth=scram-sha-256',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        'ssl = on',
        `ssl_cert_file = '${join(dir, 'server.crt')}'`,
        `ssl_key_file = '${join(dir, 'server.key')}'`,
        'max_connections = 20',
        'fsync = off',
        '',
      ].join('\n'),
    );
    // TLS or nothing over TCP: a connection without it meets the reject line.
    writeFileSync(
      join(data, 'pg_hba.conf'),
      [
        'local all all scram-sha-256',
        'hostssl all all 127.0.0.1/32 scram-sha-256',
        'hostnossl all all 127.0.0.1/32 reject',
        '',
      ].join('\n'),
    );
    run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    started = true;
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(opened.map((db) => db.close()));
    if (started) run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("opens Paygate's store with sslmode=verify-full and the CA file, over TLS, in a schema of its own", async () => {
    const storeUrl = url(`schema=tls_store&sslmode=verify-full&sslrootcert=${join(dir, 'server/ca.crt')}`);
    // The URL as the apps take it: checked by the configuration, then opened by the store.
    const config = loadConfig({ STORE_URL: storeUrl });
    const db = await openSqlDatabase(config.platform.storeUrl, { maxConnections: 2 });
    opened.push(db);
    await db.transaction(async (tx) => {
      await tx.query('create table if not exists checked (id int primary key)');
      await tx.query('insert into checked (id) values ($1)', [1]);
    });
    expect(await db.query('select id from checked')).toEqual([{ id: 1 }]);
    expect(await db.query('select current_schema() as schema')).toEqual([{ schema: 'tls_store' }]);
    const [session] = await db.query<{ ssl: boolean; version: string }>(
      'select ssl, version from pg_stat_ssl where pid = pg_backend_pid()',
    );
    expect(session.ssl).toBe(true);
    expect(session.version).toMatch(/^TLSv1\.[23]$/);
  });

  it('refuses the server when the CA file is another CA, without printing the password', async () => {
    const error = await failureOf(
      openSqlDatabase(url(`sslmode=verify-full&sslrootcert=${join(dir, 'other/ca.crt')}`), { maxConnections: 1 }),
    );
    expect(error?.message).toMatch(/self[- ]signed|unable to verify|local issuer/);
    expect(`${error?.message} ${String(error?.stack)}`).not.toContain(password);
  });

  it('refuses the server with verify-full and no CA file: the public CAs do not know the private one', async () => {
    const error = await failureOf(openSqlDatabase(url('sslmode=verify-full'), { maxConnections: 1 }));
    expect(error?.message).toMatch(/self[- ]signed|unable to verify|local issuer/);
  });

  it('is refused by the server without TLS', async () => {
    const error = await failureOf(openSqlDatabase(url('sslmode=disable'), { maxConnections: 1 }));
    expect(error?.message).toMatch(/pg_hba\.conf rejects connection .*no encryption/);
    expect(`${error?.message} ${String(error?.stack)}`).not.toContain(password);
  });
});
