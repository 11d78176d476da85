import type { Config, DeploymentMode, Secret } from '@paygate/config';
import type { ProviderCatalogue } from '@paygate/contracts';
import { secretBoxFromConfig, type SecretBox } from '@paygate/merchants';
import type { AddressPolicy } from '@paygate/net-guard';

/** What the gateway reads from the configuration (loaded once by runApp). */
export interface GatewayConfig {
  /** MODE: the keys it issues and accepts, and the `livemode` of what it answers. */
  mode: DeploymentMode;
  catalogue: ProviderCatalogue;
  /** Bearer token of the admin API; unset disables it. */
  adminToken?: Secret;
  secretBox: SecretBox;
  /**
   * What a merchant's callback URLs may name (ALLOW_PRIVATE_CALLBACKS): the dispatcher's rule, applied when they are
   * configured.
   */
  callbackTargets: AddressPolicy;
}

/** Fails the start (ConfigError) when MASTER_KEY is unset: the gateway seals merchant secrets. */
export function gatewayConfig(config: Config): GatewayConfig {
  return {
    mode: config.mode,
    catalogue: config.catalogue,
    adminToken: config.gateway.adminToken,
    secretBox: secretBoxFromConfig(config.merchants.masterKey),
    callbackTargets: { allowPrivate: config.delivery.allowPrivate },
  };
}
