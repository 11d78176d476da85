import {
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestOptions,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connectRefusal, guardedLookup, TARGET_NOT_ALLOWED } from '@paygate/net-guard';
import { collectionSignature, standardWebhookHeaders, type CollectionSignatureFields } from '@paygate/signing';
import type { DeliveryConfig } from './delivery-config';

export const RESPONSE_EXCERPT_BYTES = 1024;
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

type Response = Pick<AttemptOutcome, 'statusCode' | 'responseExcerpt' | 'error' | 'retryAfterMs'>;

/** One signed POST of a stored callback; never throws, every failure is an outcome. */
export class CallbackSender {
  constructor(private readonly config: Pick<DeliveryConfig, 'timeoutMs' | 'allowPrivate'>) {}

  /** `onSigned` sees the signature headers just before the request goes out (the callback stream records them). */
  async send(
    delivery: CallbackRequest,
    signingKey: string,
    onSigned?: (headers: Record<string, string>) => Promise<void>,
  ): Promise<AttemptOutcome> {
    const startedAt = new Date();
    const started = performance.now();
    const response = await this.attempt(delivery, signingKey, Math.floor(startedAt.getTime() / 1_000), onSigned);
    return { startedAt, durationMs: Math.round(performance.now() - started), ...response };
  }

  private async attempt(
    delivery: CallbackRequest,
    signingKey: string,
    timestampSeconds: number,
    onSigned?: (headers: Record<string, string>) => Promise<void>,
  ): Promise<Response> {
    let url: URL;
    try {
      url = new URL(delivery.targetUrl);
    } catch {
      return { responseExcerpt: '', error: 'target URL is not a valid URL' };
    }
    // The scheme and an IP literal or localhost name are refused here; a name's addresses when it resolves
    // (guardedLookup).
    const refused = connectRefusal(url, this.config);
    if (refused !== undefined) return { responseExcerpt: '', error: `${TARGET_NOT_ALLOWED}: ${refused}` };
    const payload = Buffer.from(delivery.body, 'utf8');
    let signed: Record<string, string>;
    try {
      signed = signedCallbackHeaders(signingKey, delivery.webhookId, delivery.body, timestampSeconds);
    } catch {
      return { responseExcerpt: '', error: 'stored body is not a callback ({event, payload}) and cannot be signed' };
    }
    await onSigned?.(signed);
    const headers: OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': payload.length,
      'user-agent': USER_AGENT,
      ...signed,
    };
    return this.post(url, headers, payload);
  }

  private post(url: URL, headers: OutgoingHttpHeaders, payload: Buffer): Promise<Response> {
    const { timeoutMs } = this.config;
    // agent: false gives every attempt its own connection, so each one passes the address check
    // and a stale pooled socket never shows up as a receiver failure.
    const options: RequestOptions = { method: 'POST', headers, agent: false, lookup: guardedLookup(this.config) };
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
          responseExcerpt: Buffer.concat(chunks)
            .subarray(0, RESPONSE_EXCERPT_BYTES)
            .toString('utf8')
            .replaceAll('\u0000', ''),
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

/**
 * The signature headers of one attempt: hmac-signature and the Standard Webhooks three. Throws
 * when the body is not a callback. The callback stream carries exactly these.
 */
export function signedCallbackHeaders(
  signingKey: string,
  webhookId: string,
  body: string,
  timestampSeconds: number,
): Record<string, string> {
  const { payload } = JSON.parse(body) as { payload?: CollectionSignatureFields };
  if (typeof payload !== 'object' || payload === null) throw new TypeError('callback body has no payload');
  return {
    'hmac-signature': collectionSignature(signingKey, payload),
    ...standardWebhookHeaders(signingKey, webhookId, timestampSeconds, body),
  };
}
