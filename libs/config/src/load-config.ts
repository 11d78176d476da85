import { ConfigError, redactUrl } from './config-error';
import { CONFIG_SCHEMA, isSetting, settingsOf, type Config, type ConfigOf, type SchemaNode } from './schema';
import { Secret } from './secret';
import type { Setting } from './settings';

export type Env = Readonly<Record<string, string | undefined>>;

/** A Map that refuses changes once built: the provider catalogue inside the frozen configuration. */
class FrozenMap<K, V> extends Map<K, V> {
  readonly #sealed: boolean;

  constructor(entries: Iterable<readonly [K, V]>) {
    super();
    for (const [key, value] of entries) super.set(key, value);
    this.#sealed = true;
  }

  override set(key: K, value: V): this {
    if (this.#sealed) throw new TypeError('the configuration is read-only');
    return super.set(key, value);
  }

  override delete(): boolean {
    throw new TypeError('the configuration is read-only');
  }

  override clear(): void {
    throw new TypeError('the configuration is read-only');
  }
}

/** Freezes `value` and everything it holds (objects, arrays, maps); secrets freeze themselves. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || value instanceof Secret) return value;
  if (value instanceof Map) {
    return Object.freeze(
      new FrozenMap([...value].map(([key, entry]) => [deepFreeze(key), deepFreeze(entry)] as const)),
    ) as T;
  }
  const properties = value as Record<string | symbol, unknown>;
  for (const key of Reflect.ownKeys(properties)) {
    const frozen = deepFreeze(properties[key]);
    if (frozen !== properties[key]) properties[key] = frozen;
  }
  return Object.freeze(value);
}

function parseNode<S extends SchemaNode>(node: S, env: Env): ConfigOf<S> {
  if (isSetting(node)) return node.parse(env[node.variable]) as ConfigOf<S>;
  return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, parseNode(child, env)])) as ConfigOf<S>;
}

/**
 * The whole configuration from `env`, parsed once at start into one deeply frozen, typed
 * object. The first bad variable (in schema order) throws a ConfigError: one line naming the
 * variable and what it expected. Unset and empty variables take their defaults.
 */
export function loadConfig(env: Env): Config {
  const config = parseNode(CONFIG_SCHEMA, env);
  checkRelations(config);
  return deepFreeze(config);
}

/** Limits that are each valid alone but not together. */
function checkRelations(config: Config): void {
  const { http, shutdown, platform } = config;
  if (config.mode === 'live') checkNothingOfTheSandbox(config.connectors);
  checkKafkaSecurity(platform);
  // Node refuses a header deadline later than the whole request's.
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      `must be at most HTTP_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs}), got "${http.headersTimeoutMs}"`,
    );
  }
  // A delay that uses up the whole shutdown would abandon every drain.
  if (shutdown.delayMs >= shutdown.timeoutMs) {
    throw new ConfigError(
      'SHUTDOWN_DELAY_MS',
      `must be less than SHUTDOWN_TIMEOUT_MS (${shutdown.timeoutMs}), got "${shutdown.delayMs}"`,
    );
  }
}

/**
 * A live deployment moves real money, so every provider it is configured to call must be a real
 * one: a connector URL left unset calls the sandbox served in this process, a path under
 * /sandbox is the sandbox app's, MOMO_TARGET_ENVIRONMENT=sandbox is MTN's sandbox, and a
 * credential left at its default is the sandbox's. (The sandbox app and standalone, which serve
 * the sandbox itself, are refused by the platform when they start: refuseTestModeOnlyFeatures.)
 */
function checkNothingOfTheSandbox(connectors: Config['connectors']): void {
  const { momo, card, biller } = CONFIG_SCHEMA.connectors;
  const urls = [
    [momo.apiUrl, connectors.momo.apiUrl],
    [card.apiUrl, connectors.card.apiUrl],
    [biller.apiUrl, connectors.biller.apiUrl],
  ] as const;
  for (const [setting, url] of urls) {
    if (url === undefined)
      throw new ConfigError(setting.variable, 'must be set with MODE=live: unset, it is the sandbox in this process');
    if (/^\/sandbox(\/|$)/.test(new URL(url).pathname))
      throw new ConfigError(
        setting.variable,
        `must not point at the sandbox (/sandbox/…) with MODE=live, got "${redactUrl(url)}"`,
      );
  }
  if (connectors.momo.targetEnvironment === 'sandbox')
    throw new ConfigError(
      momo.targetEnvironment.variable,
      "must name the provider's live environment with MODE=live, not sandbox",
    );
  const credentials = [
    [momo.apiUser, connectors.momo.apiUser],
    [momo.apiKey, connectors.momo.apiKey],
    [momo.subscriptionKey, connectors.momo.subscriptionKey],
    [card.secretKey, connectors.card.secretKey],
    [biller.apiKey, connectors.biller.apiKey],
  ] as const;
  for (const [setting, value] of credentials) {
    if (value.reveal() === setting.parse(undefined).reveal())
      throw new ConfigError(setting.variable, "must be set with MODE=live: its default is the sandbox's");
  }
}

/**
 * KAFKA_* settings that would be ignored, or would send a password as it is, stop the start: an
 * operator who set them believes the broker connection is protected.
 */
function checkKafkaSecurity({ brokerUrl, kafka }: Config['platform']): void {
  const tls = brokerUrl.startsWith('kafkas://');
  if (kafka.tlsCa !== undefined && !tls)
    throw new ConfigError('KAFKA_TLS_CA_FILE', 'is set but BROKER_URL is not kafkas:// (TLS)');
  const { saslMechanism: mechanism, saslUsername: username, saslPassword: password } = kafka;
  if (mechanism === undefined) {
    if (username !== undefined || password !== undefined) {
      throw new ConfigError(
        'KAFKA_SASL_MECHANISM',
        'must be set (plain, scram-sha-256 or scram-sha-512) when KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is',
      );
    }
    return;
  }
  if (!brokerUrl.startsWith('kafka'))
    throw new ConfigError('KAFKA_SASL_MECHANISM', 'is set but BROKER_URL is not kafka:// or kafkas://');
  if (username === undefined)
    throw new ConfigError('KAFKA_SASL_USERNAME', `must be set with KAFKA_SASL_MECHANISM=${mechanism}`);
  if (password === undefined)
    throw new ConfigError('KAFKA_SASL_PASSWORD', `must be set with KAFKA_SASL_MECHANISM=${mechanism}`);
  // PLAIN sends the password itself; SCRAM proves it without sending it.
  if (mechanism === 'plain' && !tls)
    throw new ConfigError(
      'KAFKA_SASL_MECHANISM',
      'plain sends the password as it is: needs BROKER_URL=kafkas:// (TLS)',
    );
}

/** One setting's value, for what must be known before the configuration is loaded (DATA_DIR). */
export function readSetting<T>(setting: Setting<T>, env: Env): T {
  return setting.parse(env[setting.variable]);
}

/**
 * `env` with `defaults` filled in where a variable is unset or empty: how a launcher (standalone)
 * states what it sets up before the one loadConfig, instead of writing into process.env.
 */
export function withDefaults(env: Env, defaults: Env): Env {
  const filled: Record<string, string | undefined> = { ...env };
  for (const [variable, value] of Object.entries(defaults)) {
    if (value !== undefined && !filled[variable]) filled[variable] = value;
  }
  return Object.freeze(filled);
}

/** What the schema says standalone fills in (e.g. ALLOW_PRIVATE_CALLBACKS=true). */
export function standaloneDefaults(): Env {
  return Object.fromEntries(
    settingsOf().flatMap((setting) =>
      setting.standaloneDefault === undefined ? [] : [[setting.variable, setting.standaloneDefault]],
    ),
  );
}
