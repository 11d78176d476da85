import { parseProviderCatalogue, PROVIDER_CATALOGUE_SETTING, type ProviderCatalogue } from '@paygate/contracts';
import { readBaseUrl, readDurationMs, readJsonConfigFile } from '@paygate/platform';

type Env = Record<string, string | undefined>;

export interface CollectionsConfig {
  catalogue: ProviderCatalogue;
  confirmationTimeoutMs: number;
  promptTimeoutMs: number;
  checkoutTimeoutMs: number;
  /** How often a collection waiting on its provider is polled when no callback arrives. */
  statusPollMs: number;
  timerTickMs: number;
  /** Base URL providers call back (this service); defaults to this process's own URL. */
  providerCallbackUrl?: string;
  /** Base URL of the gateway the card checkout returns the customer to; defaults to this process. */
  checkoutReturnUrl?: string;
}

const MINUTE = 60_000;

/** The provider catalogue lives in configuration (DESIGN §3), not in code. */
export function readProviderCatalogue(env: Env): ProviderCatalogue {
  return readJsonConfigFile(env, PROVIDER_CATALOGUE_SETTING.variable, PROVIDER_CATALOGUE_SETTING.defaultPath, parseProviderCatalogue);
}

export function readCollectionsConfig(env: Env = process.env): CollectionsConfig {
  return {
    catalogue: readProviderCatalogue(env),
    confirmationTimeoutMs: readDurationMs(env, 'CONFIRMATION_TIMEOUT_MS', 30 * MINUTE),
    promptTimeoutMs: readDurationMs(env, 'PROMPT_TIMEOUT_MS', 5 * MINUTE),
    checkoutTimeoutMs: readDurationMs(env, 'CHECKOUT_TIMEOUT_MS', 30 * MINUTE),
    statusPollMs: readDurationMs(env, 'PROVIDER_STATUS_POLL_MS', MINUTE),
    timerTickMs: readDurationMs(env, 'TIMER_TICK_MS', 250),
    providerCallbackUrl: readBaseUrl(env, 'PROVIDER_CALLBACK_URL'),
    checkoutReturnUrl: readBaseUrl(env, 'CHECKOUT_RETURN_URL'),
  };
}
