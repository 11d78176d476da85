import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { collectionSignature, standardWebhookHeaders, type CollectionSignatureFields } from '@paygate/signing';
import type { DeliveryConfig } from './delivery-config';

export const RESPONSE_EXCERPT_BYTES = 1024;
export const TARGET_NOT_ALLOWED = 'target address not allowed';
export const USER_AGENT = 'Paygate-Webhooks/1';
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** What one attempt needs: the body is sent byte for byte as stored. */
export interface CallbackRequest {
  webhookId: string;
  targetUrl: string;
  body: string;
}

export interface AttemptOutcome {
  startedAt: Date;
  durationMs: number;
  /** Absent when no response arrived (refused target, DNS failure, reset, timeout). */
  statusCode?: number;
  /** At most the first RESPONSE_EXCERPT_BYTES of the response body. */
  responseExcerpt: string;
  error?: string;
  /** The receiver's Retry-After, capped at 24 h. */
  retryAfterMs?: number;
}

const BLOCKED_IPV4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", including the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including cloud metadata at 169.254.169.254
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
];
const BLOCKED_IPV6: Array<[string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
];

const blocked = new BlockList();
for (const [network, prefix] of BLOCKED_IPV4) {
  blocked.addSubnet(network, prefix, 'ipv4');
  // The same IPv4 ranges reached through IPv6: IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d).
  blocked.addSubnet(`::ffff:${network}`, 96 + prefix, 'ipv6');
  blocked.addSubnet(`64:ff9b::${network}`, 96 + prefix, 'ipv6');
}
for (const [network, prefix] of BLOCKED_IPV6) blocked.addSubnet(network, prefix, 'ipv6');

/** True for loopback, private, link-local, unspecified and CGNAT addresses, and for anything that is not an IP. */
export function isForbiddenAddress(address: string): boolean {
  // BlockList does not understand zone ids (fe80::1%eth0), which DNS answers may carry.
  const bare = address.split('%')[0];
  const family = isIP(bare);
  if (family === 0) return true;
  return blocked.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** Retry-After as delay seconds or an HTTP-date, in ms from `nowMs`; undefined when absent or malformed. */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1_000;
  // Every HTTP-date form starts with the day name; Date.parse alone would take "1.5" for a date.
  else if (/^[A-Za-z]{3}/.test(text)) ms = Date.parse(text) - nowMs;
  else return undefined;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

class TargetNotAllowedError extends Error {
  constructor() {
    super(TARGET_NOT_ALLOWED);
  }
}

/**
 * Checks every address a name resolves to at connect time, so a DNS answer that changes between
 * a check and the connection (rebinding) cannot reach an internal address.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.some(({ address }) => isForbiddenAddress(address))) return callback(new TargetNotAllowedError(), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

type Response = Pick<AttemptOutcome, 'statusCode' | 'responseExcerpt' | 'error' | 'retryAfterMs'>;

/** One signed POST of a stored callback; never throws, every failure is an outcome. */
export class CallbackSender {
  constructor(private readonly config: Pick<DeliveryConfig, 'timeoutMs' | 'allowPrivate'>) {}

  async send(delivery: CallbackRequest, signingKey: string): Promise<AttemptOutcome> {
    const startedAt = new Date();
    const started = performance.now();
    const response = await this.attempt(delivery, signingKey, Math.floor(startedAt.getTime() / 1_000));
    return { startedAt, durationMs: Math.round(performance.now() - started), ...response };
  }

  private async attempt(delivery: CallbackRequest, signingKey: string, timestampSeconds: number): Promise<Response> {
    let url: URL;
    try {
      url = new URL(delivery.targetUrl);
    } catch {
      return { responseExcerpt: '', error: 'target URL is not a valid URL' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { responseExcerpt: '', error: `${TARGET_NOT_ALLOWED}: only http: and https: URLs` };
    }
    // Node does not call `lookup` for IP literals, so those are checked here.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!this.config.allowPrivate && isIP(host) && isForbiddenAddress(host)) {
      return { responseExcerpt: '', error: TARGET_NOT_ALLOWED };
    }
    const payload = Buffer.from(delivery.body, 'utf8');
    let headers: OutgoingHttpHeaders;
    try {
      headers = signedHeaders(delivery, signingKey, timestampSeconds, payload.length);
    } catch {
      return { responseExcerpt: '', error: 'stored body is not a callback ({event, payload}) and cannot be signed' };
    }
    return this.post(url, headers, payload);
  }

  private post(url: URL, headers: OutgoingHttpHeaders, payload: Buffer): Promise<Response> {
    const { timeoutMs, allowPrivate } = this.config;
    // agent: false gives every attempt its own connection, so each one passes the address check
    // and a stale pooled socket never shows up as a receiver failure.
    const options: RequestOptions = { method: 'POST', headers, agent: false, ...(allowPrivate ? {} : { lookup: guardedLookup }) };
    return new Promise((resolve) => {
      let response: IncomingMessage | undefined;
      const chunks: Buffer[] = [];
      let received = 0;
      let settled = false;
      const settle = (error?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // Whatever the receiver still sends (a huge or endless body) is never read.
        request.destroy();
        if (!response) return resolve({ responseExcerpt: '', error });
        resolve({
          statusCode: response.statusCode,
          responseExcerpt: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', ''),
          retryAfterMs: parseRetryAfter(response.headers['retry-after']),
        });
      };
      let request: ClientRequest;
      try {
        request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options);
      } catch (error) {
        // e.g. a webhook id with characters a header cannot carry
        return resolve({ responseExcerpt: '', error: (error as Error).message });
      }
      // A status that arrived in time stands even if the body then stalls or breaks off. The extra
      // setImmediate lets a response that arrived while the event loop was busy (an embedded
      // database works on this thread) be read before the attempt is declared timed out.
      const timer = setTimeout(() => setImmediate(() => settle(`timed out after ${timeoutMs} ms`)), timeoutMs);
      request.on('response', (incoming) => {
        response = incoming;
        incoming.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          if (received >= RESPONSE_EXCERPT_BYTES) settle();
        });
        incoming.on('end', () => settle());
        incoming.on('error', () => settle());
      });
      request.on('error', (error: NodeJS.ErrnoException) => settle(error.message || error.code || 'request failed'));
      request.end(payload);
    });
  }
}

function signedHeaders(delivery: CallbackRequest, signingKey: string, timestampSeconds: number, length: number): OutgoingHttpHeaders {
  const { payload } = JSON.parse(delivery.body) as { payload?: CollectionSignatureFields };
  if (typeof payload !== 'object' || payload === null) throw new TypeError('callback body has no payload');
  return {
    'content-type': 'application/json',
    'content-length': length,
    'user-agent': USER_AGENT,
    'hmac-signature': collectionSignature(signingKey, payload),
    ...standardWebhookHeaders(signingKey, delivery.webhookId, timestampSeconds, delivery.body),
  };
}
