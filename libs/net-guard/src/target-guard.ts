import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, type AddressPolicy } from './special-purpose-addresses';

export const TARGET_NOT_ALLOWED = 'target address not allowed';

/**
 * Names resolvers answer with a loopback address without asking DNS (RFC 6761 `.localhost`, common hosts-file names).
 */
const LOCALHOST_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return LOCALHOST_NAMES.has(name) || name.endsWith('.localhost');
}

/**
 * Why a URL's host may not be reached under `policy`: an IP literal the table refuses, or a
 * localhost name (loopback). Undefined for any other name, whose addresses are only known when
 * it is resolved: `guardedLookup` checks those. `hostname` is a parsed URL's (WHATWG has already
 * turned `0x7f.1` into `127.0.0.1`; IPv6 keeps its brackets).
 */
export function hostRefusal(hostname: string, policy: AddressPolicy): string | undefined {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return addressRefusal(host, policy);
  if (isLocalhostName(host) && !policy.allowPrivate) return `loopback (${host})`;
  return undefined;
}

/**
 * At configuration: why `value` cannot be a callback URL, as words that follow the field's name,
 * or undefined when it can. An absolute `https` URL (`http` too when private targets are
 * allowed, for local receivers) whose host the policy allows.
 */
export function callbackUrlRefusal(value: string, policy: AddressPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    return policy.allowPrivate ? 'must be an http or https URL' : 'must be an https URL';
  const refused = hostRefusal(url.hostname, policy);
  return refused && `must not point at ${refused}`;
}

/**
 * At connect time, before the request: an http(s) URL whose host is not a refused IP literal or
 * localhost name (Node does not pass IP literals through `lookup`). Undefined when it may go on.
 */
export function connectRefusal(url: URL, policy: AddressPolicy): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http: and https: URLs';
  return hostRefusal(url.hostname, policy);
}

export class TargetNotAllowedError extends Error {
  constructor() {
    super(TARGET_NOT_ALLOWED);
  }
}

export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for http(s) requests and sockets that fails with TargetNotAllowedError when any
 * address the name resolves to is refused. It runs at connect time on the addresses the socket
 * then uses, so a name that resolved elsewhere when it was configured (DNS rebinding) still
 * cannot reach an internal address. `resolve` is the system resolver unless a test names another.
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0 || addresses.some(({ address }) => addressRefusal(address, policy) !== undefined))
        return callback(new TargetNotAllowedError(), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
