import { ConfigError, redactUrl } from '@paygate/platform';
import type { CardConnectorConfig } from './card/card-connector';
import type { MomoConnectorConfig } from './momo/momo-connector';

type Env = Record<string, string | undefined>;

/** Configuration of each protocol's connector. */
export interface ConnectorsConfig {
  momo: MomoConnectorConfig;
  card: CardConnectorConfig;
}

function readBaseUrl(env: Env, variable: string, fallback: string): string {
  const url = env[variable] || fallback;
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new ConfigError(variable, `must be an http(s) URL, got "${redactUrl(url)}"`);
  return url.replace(/\/+$/, '');
}

/**
 * Provider APIs default to the sandbox served at `selfUrl`, with sandbox credentials; a live
 * provider differs only in these variables.
 */
export function readConnectorsConfig(env: Env, selfUrl: string): ConnectorsConfig {
  const self = selfUrl.replace(/\/+$/, '');
  const rawTimeout = env.PROVIDER_TIMEOUT_MS;
  const timeoutMs = rawTimeout ? Number(rawTimeout) : 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new ConfigError('PROVIDER_TIMEOUT_MS', `must be a positive whole number of milliseconds, got "${rawTimeout}"`);
  return {
    momo: {
      baseUrl: readBaseUrl(env, 'MOMO_API_URL', `${self}/sandbox/momo`),
      apiUser: env.MOMO_API_USER || 'sandbox-user',
      apiKey: env.MOMO_API_KEY || 'sandbox-key',
      subscriptionKey: env.MOMO_SUBSCRIPTION_KEY || 'sandbox-subscription-key',
      targetEnvironment: env.MOMO_TARGET_ENVIRONMENT || 'sandbox',
      timeoutMs,
    },
    card: {
      baseUrl: readBaseUrl(env, 'CARD_API_URL', `${self}/sandbox/card`),
      secretKey: env.CARD_SECRET_KEY || 'sandbox-card-secret',
      timeoutMs,
    },
  };
}
