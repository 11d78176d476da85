import { Agent, buildConnector } from 'undici';
import type { AddressPolicy } from './special-purpose-addresses';
import { guardedLookup, hostRefusal, TargetNotAllowedError, type Resolver } from './target-guard';

/**
 * How long an idle connection is kept when the server announces no Keep-Alive timeout: under the 5 s after which
 * Node's HTTP server (and many behind it) closes one, so a request is not written into a socket being closed. A
 * server's own `Keep-Alive: timeout=N` is honoured less 2 s (undici's margin).
 */
const KEEP_ALIVE_TIMEOUT_MS = 4_000;
/** The longest a server's Keep-Alive hint keeps an idle connection: idle sockets to many receivers stay few. */
const KEEP_ALIVE_MAX_TIMEOUT_MS = 30_000;

export interface GuardedDispatcherOptions {
  /** Connections open to one origin at most; requests beyond them wait for one to be free. */
  connectionsPerOrigin: number;
  /** A connection not established (TLS included) within it fails. */
  connectTimeoutMs: number;
  /** The system resolver unless a test names another. */
  resolve?: Resolver;
}

/**
 * A keep-alive connection pool (an undici dispatcher, for `request` or `fetch`) whose every new connection passes
 * the address guard when it is made: an IP literal or localhost name by `hostRefusal`, a name by `guardedLookup` on
 * the addresses the socket then connects to. A request on a pooled connection costs no check. Close it (`close`, or
 * `destroy` not to wait for requests in flight) when its owner stops.
 */
export function guardedDispatcher(
  policy: AddressPolicy,
  { connectionsPerOrigin, connectTimeoutMs, resolve }: GuardedDispatcherOptions,
): Agent {
  const connect = buildConnector({ timeout: connectTimeoutMs, lookup: guardedLookup(policy, resolve) });
  return new Agent({
    connections: connectionsPerOrigin,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MAX_TIMEOUT_MS,
    connect: (options, callback) => {
      // Node connects to an IP literal without calling lookup.
      if (hostRefusal(options.hostname, policy) !== undefined) return callback(new TargetNotAllowedError(), null);
      connect(options, callback);
    },
  });
}
