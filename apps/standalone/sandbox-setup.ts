import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CONFIG_SCHEMA, readSetting, standaloneDefaults, withDefaults, type Env } from '@paygate/config';
import { SecretBox, type DashboardUsers, type MerchantAccounts, type MerchantKeys } from '@paygate/merchants';

/** What standalone keeps under ./data so a restart finds the same token and demo merchant. */
interface SandboxFile {
  admin_token?: string;
  demo_merchant?: { id: string } & Partial<{ public_key: string; secret_key: string; signing_key: string }>;
  /** The demo merchant's dashboard owner: a sandbox convenience, kept beside its keys. */
  demo_owner?: { email: string; password: string };
}

export interface SandboxSecrets {
  adminTokenSource: 'ADMIN_TOKEN' | string;
  file: string;
}

function readSandboxFile(file: string): SandboxFile {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SandboxFile) : {};
}

function writePrivate(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * Standalone needs no setup: when MASTER_KEY or ADMIN_TOKEN are unset it generates them once
 * and keeps them in the data directory (master.key, sandbox.json), readable only by the owner.
 * Returns the variables to fill in; `env` is not changed.
 */
export function prepareSandboxSecrets(
  dataDir: string,
  env: Env,
): SandboxSecrets & { generated: Record<string, string> } {
  mkdirSync(dataDir, { recursive: true });
  const generated: Record<string, string> = {};
  if (!env.MASTER_KEY) {
    const keyFile = join(dataDir, 'master.key');
    if (!existsSync(keyFile)) writePrivate(keyFile, `${SecretBox.generateMasterKey()}\n`);
    generated.MASTER_KEY = readFileSync(keyFile, 'utf8').trim();
  }
  const file = join(dataDir, 'sandbox.json');
  const sandbox = readSandboxFile(file);
  let adminTokenSource = 'ADMIN_TOKEN';
  if (!env.ADMIN_TOKEN) {
    sandbox.admin_token ??= `adm_${randomBytes(24).toString('base64url')}`;
    writePrivate(file, `${JSON.stringify(sandbox, null, 2)}\n`);
    generated.ADMIN_TOKEN = sandbox.admin_token;
    adminTokenSource = file;
  }
  return { adminTokenSource, file, generated };
}

/**
 * The environment standalone starts from, stated before the one loadConfig: `env` as given, and
 * where a variable is unset, the sandbox's generated MASTER_KEY and ADMIN_TOKEN (under DATA_DIR)
 * and the schema's standalone defaults (ALLOW_PRIVATE_CALLBACKS=true: callbacks to localhost
 * receivers are the point of a sandbox on one machine).
 */
export function standaloneEnvironment(env: Env): { env: Env; secrets: SandboxSecrets } {
  const { generated, ...secrets } = prepareSandboxSecrets(readSetting(CONFIG_SCHEMA.standalone.dataDir, env), env);
  return { env: withDefaults(env, { ...standaloneDefaults(), ...generated }), secrets };
}

/** The demo merchant created at first start, found again on later starts. */
export async function ensureDemoMerchant(
  merchants: MerchantAccounts,
  file: string,
): Promise<{ id: string; keys: MerchantKeys }> {
  const sandbox = readSandboxFile(file);
  const known = sandbox.demo_merchant && (await merchants.keys(sandbox.demo_merchant.id));
  if (sandbox.demo_merchant && known) return { id: sandbox.demo_merchant.id, keys: known };
  const { merchant, keys } = await merchants.create({ name: 'Demo merchant' });
  sandbox.demo_merchant = {
    id: merchant.id,
    public_key: keys.publicKey,
    secret_key: keys.secretKey,
    signing_key: keys.signingKey,
  };
  writePrivate(file, `${JSON.stringify(sandbox, null, 2)}\n`);
  return { id: merchant.id, keys };
}

/**
 * The demo merchant's dashboard owner (an email of its own per demo merchant), created with a
 * generated password at first start and found again later; without a password when the user
 * exists but the file lost it (then the printed line says so rather than the start failing).
 */
export async function ensureDemoOwner(
  users: DashboardUsers,
  merchantId: string,
  file: string,
): Promise<{ email: string; password?: string }> {
  const email = `owner-${merchantId.replace(/^mer_/, '').toLowerCase()}@demo.paygate.test`;
  const sandbox = readSandboxFile(file);
  const existing = (await users.list(merchantId)).find((user) => user.email === email && user.active);
  if (existing) return sandbox.demo_owner?.email === email ? sandbox.demo_owner : { email };
  const password = randomBytes(12).toString('base64url');
  const invited = await users.invite(merchantId, email, 'owner');
  if (!invited || !(await users.acceptInvite(invited.inviteToken, password))) return { email };
  sandbox.demo_owner = { email, password };
  writePrivate(file, `${JSON.stringify(sandbox, null, 2)}\n`);
  return sandbox.demo_owner;
}
