import { settingsOf, type Setting } from '@paygate/config';

/**
 * How every variable of libs/config reaches the apps in the chart: from the existing Secret,
 * set by the chart from its own values, or through `config` (the ConfigMap). Only these three,
 * so a new variable has to be placed here before the chart tests pass.
 */

/** Infrastructure URLs: they carry the database's and broker's credentials. */
const INFRASTRUCTURE_URLS = ['STORE_URL', 'BROKER_URL', 'EVENT_STORE_URL'];

/** Read by the apps from the existing Secret only. */
export const SECRET_VARIABLES: readonly string[] = [
  ...INFRASTRUCTURE_URLS,
  ...settingsOf()
    .filter((setting) => setting.secret)
    .map((setting) => setting.variable),
];

/** Set by the chart from the values named here, never through `config`. */
export const CHART_SET_VARIABLES: Readonly<Record<string, string>> = {
  PORT: 'containerPort',
  PROVIDER_CALLBACK_URL: 'publicUrls.collections',
  CHECKOUT_RETURN_URL: 'publicUrls.gateway',
  SANDBOX_PUBLIC_URL: 'publicUrls.sandbox',
  MOMO_API_URL: 'providers.momoApiUrl',
  CARD_API_URL: 'providers.cardApiUrl',
  BILLER_API_URL: 'providers.billerApiUrl',
  MIGRATE_ON_START: 'migrations.job.enabled',
  COMMANDS_LISTEN_URL: 'commandsPort',
  COLLECTIONS_COMMANDS_URL: 'commandsPort',
  PAYMENTS_COMMANDS_URL: 'commandsPort',
  WEBHOOKS_COMMANDS_URL: 'commandsPort',
  COMMANDS_TLS_DIR: 'commandsTls.mountPath',
};

/**
 * Meaningful in standalone mode only (every app in one process); a pod listens on every interface
 * of its own network (HOST's default), where its Service and probes reach it.
 */
const STANDALONE_ONLY = ['DATA_DIR', 'HOST'];

/** The settings values may give through `config`: every other one libs/config declares. */
export function configSettings(): Setting<unknown>[] {
  const elsewhere = new Set([...SECRET_VARIABLES, ...Object.keys(CHART_SET_VARIABLES), ...STANDALONE_ONLY]);
  return settingsOf().filter((setting) => !elsewhere.has(setting.variable));
}

/** values.schema.json's description of `config`'s properties, from libs/config. */
export function configSchemaProperties(): Record<string, { type: 'string'; description: string }> {
  return Object.fromEntries(
    configSettings().map((setting) => [
      setting.variable,
      { type: 'string', description: `${setting.description} (default ${setting.defaultText.replace(/`/g, '')})` },
    ]),
  );
}
