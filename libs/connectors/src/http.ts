import { ProviderUnavailableError } from './port';

/**
 * One call to a provider API. Network errors, timeouts (the whole exchange, body included)
 * and 5xx become ProviderUnavailableError; any other answer is returned with its JSON body
 * (undefined when it has none or it is not JSON). Redirects are answers, never followed.
 */
export async function callProvider(
  provider: string,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ status: number; body: unknown }> {
  let status: number;
  let text: string;
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    status = response.status;
    text = await response.text();
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
