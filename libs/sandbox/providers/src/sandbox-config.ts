import { ConfigError, redactUrl } from '@paygate/platform';
import { isHttpUrl } from './validation';

export interface SandboxConfig {
  /** Simulated time before a provider result is known. */
  latencyMs: number;
  /** Base URL a customer's browser reaches the sandbox at; undefined derives it from the request's Host. */
  publicUrl?: string;
}

export const SANDBOX_CONFIG = Symbol('SandboxConfig');

export function readSandboxConfig(env: Record<string, string | undefined>): SandboxConfig {
  const rawLatency = env.SANDBOX_LATENCY_MS;
  const latencyMs = rawLatency === undefined || rawLatency === '' ? 500 : Number(rawLatency);
  if (!Number.isInteger(latencyMs) || latencyMs < 0) {
    throw new ConfigError('SANDBOX_LATENCY_MS', `must be a whole number of milliseconds, got "${rawLatency}"`);
  }
  const publicUrl = env.SANDBOX_PUBLIC_URL || undefined;
  if (publicUrl !== undefined && !isHttpUrl(publicUrl)) {
    throw new ConfigError('SANDBOX_PUBLIC_URL', `must be an http(s) URL, got "${redactUrl(publicUrl)}"`);
  }
  return { latencyMs, publicUrl: publicUrl?.replace(/\/+$/, '') };
}
