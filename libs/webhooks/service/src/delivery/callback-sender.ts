import type { Agent, Dispatcher } from 'undici';
import { connectRefusal, guardedDispatcher, TARGET_NOT_ALLOWED } from '@paygate/net-guard';
import { callbackSignature, standardWebhookHeaders } from '@paygate/signing';
import type { DeliveryConfig } from './delivery-config';

export const RESPONSE_EXCERPT_BYTES = 1024;
export const USER_AGENT = 'Paygate-Webhooks/1';
/** How much of a longer answer is read and dropped to keep its connection, rather than closing it. */
const DISCARDED_BYTES_LIMIT = 64 * 1024;
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

/**
 * One signed POST of a stored callback; never throws, every failure is an outcome. Attempts to a receiver share
 * kept-alive connections (a TLS handshake per callback would cost more than the rest of it), each new one checked by
 * the address guard; `close` when the deliveries stop.
 */
export class CallbackSender {
  private readonly connections: Agent;

  constructor(private readonly config: Pick<DeliveryConfig, 'timeoutMs' | 'allowPrivate' | 'perHostConcurrency'>) {
    // More connections to one receiver would idle: no more attempts than perHostConcurrency go to a host at once.
    this.connections = guardedDispatcher(config, {
      connectionsPerOrigin: config.perHostConcurrency,
      connectTimeoutMs: config.timeoutMs,
    });
  }

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

  /**
   * Closes the kept-alive connections. Called once no attempt is in flight; one that still is fails at once rather
   * than hold up a shutdown.
   */
  close(): Promise<void> {
    return this.connections.destroy();
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
    // The scheme and an IP literal or localhost name are refused here, with the range that refuses them; a name's
    // addresses when a new connection resolves it (guardedDispatcher).
    const refused = connectRefusal(url, this.config);
    if (refused !== undefined) return { responseExcerpt: '', error: `${TARGET_NOT_ALLOWED}: ${refused}` };
    let signed: Record<string, string>;
    try {
      signed = signedCallbackHeaders(signingKey, delivery.webhookId, delivery.body, timestampSeconds);
    } catch {
      return { responseExcerpt: '', error: 'stored body is not a callback ({event, payload}) and cannot be signed' };
    }
    await onSigned?.(signed);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...basicAuthorization(url),
      ...signed,
    };
    return this.post(url, headers, Buffer.from(delivery.body, 'utf8'));
  }

  /** The POST itself; redirects are answers, never followed. */
  private async post(url: URL, headers: Record<string, string>, payload: Buffer): Promise<Response> {
    const { timeoutMs } = this.config;
    const deadline = new AbortController();
    // The extra setImmediate lets a response that arrived while the event loop was busy (an embedded database works
    // on this thread) be read before the attempt is declared timed out.
    const timer = setTimeout(() => setImmediate(() => deadline.abort()), timeoutMs);
    try {
      const response = await this.connections.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body: payload,
        signal: deadline.signal,
        // Bounds a stall while the rest of a long answer is dropped (excerptOf); the deadline bounds the attempt.
        bodyTimeout: timeoutMs,
      });
      // A status that arrived in time stands even if the body then stalls or breaks off.
      const retryAfter = response.headers['retry-after'];
      return {
        statusCode: response.statusCode,
        responseExcerpt: await excerptOf(response.body, deadline.signal),
        retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
      };
    } catch (error) {
      if (deadline.signal.aborted) return { responseExcerpt: '', error: `timed out after ${timeoutMs} ms` };
      // e.g. a refused connection, or a webhook id with characters a header cannot carry
      const { message, code } = error as NodeJS.ErrnoException;
      return { responseExcerpt: '', error: message || code || 'request failed' };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The first RESPONSE_EXCERPT_BYTES of a response body, without NUL, once they are in, the body has ended or broken
 * off, or the deadline has passed. The rest of a body is read and dropped in the background, up to
 * DISCARDED_BYTES_LIMIT (and bodyTimeout between chunks), so its connection can serve the next callback; a body
 * longer or slower than that, or cut short by the deadline, is destroyed with its connection, so a receiver that
 * keeps sending never holds a pooled one.
 */
function excerptOf(body: Dispatcher.ResponseData['body'], deadline: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = () => {
      deadline.removeEventListener('abort', done);
      body.off('data', read).off('end', done).off('error', done);
      if (deadline.aborted) body.on('error', () => undefined).destroy();
      else if (!body.readableEnded) body.dump({ limit: DISCARDED_BYTES_LIMIT }).catch(() => undefined);
      resolve(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', ''));
    };
    const read = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= RESPONSE_EXCERPT_BYTES) done();
    };
    if (deadline.aborted) return done();
    deadline.addEventListener('abort', done, { once: true });
    body.on('data', read).once('end', done).once('error', done);
  });
}

/** Credentials in the URL (`https://user:pass@host/`) as Basic authorization, as Node's http client sends them. */
function basicAuthorization(url: URL): Record<string, string> {
  if (url.username === '' && url.password === '') return {};
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/**
 * The signature headers of one attempt: hmac-signature (of the fields its event names) and the Standard Webhooks three. Throws
 * when the body is not a callback. The callback stream carries exactly these.
 */
export function signedCallbackHeaders(
  signingKey: string,
  webhookId: string,
  body: string,
  timestampSeconds: number,
): Record<string, string> {
  const { event, payload } = JSON.parse(body) as { event?: unknown; payload?: unknown };
  if (typeof payload !== 'object' || payload === null) throw new TypeError('callback body has no payload');
  return {
    'hmac-signature': callbackSignature(signingKey, String(event), payload),
    ...standardWebhookHeaders(signingKey, webhookId, timestampSeconds, body),
  };
}
