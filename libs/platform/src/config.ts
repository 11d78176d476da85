import { readFileSync } from 'node:fs';

/**
 * Configuration comes only from the environment and is validated once at start-up; a bad
 * value stops the process with one line naming the variable.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
  }
}

export interface PlatformConfig {
  port: number;
  storeUrl: string;
  eventStoreUrl?: string;
  brokerUrl: string;
}

type Env = Record<string, string | undefined>;

export function readPort(env: Env, variable = 'PORT', fallback = 3000): number {
  const raw = env[variable];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(variable, `must be a TCP port (0-65535), got "${raw}"`);
  return port;
}

function readUrl(env: Env, variable: string, schemes: RegExp, expected: string, fallback?: string): string | undefined {
  const raw = env[variable] || fallback;
  if (raw === undefined) return undefined;
  if (!schemes.test(raw)) throw new ConfigError(variable, `must be ${expected}, got "${redactUrl(raw)}"`);
  return raw;
}

/** Never print credentials, even in an error about the URL that holds them. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^/@]*)@/, '//***@');
}

export function readPlatformConfig(env: Env = process.env): PlatformConfig {
  return {
    port: readPort(env),
    storeUrl: readUrl(env, 'STORE_URL', /^(pglite:\/\/.+|postgres(ql)?:\/\/.+)$/, 'pglite://<dir> or postgres://…', 'pglite://./data/pglite')!,
    eventStoreUrl: readUrl(env, 'EVENT_STORE_URL', /^(kurrentdb|kdb|esdb|eventstore)(\+discover)?:\/\/.+$/, 'kurrentdb://… or esdb://…'),
    brokerUrl: readUrl(env, 'BROKER_URL', /^(inproc:\/\/|kafka:\/\/[^\s]+)$/, 'inproc:// or kafka://host:port[,host:port]', 'inproc://')!,
  };
}

/** A duration in milliseconds from `variable` (a non-negative integer), or `fallback`. */
export function readDurationMs(env: Env, variable: string, fallback: number): number {
  const raw = env[variable];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new ConfigError(variable, `must be a whole number of milliseconds, got "${raw}"`);
  return value;
}

/** An absolute http(s) base URL from `variable` without trailing slash, or undefined. */
export function readBaseUrl(env: Env, variable: string): string | undefined {
  const raw = env[variable];
  if (raw === undefined || raw === '') return undefined;
  if (!/^https?:\/\/[^\s]+$/.test(raw)) throw new ConfigError(variable, `must be an http(s) URL, got "${redactUrl(raw)}"`);
  return raw.replace(/\/$/, '');
}

/**
 * The JSON file named by `variable` (default `fallbackPath`, relative to the working
 * directory), turned into configuration by `parse`; any failure names the variable.
 */
export function readJsonConfigFile<T>(env: Env, variable: string, fallbackPath: string, parse: (json: unknown) => T): T {
  const path = env[variable] || fallbackPath;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(variable, `cannot read JSON from ${path}: ${(error as Error).message}`);
  }
  try {
    return parse(json);
  } catch (error) {
    throw new ConfigError(variable, `${path}: ${(error as Error).message}`);
  }
}
