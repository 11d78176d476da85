import type { ProviderOutcome } from '@paygate/collections-domain';
import { ConfigError, redactUrl } from '@paygate/platform';

/** Connectors normalise every provider's answer to the domain's outcome. */
export type { ProviderOutcome };

/** Network error, timeout or 5xx: the same request may succeed later. Names provider and status only. */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
  constructor(
    readonly provider: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(`${provider} unavailable: ${status === undefined ? 'no response' : `HTTP ${status}`}`, options);
  }
}

/** Any other answer than the expected one (4xx, unreadable body): repeating the request will not help. */
export class ProviderRequestError extends Error {
  override readonly name = 'ProviderRequestError';
  constructor(
    readonly provider: string,
    readonly status: number,
    /** The provider's error code, when it gave a plain one. */
    readonly code?: string,
  ) {
    super(`${provider} answered HTTP ${status}${code ? ` ${code}` : ''}`);
  }
}

export interface MobileMoneyConnector {
  /** Idempotent per referenceId (a 409 from the provider counts as already accepted). */
  requestToPay(request: {
    referenceId: string;
    amount: string;
    currency: string;
    msisdn: string;
    externalId: string;
    payerMessage: string;
    payeeNote: string;
    callbackUrl: string;
  }): Promise<void>;
  status(referenceId: string): Promise<ProviderOutcome>;
}

export interface CardConnector {
  createCheckoutSession(request: {
    reference: string;
    amount: string;
    currency: string;
    description?: string;
    notifyUrl: string;
    returnUrl: string;
    expiresAt: string;
  }): Promise<{ sessionId: string; paymentUrl: string }>;
  status(sessionId: string): Promise<ProviderOutcome>;
}

export { parseMobileMoneyCallback } from './momo-protocol';
export { parseCardNotification } from './card-protocol';

export interface MobileMoneyConnectorConfig {
  baseUrl: string;
  apiUser: string;
  apiKey: string;
  subscriptionKey: string;
  targetEnvironment: string;
  timeoutMs: number;
}

export interface CardConnectorConfig {
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
}

type Env = Record<string, string | undefined>;

function readBaseUrl(env: Env, variable: string, fallback: string): string {
  const url = env[variable] || fallback;
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new ConfigError(variable, `must be an http(s) URL, got "${redactUrl(url)}"`);
  return url.replace(/\/+$/, '');
}

/**
 * Provider APIs default to the sandbox served at `selfUrl`, with sandbox credentials; a live
 * provider differs only in these variables.
 */
export function readProviderConnectorConfig(env: Env, selfUrl: string): { mobileMoney: MobileMoneyConnectorConfig; card: CardConnectorConfig } {
  const self = selfUrl.replace(/\/+$/, '');
  const rawTimeout = env.PROVIDER_TIMEOUT_MS;
  const timeoutMs = rawTimeout ? Number(rawTimeout) : 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new ConfigError('PROVIDER_TIMEOUT_MS', `must be a positive whole number of milliseconds, got "${rawTimeout}"`);
  return {
    mobileMoney: {
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
