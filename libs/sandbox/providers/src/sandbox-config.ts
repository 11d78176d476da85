import type { Config, Secret } from '@paygate/config';

/**
 * The sandbox settings: latencyMs (SANDBOX_LATENCY_MS) is the simulated time before a provider
 * result is known; publicUrl (SANDBOX_PUBLIC_URL) is the base URL a customer's browser reaches
 * the sandbox at, undefined to derive it from the request's Host. adminToken (ADMIN_TOKEN)
 * guards the sandbox's admin routes as it guards Paygate's; billerApiKey (BILLER_API_KEY) is the
 * one key the sandbox biller accepts, the key the biller connector sends.
 */
export type SandboxConfig = Config['sandbox'] & { adminToken?: Secret; billerApiKey: Secret };

export const SANDBOX_CONFIG = Symbol('SandboxConfig');

export function sandboxConfigFrom(config: Config): SandboxConfig {
  return { ...config.sandbox, adminToken: config.gateway.adminToken, billerApiKey: config.connectors.biller.apiKey };
}
