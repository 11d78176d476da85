import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { ConfigError, redactUrl } from './config-error';
import { Secret } from './secret';

/**
 * One environment variable: its type, default and meaning, and how its text becomes a typed
 * value. An unset or empty variable takes the default. A bad value is a ConfigError naming the
 * variable and what it expected; a secret's value never appears in it.
 */
export interface Setting<T> {
  readonly variable: string;
  /** What the variable holds, for people (README). */
  readonly type: string;
  /** The default, for people (README); "unset" when there is none. */
  readonly defaultText: string;
  /** One line: what the variable changes. */
  readonly description: string;
  readonly secret: boolean;
  /** What standalone (every app in one process) fills in when the variable is unset. */
  readonly standaloneDefault?: string;
  parse(raw: string | undefined): T;
}

interface Declaration<T> {
  type: string;
  description: string;
  /** Text to value; `raw` is never empty. Throws Problem. */
  read: (raw: string) => T;
  fallback: T;
  defaultText?: string;
  secret?: boolean;
  standaloneDefault?: string;
}

/** What a reader throws; becomes ConfigError with the variable's name. */
class Problem extends Error {}

function declare<T>(variable: string, declaration: Declaration<T>): Setting<T> {
  return Object.freeze({
    variable,
    type: declaration.type,
    description: declaration.description,
    defaultText:
      declaration.defaultText ?? (declaration.fallback === undefined ? 'unset' : `\`${String(declaration.fallback)}\``),
    secret: declaration.secret ?? false,
    ...(declaration.standaloneDefault !== undefined && { standaloneDefault: declaration.standaloneDefault }),
    parse(raw: string | undefined): T {
      if (raw === undefined || raw === '') return declaration.fallback;
      try {
        return declaration.read(raw);
      } catch (error) {
        if (error instanceof Problem) throw new ConfigError(variable, error.message);
        throw error;
      }
    },
  });
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** "30 min", "250 ms": how README shows a default duration. */
export function describeMs(ms: number): string {
  if (ms >= HOUR && ms % HOUR === 0) return `${ms / HOUR} h`;
  if (ms >= MINUTE && ms % MINUTE === 0) return `${ms / MINUTE} min`;
  if (ms >= 1_000 && ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

type Options = { description: string; standaloneDefault?: string };

/** An IP address to listen on (`0.0.0.0`: every IPv4 interface; `::`: every interface). */
export function listenAddress(variable: string, fallback: string, options: Options): Setting<string> {
  return declare(variable, {
    ...options,
    type: 'IP address',
    fallback,
    read: (raw) => {
      if (isIP(raw) === 0) throw new Problem(`must be an IP address (127.0.0.1, 0.0.0.0, ::), got "${raw}"`);
      return raw;
    },
  });
}

export function port(variable: string, fallback: number, options: Options): Setting<number> {
  return declare(variable, {
    ...options,
    type: 'TCP port (0-65535)',
    fallback,
    read: (raw) => {
      const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!(value >= 0 && value <= 65535)) throw new Problem(`must be a TCP port (0-65535), got "${raw}"`);
      return value;
    },
  });
}

/**
 * A URL whose scheme picks a driver; printed with its credentials redacted. `check` finds what
 * the pattern cannot (a refused parameter, a file it names that cannot be read); its problem
 * must not quote the URL's credentials.
 */
export function driverUrl<T extends string | undefined>(
  variable: string,
  fallback: T,
  options: Options & { pattern: RegExp; expected: string; type: string; check?: (raw: string) => string | undefined },
): Setting<string | T> {
  return declare<string | T>(variable, {
    ...options,
    fallback,
    read: (raw) => {
      if (!options.pattern.test(raw)) throw new Problem(`must be ${options.expected}, got "${redactUrl(raw)}"`);
      const problem = options.check?.(raw);
      if (problem !== undefined) throw new Problem(problem);
      return raw;
    },
  });
}

/** A folder that must exist when set; unset means `unsetMeans`. */
export function directory(variable: string, options: Options & { unsetMeans: string }): Setting<string | undefined> {
  return declare<string | undefined>(variable, {
    ...options,
    type: 'path to a folder',
    fallback: undefined,
    defaultText: options.unsetMeans,
    read: (raw) => {
      let isDirectory = false;
      try {
        isDirectory = statSync(raw).isDirectory();
      } catch {
        isDirectory = false;
      }
      if (!isDirectory) throw new Problem(`must be a folder, and "${raw}" is not one`);
      return raw;
    },
  });
}

/** An absolute http(s) base URL, trailing slashes removed; unset means `unsetMeans`. */
export function httpBaseUrl(variable: string, options: Options & { unsetMeans: string }): Setting<string | undefined> {
  return declare<string | undefined>(variable, {
    ...options,
    type: 'http(s) URL',
    fallback: undefined,
    defaultText: options.unsetMeans,
    read: (raw) => {
      let protocol: string | undefined;
      try {
        protocol = new URL(raw).protocol;
      } catch {
        protocol = undefined;
      }
      if (/\s/.test(raw) || (protocol !== 'http:' && protocol !== 'https:'))
        throw new Problem(`must be an http(s) URL, got "${redactUrl(raw)}"`);
      return raw.replace(/\/+$/, '');
    },
  });
}

/** Whole milliseconds, at least `min`. */
export function milliseconds(variable: string, fallback: number, options: Options & { min?: 0 | 1 }): Setting<number> {
  const min = options.min ?? 0;
  return declare(variable, {
    ...options,
    type: min === 0 ? 'milliseconds' : 'milliseconds, at least 1',
    fallback,
    defaultText:
      describeMs(fallback) === `${fallback} ms` ? `\`${fallback}\`` : `\`${fallback}\` (${describeMs(fallback)})`,
    read: (raw) => {
      const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(value)) throw new Problem(`must be a whole number of milliseconds, got "${raw}"`);
      if (value < min) throw new Problem(`must be at least ${min} millisecond, got "${raw}"`);
      return value;
    },
  });
}

export function positiveInteger(variable: string, fallback: number, options: Options): Setting<number> {
  return declare(variable, {
    ...options,
    type: 'whole number, at least 1',
    fallback,
    read: (raw) => {
      const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(value) || value < 1) throw new Problem(`must be a positive whole number, got "${raw}"`);
      return value;
    },
  });
}

/** A positive decimal number (rates such as requests per second: `0.5`, `50`). */
export function positiveNumber(
  variable: string,
  fallback: number,
  options: Options & { type: string },
): Setting<number> {
  return declare(variable, {
    ...options,
    fallback,
    read: (raw) => {
      const value = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
      if (!(value > 0) || !Number.isFinite(value))
        throw new Problem(`must be a positive number such as 0.5 or 50, got "${raw}"`);
      return value;
    },
  });
}

/**
 * Which proxies' X-Forwarded-For names the client (Fastify's trustProxy): `false` (none: the
 * peer address is the client), a number of hops, or comma-separated addresses and CIDR ranges.
 * `true` (trust anyone) is refused: any client could then choose its own address.
 */
export function proxyTrust(variable: string, options: Options): Setting<false | number | string> {
  return declare<false | number | string>(variable, {
    ...options,
    type: '`false`, a number of hops, or addresses/CIDRs, comma-separated',
    fallback: false,
    read: (raw) => {
      if (raw === 'false') return false;
      if (/^\d+$/.test(raw)) return Number(raw);
      const entries = raw.split(',').map((entry) => entry.trim());
      const valid = (entry: string) => {
        const [address, bits, extra] = entry.split('/');
        if (extra !== undefined || isIP(address) === 0) return false;
        return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128));
      };
      if (!entries.every(valid))
        throw new Problem(
          `must be false, a number of hops, or comma-separated IP addresses or CIDR ranges, got "${raw}"`,
        );
      return entries.join(',');
    },
  });
}

export function boolean(variable: string, fallback: boolean, options: Options): Setting<boolean> {
  return declare(variable, {
    ...options,
    type: '`true` or `false`',
    fallback,
    read: (raw) => {
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw new Problem(`must be "true" or "false", got "${raw}"`);
    },
  });
}

export function oneOf<const T extends string>(
  variable: string,
  choices: readonly T[],
  fallback: T,
  options: Options,
): Setting<T> {
  return declare(variable, {
    ...options,
    type: `one of ${choices.map((choice) => `\`${choice}\``).join(', ')}`,
    fallback,
    read: (raw) => {
      if (!(choices as readonly string[]).includes(raw))
        throw new Problem(`must be one of ${choices.join(', ')}, got "${raw}"`);
      return raw as T;
    },
  });
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: MINUTE, h: HOUR };
const DURATION = /^(\d+)(ms|s|m|h)?$/;

/** "250ms", "10s", "1m", "2h", or a bare number of milliseconds; undefined when malformed. */
export function parseDurationMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * UNIT_MS[match[2] ?? 'ms'];
  return Number.isSafeInteger(value) ? value : undefined;
}

/** A comma-separated list of durations, e.g. "0s,10s,1m,2h". */
export function durationList(variable: string, fallback: string, options: Options): Setting<readonly number[]> {
  const read = (raw: string): number[] =>
    raw.split(',').map((entry) => {
      const ms = parseDurationMs(entry);
      if (ms === undefined)
        throw new Problem(
          `must be a comma-separated list of durations like "0s,10s,1m,2h" (units ms, s, m, h), got "${raw}"`,
        );
      return ms;
    });
  return declare(variable, {
    ...options,
    type: 'durations (`ms`, `s`, `m`, `h`), comma-separated',
    fallback: read(fallback),
    defaultText: `\`${fallback}\``,
    read,
  });
}

export function text(variable: string, fallback: string, options: Options & { type?: string }): Setting<string> {
  return declare(variable, { type: 'text', ...options, fallback, read: (raw) => raw });
}

/** Text that may be unset (a user name). */
export function optionalText(variable: string, options: Options & { unsetMeans: string }): Setting<string | undefined> {
  return declare<string | undefined>(variable, {
    type: 'text',
    ...options,
    fallback: undefined,
    defaultText: options.unsetMeans,
    read: (raw) => raw,
  });
}

/** One of `choices`, or unset (a feature that is off until chosen). */
export function optionalOneOf<const T extends string>(
  variable: string,
  choices: readonly T[],
  options: Options & { unsetMeans: string },
): Setting<T | undefined> {
  return declare<T | undefined>(variable, {
    ...options,
    type: `one of ${choices.map((choice) => `\`${choice}\``).join(', ')}`,
    fallback: undefined,
    defaultText: options.unsetMeans,
    read: (raw) => {
      if (!(choices as readonly string[]).includes(raw))
        throw new Problem(`must be one of ${choices.join(', ')}, got "${raw}"`);
      return raw as T;
    },
  });
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/**
 * Why the file at `path` is no PEM certificate bundle (unreadable, or without a certificate);
 * undefined when it is one. Says nothing of the file's contents.
 */
export function pemCertificatesProblem(path: string): string | undefined {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    return `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  return PEM_CERTIFICATE.test(pem) ? undefined : `${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`;
}

/**
 * A PEM file of CA certificates, read when the configuration is loaded: the value is the PEM
 * text, so a missing or wrong file stops the start naming the variable, not the first connection.
 */
export function pemCertificatesFile(
  variable: string,
  options: Options & { unsetMeans: string },
): Setting<string | undefined> {
  return declare<string | undefined>(variable, {
    ...options,
    type: 'path to a PEM file (certificates)',
    fallback: undefined,
    defaultText: options.unsetMeans,
    read: (path) => {
      const problem = pemCertificatesProblem(path);
      if (problem !== undefined) throw new Problem(problem);
      return readFileSync(path, 'utf8');
    },
  });
}

/** A secret with a default that is no secret (the sandbox's well-known credentials). */
export function credential(variable: string, fallback: string, options: Options): Setting<Secret> {
  return declare(variable, {
    ...options,
    type: 'text, secret',
    fallback: new Secret(fallback),
    defaultText: `\`${fallback}\` (sandbox)`,
    secret: true,
    read: (raw) => new Secret(raw),
  });
}

/** A secret that may be unset; a bad one is described without its value. */
export function optionalSecret(
  variable: string,
  options: Options & { type: string; unsetMeans: string; check?: (raw: string) => string | undefined },
): Setting<Secret | undefined> {
  return declare<Secret | undefined>(variable, {
    ...options,
    fallback: undefined,
    defaultText: options.unsetMeans,
    secret: true,
    read: (raw) => {
      const problem = options.check?.(raw);
      if (problem !== undefined) throw new Problem(problem);
      return new Secret(raw);
    },
  });
}

/**
 * A JSON file (path relative to the working directory) turned into configuration by `parse`; a
 * file that cannot be read or parsed names the variable and the path.
 */
export function jsonFile<T>(
  variable: string,
  defaultPath: string,
  parse: (json: unknown) => T,
  options: Options & { type: string },
): Setting<T> {
  const load = (path: string): T => {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Problem(`cannot read JSON from ${path}: ${(error as Error).message}`);
    }
    try {
      return parse(json);
    } catch (error) {
      throw new Problem(`${path}: ${(error as Error).message}`);
    }
  };
  const setting = declare<T | undefined>(variable, {
    ...options,
    fallback: undefined,
    defaultText: `\`${defaultPath}\``,
    read: load,
  });
  // The default file is read when the configuration is loaded, not when the schema is declared.
  return Object.freeze({ ...setting, parse: (raw: string | undefined) => setting.parse(raw || defaultPath) as T });
}
