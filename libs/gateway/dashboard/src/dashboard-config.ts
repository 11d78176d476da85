import type { Config } from '@paygate/config';
import type { AddressPolicy } from '@paygate/net-guard';

/** What the dashboard reads from the configuration (parsed once by runApp). */
export interface DashboardConfig {
  /** The providers are the sandbox's: the sandbox tools are offered (never with MODE=live, which refuses them). */
  sandbox: boolean;
  /** The collections filter's providers, from the provider catalogue. */
  providerCodes: string[];
  /** The providers a payout can go through (those with payout terms), and the currency each pays out in. */
  payoutProviders: { code: string; name: string; currency: string }[];
  /** What a callback URL may name (ALLOW_PRIVATE_CALLBACKS), the dispatcher's rule. */
  callbackTargets: AddressPolicy;
  /** How long a test callback may take: the receiver's time limit and then some, so its answer comes back. */
  testCallbackWaitMs: number;
}

export function dashboardConfig(config: Config): DashboardConfig {
  return {
    sandbox: config.mode === 'test' && config.connectors.momo.targetEnvironment === 'sandbox',
    providerCodes: [...config.catalogue.keys()].sort(),
    payoutProviders: [...config.catalogue.values()]
      .filter((provider) => provider.enabled && provider.payout)
      .map(({ code, name, currency }) => ({ code, name, currency }))
      .sort((a, b) => a.code.localeCompare(b.code)),
    callbackTargets: { allowPrivate: config.delivery.allowPrivate },
    testCallbackWaitMs: config.delivery.timeoutMs + 5_000,
  };
}
