import type { Config } from '@paygate/config';

/**
 * The sandbox settings: latencyMs (SANDBOX_LATENCY_MS) is the simulated time before a provider
 * result is known; publicUrl (SANDBOX_PUBLIC_URL) is the base URL a customer's browser reaches
 * the sandbox at, undefined to derive it from the request's Host.
 */
export type SandboxConfig = Config['sandbox'];

export const SANDBOX_CONFIG = Symbol('SandboxConfig');
