import type { Config } from '@paygate/config';
import type { ProviderCatalogue } from '@paygate/contracts';

/** What the collections service reads from the configuration: its timers, URLs, the catalogue and MODE. */
export type CollectionsConfig = Config['collections'] & { readonly catalogue: ProviderCatalogue; livemode: boolean };

export function collectionsConfig(config: Config): CollectionsConfig {
  return { ...config.collections, catalogue: config.catalogue, livemode: config.mode === 'live' };
}
