/**
 * Shared setup of the HTTP edge specs (http-edge.*.spec.ts): every path `npm start` serves with
 * the methods it serves there, and requests sent over a real socket to the in-process Paygate's
 * loopback listener (node:http, so any method and any bytes can be sent: fetch refuses TRACE).
 * The Paygate, its merchants and the count of writes come from input-paygate-test-setup.ts.
 *
 * Test code (it uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out.
 */
import { request } from 'node:http';
import type { InputContext } from './input-routes-test-setup';

/** A collection reference that has the documented form (`PG` and 24 Crockford base32) and does not exist. */
export const UNKNOWN_REFERENCE = 'PG0000000000000000000000ZZ';
/** A merchant id that has the documented form and does not exist. */
export const UNKNOWN_MERCHANT = 'mer_0000000000000000';

/** The methods tried on every path; QUERY is RFC 10008's safe method with a body. */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'];

/**
 * Every path of `npm start` (gateway, admin, platform, OpenAPI, sandbox, provider callbacks), as
 * a client would write it, with the methods served there. The unprefixed merchant paths are
 * aliases of /v1; HEAD is served wherever GET is.
 */
export const KNOWN_PATHS = (context: InputContext): [string, string[]][] => {
  const merchant = context.merchant.id;
  return [
    ['/health/live', ['GET', 'HEAD']],
    ['/health/ready', ['GET', 'HEAD']],
    ['/metrics', ['GET', 'HEAD']],
    ['/docs', ['GET', 'HEAD']],
    ['/openapi.json', ['GET', 'HEAD']],
    ['/openapi.yaml', ['GET', 'HEAD']],
    ...['/v1', ''].flatMap((prefix): [string, string[]][] => [
      [`${prefix}/collections`, ['GET', 'HEAD']],
      [`${prefix}/collections/initialize`, ['POST']],
      [`${prefix}/collections/collect-for-payment`, ['POST']],
      [`${prefix}/collections/confirm`, ['POST']],
      [`${prefix}/collections/${UNKNOWN_REFERENCE}`, ['GET', 'HEAD']],
      [`${prefix}/callbacks/resend`, ['POST']],
      [`${prefix}/callbacks/stream`, ['GET', 'HEAD']],
      [`${prefix}/payment-providers`, ['GET', 'HEAD']],
      [`${prefix}/wallet-balances`, ['GET', 'HEAD']],
    ]),
    [`/v1/checkout/return/${UNKNOWN_REFERENCE}`, ['GET', 'HEAD']],
    ['/admin/v1/deliveries', ['GET', 'HEAD']],
    ['/admin/v1/deliveries/retry', ['POST']],
    ['/admin/v1/merchants', ['POST']],
    [`/admin/v1/merchants/${merchant}`, ['GET', 'HEAD', 'PATCH']],
    [`/admin/v1/merchants/${UNKNOWN_MERCHANT}`, ['GET', 'HEAD', 'PATCH']],
    [`/admin/v1/merchants/${merchant}/keys`, ['POST']],
    ['/admin/v1/wallets/top-up', ['POST']],
    ['/sandbox/v1/wallets/top-up', ['POST']],
    [`/provider-callbacks/mtn_momo_ug/${UNKNOWN_REFERENCE}`, ['PUT', 'POST']],
    ['/sandbox/v1/prns', ['POST']],
    ['/sandbox/v1/prns/2250000001301', ['GET', 'HEAD']],
    ['/sandbox/v1/biller/faults', ['GET', 'HEAD', 'PUT']],
    ['/sandbox/momo/collection/token/', ['POST']],
    ['/sandbox/momo/collection/v1_0/requesttopay', ['POST']],
    ['/sandbox/momo/collection/v1_0/requesttopay/00000000-0000-4000-8000-000000000001', ['GET', 'HEAD']],
    ['/sandbox/card/v1/checkout/sessions', ['POST']],
    [`/sandbox/card/v1/checkout/sessions/${context.checkoutSession}`, ['GET', 'HEAD']],
    [`/sandbox/card/checkout/${context.checkoutSession}`, ['GET', 'HEAD', 'POST']],
    [`/sandbox/card/checkout/${context.checkoutSession}/cancel`, ['POST']],
    ['/sandbox/biller/v1/prns/2250000001301', ['GET', 'HEAD']],
    ['/sandbox/biller/v1/prns/2250000001301/payments', ['POST']],
    ['/sandbox/biller/v1/payments/edge-1', ['GET', 'HEAD']],
  ];
};

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over a socket to `base` (the Paygate's own loopback listener), with `body` as raw bytes. */
export function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<RawAnswer> {
  // Node's client frames a body of DELETE, OPTIONS or TRACE only with an explicit length.
  const framed =
    body === undefined || 'content-length' in headers
      ? headers
      : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}${path}`, { method, headers: framed }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The methods of an `Allow` header, sorted. */
export const allowed = (answer: RawAnswer) =>
  String(answer.headers.allow ?? '')
    .split(', ')
    .filter(Boolean)
    .sort();

/** An error answer in the envelope `{code, status, message, data}` with an x-request-id; HEAD answers have no body. */
export function expectEnvelope(answer: RawAnswer, method: string, code: number, message: string | RegExp = /./): void {
  expect(answer.status).toBe(code);
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  if (method === 'HEAD') {
    expect(answer.text).toBe('');
    return;
  }
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(answer.text)).toEqual({
    code,
    status: 'error',
    message: typeof message === 'string' ? message : expect.stringMatching(message),
    data: expect.any(Object),
  });
}
