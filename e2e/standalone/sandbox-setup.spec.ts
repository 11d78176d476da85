import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@paygate/config';
import { DashboardUsers, MerchantAccounts, SecretBox } from '@paygate/merchants';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { TEST_ADMIN_TOKEN, TEST_MASTER_KEY } from '@paygate/testing';
import { ensureDemoMerchant, ensureDemoOwner, standaloneEnvironment } from '@paygate/standalone';

describe('standaloneEnvironment: what standalone fills in before the one loadConfig', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'paygate-standalone-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('generates MASTER_KEY and ADMIN_TOKEN once under DATA_DIR and allows private callbacks', () => {
    const given = { DATA_DIR: dataDir };
    const { env, secrets } = standaloneEnvironment(given);
    expect(given).toEqual({ DATA_DIR: dataDir });
    expect(env.MASTER_KEY).toBe(readFileSync(join(dataDir, 'master.key'), 'utf8').trim());
    expect(env.ADMIN_TOKEN).toBe(JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')).admin_token);
    expect(secrets).toEqual({ adminTokenSource: join(dataDir, 'sandbox.json'), file: join(dataDir, 'sandbox.json') });
    const config = loadConfig(env);
    expect(config.delivery.allowPrivate).toBe(true);
    expect(config.merchants.masterKey?.reveal()).toBe(env.MASTER_KEY);

    const again = standaloneEnvironment(given).env;
    expect([again.MASTER_KEY, again.ADMIN_TOKEN]).toEqual([env.MASTER_KEY, env.ADMIN_TOKEN]);
  });

  it('keeps what the environment sets', () => {
    const { env, secrets } = standaloneEnvironment({
      DATA_DIR: dataDir,
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      ALLOW_PRIVATE_CALLBACKS: 'false',
    });
    expect(env).toMatchObject({
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      ALLOW_PRIVATE_CALLBACKS: 'false',
    });
    expect(secrets.adminTokenSource).toBe('ADMIN_TOKEN');
    expect(loadConfig(env).delivery.allowPrivate).toBe(false);
  });

  it('listens on loopback only, unless HOST says otherwise; a distributed app listens on every interface', () => {
    expect(loadConfig(standaloneEnvironment({ DATA_DIR: dataDir }).env).platform.host).toBe('127.0.0.1');
    expect(loadConfig(standaloneEnvironment({ DATA_DIR: dataDir, HOST: '0.0.0.0' }).env).platform.host).toBe('0.0.0.0');
    expect(loadConfig({}).platform.host).toBe('0.0.0.0');
    expect(() => loadConfig({ HOST: 'every-interface' })).toThrow(/HOST.*must be an IP address/);
  });
});

describe('the demo owner: the dashboard sign-in npm start prints', () => {
  let dataDir: string;
  let db: SqlDatabase;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paygate-standalone-'));
    db = await openSqlDatabase('pglite://memory');
  });
  afterEach(async () => {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is created once with a generated password kept in sandbox.json, which signs in', async () => {
    const file = join(dataDir, 'sandbox.json');
    const merchants = await MerchantAccounts.open(db, SecretBox.fromMasterKey(TEST_MASTER_KEY));
    const users = await DashboardUsers.open(db);
    const demo = await ensureDemoMerchant(merchants, file);
    const owner = await ensureDemoOwner(users, demo.id, file);
    expect(owner).toEqual({
      email: expect.stringMatching(/^owner-[a-z0-9]{16}@demo\.paygate\.test$/),
      password: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
    });
    expect(JSON.parse(readFileSync(file, 'utf8')).demo_owner).toEqual(owner);
    expect(await ensureDemoOwner(users, demo.id, file)).toEqual(owner);
    expect(await users.signIn(owner.email, owner.password!)).toMatchObject({
      user: {
        merchantId: demo.id,
        role: 'owner',
      },
    });

    // The file lost (the database kept): the start goes on and says so, with no password to print.
    rmSync(file);
    expect(await ensureDemoOwner(users, demo.id, file)).toEqual({ email: owner.email });
  });
});
