/**
 * How the input suites (bad-input.text-fields.property.spec.ts, bad-input.corpus.spec.ts) use the
 * routes of input-routes-test-setup.ts: the string fields of a route, a request changed at one
 * field, the request on the wire, and one in-process Paygate to send them to with Fastify's
 * inject (no sockets), counting what each request wrote.
 *
 * Test code: jest does not collect it (not *.spec.ts) and the build leaves it out.
 */
import { PaygateClient, TEST_ADMIN_TOKEN, TEST_TIMERS } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import {
  INPUT_ROUTES,
  type InputContext,
  type InputRoute,
  type Json,
  type Location,
  type RouteRequest,
} from './input-routes-test-setup';
import { startTestPaygate } from '../standalone/test-paygate';

const HOUR_MS = '3600000';

export interface StringField {
  location: Location;
  /** As the server names it: `payer.partyId`, `keys[0]`, a query or path parameter's name. */
  path: string;
}

type Segment = string | number;

/** Paths of the string leaves of a JSON value. */
function stringLeaves(value: unknown, at: Segment[] = []): Segment[][] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringLeaves(item, [...at, index]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, inner]) => stringLeaves(inner, [...at, key]));
  return [];
}

const pathName = (segments: Segment[]) =>
  segments
    .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');

const PLACEHOLDER_CONTEXT: InputContext = {
  url: 'http://127.0.0.1:1',
  merchant: { id: 'mer_placeholder', publicKey: 'pk', secretKey: 'sk' },
  otherMerchantId: 'mer_other',
  momoToken: 'token',
  checkoutSession: 'cs_placeholder',
};

/** Every string a client controls in the route's base request, with its parsed path. */
export function stringFields(route: InputRoute): (StringField & { segments: Segment[] })[] {
  const request = route.base(PLACEHOLDER_CONTEXT, 0);
  return [
    ...Object.keys(request.params).map((name) => ({ location: 'path' as const, path: name, segments: [name] })),
    ...Object.keys(request.query).map((name) => ({ location: 'query' as const, path: name, segments: [name] })),
    ...stringLeaves(request.body ?? {}).map((segments) => ({
      location: 'body' as const,
      path: pathName(segments),
      segments,
    })),
  ];
}

export const hasJsonBody = (route: InputRoute) => !route.form && route.base(PLACEHOLDER_CONTEXT, 0).body !== undefined;

/** `request` with the value at `segments` of its `location` replaced. */
export function withValue(
  request: RouteRequest,
  location: Location,
  segments: Segment[],
  value: unknown,
): RouteRequest {
  if (location === 'path') return { ...request, params: { ...request.params, [segments[0]]: value as string } };
  if (location === 'query') return { ...request, query: { ...request.query, [segments[0]]: value as string } };
  const body = structuredClone(request.body ?? {});
  let target = body as Record<Segment, unknown>;
  for (const segment of segments.slice(0, -1)) target = target[segment] as Record<Segment, unknown>;
  target[segments[segments.length - 1]] = value;
  return { ...request, body };
}

// ---------------------------------------------------------------------------------------------
// Sending

export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/**
 * The request on the wire. Path and query values are percent-encoded as UTF-8, so a NUL travels
 * as %00; a lone surrogate has no UTF-8 form and is sent as the bytes of its code point (CESU-8),
 * which is what a client sending it anyway would put on the wire.
 */
export function encode(route: InputRoute, request: RouteRequest): Sent {
  const path = route.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    if (request.params[name] === undefined) throw new Error(`${route.name}: no value for the path parameter ${name}`);
    return percentEncode(request.params[name]);
  });
  const query = Object.entries(request.query)
    .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`)
    .join('&');
  const url = query === '' ? path : `${path}?${query}`;
  if (request.body === undefined) return { method: route.method, url, headers: request.headers };
  if (route.form) {
    const form = Object.entries(request.body)
      .map(([name, value]) => `${percentEncode(name)}=${percentEncode(String(value))}`)
      .join('&');
    return {
      method: route.method,
      url,
      headers: { ...request.headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form,
    };
  }
  return {
    method: route.method,
    url,
    headers: { ...request.headers, 'content-type': 'application/json' },
    payload: JSON.stringify(request.body),
  };
}

function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff)
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    else out += encodeURIComponent(char);
  }
  return out;
}

export interface Answer {
  status: number;
  text: string;
  body: unknown;
}

// ---------------------------------------------------------------------------------------------
// The Paygate under test

/**
 * What a request writes synchronously: events (the SQL event store's one table of events; these
 * suites run on PGlite) and the rows of the tables the routes insert into.
 */
const COUNTED_TABLES = [
  'es_events',
  'merchants',
  'collection_references',
  'sandbox_biller_prns',
  'sandbox_biller_payments',
  'sandbox_momo_requests',
  'sandbox_momo_tokens',
  'sandbox_card_sessions',
];

export interface Writes {
  events: number;
  rows: Record<string, number>;
}

export interface InputPaygate {
  paygate: InProcessPaygate;
  context: InputContext;
  send(sent: Sent): Promise<Answer>;
  /** Events appended and rows added since the previous call (the first call: since the start). */
  writesSinceLastLook(): Promise<Writes>;
  close(): Promise<void>;
}

/** Paygate with an hour for every timer, two merchants, a MoMo token and an open card checkout. */
export async function startInputPaygate(): Promise<InputPaygate> {
  const paygate = await startTestPaygate({
    ...TEST_TIMERS,
    CONFIRMATION_TIMEOUT_MS: HOUR_MS,
    PROMPT_TIMEOUT_MS: HOUR_MS,
    CHECKOUT_TIMEOUT_MS: HOUR_MS,
    // Nothing is due within the run: background polls only compete with the requests for the store.
    TIMER_TICK_MS: '1000',
    PAYMENT_TIMER_TICK_MS: '1000',
    MONEY_OUT_TIMER_TICK_MS: '1000',
    DISPATCH_TICK_MS: '1000',
    // The card sessions' notify URL is this process's own loopback listener.
    ALLOW_PRIVATE_CALLBACKS: 'true',
  });
  const fastify = paygate.app.getHttpAdapter().getInstance();
  const send = async (sent: Sent): Promise<Answer> => {
    const response = await fastify.inject({
      method: sent.method as 'GET',
      url: sent.url,
      headers: sent.headers,
      ...(sent.payload !== undefined && { payload: sent.payload }),
    });
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      body = response.body;
    }
    return { status: response.statusCode, text: response.body, body };
  };

  const { merchant } = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Input merchant');
  const other = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Input admin target');
  const partial = {
    url: paygate.url,
    merchant,
    otherMerchantId: other.merchant.id,
    momoToken: '',
    checkoutSession: '',
  };
  const route = (name: string) => INPUT_ROUTES.find((candidate) => candidate.name === name)!;
  const token = await send(
    encode(
      route('POST /sandbox/momo/collection/token/'),
      route('POST /sandbox/momo/collection/token/').base(partial, 0),
    ),
  );
  const sessions = route('POST /sandbox/card/v1/checkout/sessions');
  const session = await send(encode(sessions, sessions.base(partial, 0)));
  // Paygate's payout connector takes its provider token once (a row of the sandbox's) and reuses it: taken here, the
  // name checks of the payout routes write nothing of their own.
  const recipients = route('GET /v1/payouts/recipient');
  const recipient = await send(encode(recipients, recipients.base(partial, 0)));
  if (token.status !== 200 || session.status !== 201 || recipient.status !== 200)
    throw new Error(`setup failed: token ${token.text}, session ${session.text}, recipient ${recipient.text}`);
  const context: InputContext = {
    ...partial,
    momoToken: (token.body as Json).access_token as string,
    checkoutSession: (session.body as Json).id as string,
  };

  // One statement, so a look costs one round trip to the store.
  const countAll = `select ${COUNTED_TABLES.map((table) => `(select count(*)::int from ${table}) as ${table}`).join(', ')}`;
  let counts: Record<string, number> = {};
  const writesSinceLastLook = async (): Promise<Writes> => {
    const [now] = await paygate.infrastructure.sql.query<Record<string, number>>(countAll);
    const added = COUNTED_TABLES.filter((table) => now[table] !== (counts[table] ?? 0)).map(
      (table) => [table, now[table] - (counts[table] ?? 0)] as const,
    );
    counts = now;
    return {
      events: Object.fromEntries(added).es_events ?? 0,
      rows: Object.fromEntries(added.filter(([table]) => table !== 'es_events')),
    };
  };
  await writesSinceLastLook();
  return { paygate, context, send, writesSinceLastLook, close: () => paygate.close() };
}

/** Nothing written: no event, no row. */
export const NOTHING_WRITTEN: Writes = { events: 0, rows: {} };
