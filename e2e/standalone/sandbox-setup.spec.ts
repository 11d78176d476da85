import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@paygate/config';
import { TEST_ADMIN_TOKEN, TEST_MASTER_KEY } from '@paygate/testing';
import { standaloneEnvironment } from '@paygate/standalone';

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
});
