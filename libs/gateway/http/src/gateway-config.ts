import { PROVIDER_CATALOGUE_SETTING, parseProviderCatalogue, type ProviderCatalogue } from '@paygate/contracts';
import { secretBoxFromEnv, type SecretBox } from '@paygate/merchants';
import { ConfigError, readJsonConfigFile } from '@paygate/platform';

type Env = Record<string, string | undefined>;

export interface GatewayConfig {
  catalogue: ProviderCatalogue;
  /** Bearer token of the admin API; unset disables it. */
  adminToken?: string;
  secretBox: SecretBox;
}

export function readGatewayConfig(env: Env = process.env): GatewayConfig {
  const secretBox = secretBoxFromEnv(env);
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  return {
    catalogue: readJsonConfigFile(env, PROVIDER_CATALOGUE_SETTING.variable, PROVIDER_CATALOGUE_SETTING.defaultPath, parseProviderCatalogue),
    adminToken,
    secretBox,
  };
}
