import { CONFIG_SCHEMA, readSetting, type Config, type Env } from '@paygate/config';
import type { BillerConnectorConfig } from './biller/biller-connector';
import type { CardConnectorConfig } from './card/card-connector';
import type { MomoConnectorConfig } from './momo/momo-api';

/** Configuration of each protocol's connector. */
export interface ConnectorsConfig {
  momo: MomoConnectorConfig;
  card: CardConnectorConfig;
  biller: BillerConnectorConfig;
}

/**
 * The connectors' section of the one configuration (libs/config), resolved against this
 * process's URL: provider APIs default to the sandbox served here, with sandbox credentials; a
 * live provider differs only in these variables.
 */
export function connectorsConfigFrom(section: Config['connectors'], selfUrl: string): ConnectorsConfig {
  const self = selfUrl.replace(/\/+$/, '');
  const { momo, card, biller, timeoutMs } = section;
  return {
    momo: {
      baseUrl: momo.apiUrl ?? `${self}/sandbox/momo`,
      apiUser: momo.apiUser.reveal(),
      apiKey: momo.apiKey.reveal(),
      subscriptionKey: momo.subscriptionKey.reveal(),
      disbursementSubscriptionKey: (momo.disbursementSubscriptionKey ?? momo.subscriptionKey).reveal(),
      targetEnvironment: momo.targetEnvironment,
      timeoutMs,
    },
    card: { baseUrl: card.apiUrl ?? `${self}/sandbox/card`, secretKey: card.secretKey.reveal(), timeoutMs },
    biller: { baseUrl: biller.apiUrl ?? `${self}/sandbox/biller`, apiKey: biller.apiKey.reveal(), timeoutMs },
  };
}

/** The same section read straight from an environment (tools and tests that build a registry alone). */
export function readConnectorsConfig(env: Env, selfUrl: string): ConnectorsConfig {
  const { momo, card, biller, timeoutMs } = CONFIG_SCHEMA.connectors;
  return connectorsConfigFrom(
    {
      momo: {
        apiUrl: readSetting(momo.apiUrl, env),
        apiUser: readSetting(momo.apiUser, env),
        apiKey: readSetting(momo.apiKey, env),
        subscriptionKey: readSetting(momo.subscriptionKey, env),
        disbursementSubscriptionKey: readSetting(momo.disbursementSubscriptionKey, env),
        targetEnvironment: readSetting(momo.targetEnvironment, env),
      },
      card: { apiUrl: readSetting(card.apiUrl, env), secretKey: readSetting(card.secretKey, env) },
      biller: { apiUrl: readSetting(biller.apiUrl, env), apiKey: readSetting(biller.apiKey, env) },
      timeoutMs: readSetting(timeoutMs, env),
    },
    selfUrl,
  );
}
