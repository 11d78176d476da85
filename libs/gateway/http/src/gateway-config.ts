import { PROVIDER_CATALOGUE_SETTING, parseProviderCatalogue, type ProviderCatalogue } from '@paygate/collections-domain';
import { SecretBox } from '@paygate/merchants';
import { ConfigError, readJsonConfigFile } from '@paygate/platform';

type Env = Record<string, string | undefined>;

export interface GatewayConfig {
  catalogue: ProviderCatalogue;
  /** Bearer token of the admin API; unset disables it. */
  adminToken?: string;
  secretBox: SecretBox;
}

export function readGatewayConfig(env: Env = process.env): GatewayConfig {
  const masterKey = env.MASTER_KEY;
  if (!masterKey) throw new ConfigError('MASTER_KEY', 'must be set (32 bytes as 64 hex characters or base64): it encrypts merchant secrets at rest');
  let secretBox: SecretBox;
  try {
    secretBox = SecretBox.fromMasterKey(masterKey);
  } catch (error) {
    throw new ConfigError('MASTER_KEY', (error as Error).message);
  }
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  return {
    catalogue: readJsonConfigFile(env, PROVIDER_CATALOGUE_SETTING.variable, PROVIDER_CATALOGUE_SETTING.defaultPath, parseProviderCatalogue),
    adminToken,
    secretBox,
  };
}
