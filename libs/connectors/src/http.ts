import { guardedDispatcher } from '@paygate/net-guard';
import { ProviderUnavailableError } from './port';

/** What a connector sends: a provider API request. */
export interface ProviderRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** Connections kept to one provider API at most; requests beyond them wait for one, within their timeout. */
const CONNECTIONS_PER_PROVIDER = 64;

/**
 * Kept-alive connections to the providers and billers, one pool for the process, as fetch's global one was (idle
 * sockets never hold the process open). Their URLs are the operator's configuration, loopback or private in tests and
 * clusters, so the guard allows private addresses and still refuses the rest (link-local metadata, reserved ranges).
 */
const providerConnections = guardedDispatcher(
  { allowPrivate: true },
  { connectionsPerOrigin: CONNECTIONS_PER_PROVIDER, connectTimeoutMs: 10_000 },
);

/**
 * One call to a provider API. Network errors, timeouts (the whole exchange, body included)
 * and 5xx become ProviderUnavailableError; any other answer is returned with its JSON body
 * (undefined when it has none or it is not JSON). Redirects are answers, never followed.
 */
export async function callProvider(
  provider: string,
  url: string,
  request: ProviderRequest,
  timeoutMs: number,
): Promise<{ status: number; body: unknown }> {
  let status: number;
  let text: string;
  try {
    const target = new URL(url);
    const response = await providerConnections.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      ...request,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw new ProviderUnavailableError(provider, undefined, { cause: error });
  }
  if (status >= 500) throw new ProviderUnavailableError(provider, status);
  try {
    return { status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return { status, body: undefined };
  }
}
