import type { Config, Secret } from '@paygate/config';
import type { AddressPolicy } from '@paygate/net-guard';

/**
 * The sandbox settings: latencyMs (SANDBOX_LATENCY_MS) is the simulated time before a provider
 * result is known; publicUrl (SANDBOX_PUBLIC_URL) is the base URL a customer's browser reaches
 * the sandbox at, undefined to derive it from the request's Host. adminToken (ADMIN_TOKEN)
 * guards the sandbox's admin routes as it guards Paygate's; billerApiKey (BILLER_API_KEY) is the
 * one key the sandbox biller accepts, the key the biller connector sends. callbackTargets
 * (ALLOW_PRIVATE_CALLBACKS) is what its callbacks may reach, except at providerCallbackUrl
 * (PROVIDER_CALLBACK_URL, undefined: this process), Paygate's own callback base.
 */
export type SandboxConfig = Config['sandbox'] & {
  adminToken?: Secret;
  billerApiKey: Secret;
  callbackTargets: AddressPolicy;
  providerCallbackUrl?: string;
};

export const SANDBOX_CONFIG = Symbol('SandboxConfig');

export function sandboxConfigFrom(config: Config): SandboxConfig {
  return {
    ...config.sandbox,
    adminToken: config.gateway.adminToken,
    billerApiKey: config.connectors.biller.apiKey,
    callbackTargets: { allowPrivate: config.delivery.allowPrivate },
    providerCallbackUrl: config.collections.providerCallbackUrl,
  };
}
