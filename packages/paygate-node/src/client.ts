import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './api-types';

/** The merchant API, typed from docs/openapi.json: every path, body and answer as the document declares them. */
export type PaygateApi = Client<paths>;

export interface PaygateClientOptions {
  /** The gateway, e.g. https://api.paygate.example or http://127.0.0.1:3000. */
  baseUrl: string;
  publicKey: string;
  /** Needed by the reads, the wallet and callback resend. */
  secretKey?: string;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: ClientOptions['fetch'];
}

/**
 * A typed client of the merchant API (openapi-fetch over the generated types): the keys go
 * with every request, and each call answers `{ data, error, response }` with `data` typed by the
 * document's 2xx envelope and `error` by its refusals.
 */
export function createPaygateClient({ baseUrl, publicKey, secretKey, fetch }: PaygateClientOptions): PaygateApi {
  return createClient<paths>({
    baseUrl,
    ...(fetch && { fetch }),
    headers: { 'public-key': publicKey, ...(secretKey !== undefined && { 'secret-key': secretKey }) },
  });
}
