/**
 * Corpus of generated requests across every route that reads input (public API, admin, sandbox,
 * provider callbacks; routes in input-routes-test-setup.ts): base requests left as they are or
 * changed once — a string field holding NUL or an unpaired surrogate, a body nested far past
 * MAX_JSON_DEPTH, a field replaced by any JSON value or dropped, an unknown field, random bytes,
 * a body over MAX_BODY_BYTES, the wrong content type, junk in the query string. Every answer must
 * be below 500, and every refused request (4xx) must have appended no event and added no row.
 *
 * Seeded and reproducible: CORPUS_SEED (default below) and CORPUS_SIZE (input-sizes.ts) pick the corpus;
 * the summary line prints the seed. Requests go one at a time through Fastify's inject into one
 * in-process Paygate, so each request's writes are its own.
 */
import * as fc from 'fast-check';
import {
  encode,
  startInputPaygate,
  stringFields,
  type InputPaygate,
  type Sent,
  type Writes,
  withValue,
} from './input-paygate-test-setup';
import { INPUT_ROUTES, type InputRoute, type RouteRequest } from './input-routes-test-setup';
import { CORPUS_SIZE } from './input-sizes';

const DEFAULT_SEED = 20_261_212;
const SEED = Number(process.env.CORPUS_SEED ?? DEFAULT_SEED);

// ---------------------------------------------------------------------------------------------
// Changes to a base request

type Change =
  | { kind: 'none' }
  | { kind: 'unstorable text'; field: number; text: string }
  | { kind: 'deep nesting'; field: number; levels: number; objects: boolean }
  | { kind: 'field replaced'; field: number; value: unknown }
  | { kind: 'field dropped'; field: number }
  | { kind: 'unknown field'; key: string; value: unknown }
  | { kind: 'whole body replaced'; value: unknown }
  | { kind: 'random bytes'; bytes: Uint8Array }
  | { kind: 'body too large'; extra: number }
  | { kind: 'content type'; type: string | undefined }
  | { kind: 'query junk'; key: string; value: string };

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.jsonValue({ stringUnit: 'binary', maxDepth: 2 }),
  fc.constantFrom(-0, 1e308, 5e-324, 2 ** 64, null, true, false, '', ' ', 'auto', 'UGX', '\u0000', '\ud800', [], {}),
  fc.string({ unit: 'binary', maxLength: 200 }),
);
const around = fc.string({ unit: 'binary', maxLength: 10 });
const unstorableText = fc
  .tuple(around, fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'), around)
  .map(([before, bad, after]) => before + bad + after);
const key = fc.oneof(
  fc.string({ minLength: 1, maxLength: 16 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 16 }),
  fc.constantFrom('constructor', 'toString', '__proto__', 'prototype'),
);
const garbage = fc.oneof(
  fc.uint8Array({ maxLength: 1024 }),
  fc.string({ unit: 'binary', maxLength: 300 }).map((text) => new TextEncoder().encode(text)),
  fc
    .constantFrom(
      '',
      ' ',
      '{',
      '{"a":',
      '[1,]',
      '{"a":1}{}',
      '\ufeff{}',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      'nul\u0000l',
    )
    .map((text) => new TextEncoder().encode(text)),
);

/** An index into a route's fields (taken modulo their number), each as likely. */
const anyIndex = fc.noBias(fc.integer({ min: 0, max: 2 ** 20 }));

const change: fc.Arbitrary<Change> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('unstorable text' as const), field: anyIndex, text: unstorableText }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deep nesting' as const),
      field: anyIndex,
      levels: fc.integer({ min: 33, max: 6000 }),
      objects: fc.boolean(),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('field replaced' as const), field: anyIndex, value: anyJson }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('field dropped' as const), field: anyIndex }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unknown field' as const), key, value: anyJson }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('whole body replaced' as const), value: anyJson }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('random bytes' as const), bytes: garbage }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('body too large' as const), extra: fc.integer({ min: 1, max: 4096 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('content type' as const),
      type: fc.constantFrom(
        undefined,
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'application/json',
        'multipart/form-data; boundary=x',
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('query junk' as const), key, value: fc.oneof(around, unstorableText) }),
  },
);

// Uniform: fast-check's integers otherwise favour small values, and so the first routes and fields.
const corpus = fc.record({ route: fc.noBias(fc.integer({ min: 0, max: INPUT_ROUTES.length - 1 })), change });

/** Top-level names of the request's fields that a change can target: path, query, body. */
function topFields(request: RouteRequest): { location: 'path' | 'query' | 'body'; name: string }[] {
  return [
    ...Object.keys(request.params).map((name) => ({ location: 'path' as const, name })),
    ...Object.keys(request.query).map((name) => ({ location: 'query' as const, name })),
    ...Object.keys(request.body ?? {}).map((name) => ({ location: 'body' as const, name })),
  ];
}

const textOf = (sent: Sent) => (typeof sent.payload === 'string' ? sent.payload : '');

/** The request on the wire after `change`. */
function apply(route: InputRoute, request: RouteRequest, change: Change, maxBodyBytes: number): Sent {
  const fields = topFields(request);
  const target = (index: number) => fields[index % fields.length];
  switch (change.kind) {
    case 'none':
      return encode(route, request);
    case 'unstorable text': {
      const strings = stringFields(route);
      if (strings.length === 0) return encode(route, { ...request, query: { ...request.query, q: change.text } });
      const field = strings[change.field % strings.length];
      return encode(route, withValue(request, field.location, field.segments, change.text));
    }
    case 'deep nesting': {
      const nested = change.objects
        ? '{"a":'.repeat(change.levels) + '1' + '}'.repeat(change.levels)
        : '['.repeat(change.levels) + ']'.repeat(change.levels);
      const bodyKeys = Object.keys(request.body ?? {});
      if (route.form || bodyKeys.length === 0)
        return {
          ...encode(route, request),
          headers: { ...request.headers, 'content-type': 'application/json' },
          payload: nested,
        };
      const marker = '(nested)';
      const sent = encode(route, {
        ...request,
        body: { ...request.body, [bodyKeys[change.field % bodyKeys.length]]: marker },
      });
      return { ...sent, payload: textOf(sent).replace(JSON.stringify(marker), nested) };
    }
    case 'field replaced': {
      if (fields.length === 0) return encode(route, request);
      const { location, name } = target(change.field);
      const value =
        location === 'body'
          ? change.value
          : typeof change.value === 'string'
            ? change.value
            : (JSON.stringify(change.value) ?? '');
      return encode(route, withValue(request, location, [name], value));
    }
    case 'field dropped': {
      if (fields.length === 0) return encode(route, request);
      const { location, name } = target(change.field);
      const from = location === 'path' ? 'params' : location;
      const without = { ...(request[from] as Record<string, unknown>) };
      delete without[name];
      // A path parameter cannot be absent: it becomes empty.
      return encode(
        route,
        location === 'path'
          ? { ...request, params: { ...request.params, [name]: '' } }
          : { ...request, [from]: without },
      );
    }
    case 'unknown field':
      return encode(
        route,
        request.body === undefined
          ? { ...request, query: { ...request.query, [change.key]: String(change.value) } }
          : { ...request, body: { ...request.body, [change.key]: change.value } },
      );
    case 'whole body replaced': {
      const sent = encode(route, { ...request, body: {} });
      return {
        ...sent,
        headers: { ...sent.headers, 'content-type': 'application/json' },
        payload: JSON.stringify(change.value) ?? 'null',
      };
    }
    case 'random bytes': {
      const sent = encode(route, { ...request, body: request.body ?? {} });
      return { ...sent, payload: Buffer.from(change.bytes) };
    }
    case 'body too large':
      return encode(route, {
        ...request,
        body: { ...(request.body ?? {}), padding: 'x'.repeat(maxBodyBytes + change.extra) },
      });
    case 'content type': {
      const sent = encode(route, { ...request, body: request.body ?? {} });
      const headers = { ...sent.headers };
      if (change.type === undefined) delete headers['content-type'];
      else headers['content-type'] = change.type;
      return { ...sent, headers };
    }
    case 'query junk':
      return encode(route, { ...request, query: { ...request.query, [change.key]: change.value } });
  }
}

// ---------------------------------------------------------------------------------------------

interface Failure {
  index: number;
  route: string;
  change: string;
  status: number;
  answer: string;
  written?: Writes;
}

describe(`input corpus: ${CORPUS_SIZE} generated requests over ${INPUT_ROUTES.length} routes (seed ${SEED})`, () => {
  let input: InputPaygate;

  beforeAll(async () => {
    input = await startInputPaygate();
  });

  afterAll(async () => {
    await input?.close();
  });

  it('answers every request below 500, and refused requests write no event and no row', async () => {
    const samples = fc.sample(corpus, { seed: SEED, numRuns: CORPUS_SIZE });
    const maxBodyBytes = input.paygate.config.input.maxBodyBytes;
    const serverErrors: Failure[] = [];
    const writingRefusals: Failure[] = [];
    const byGroup = new Map<string, number>();
    const byKind = new Map<string, number>();
    let refused = 0;
    await input.writesSinceLastLook();
    for (const [index, { route: routeIndex, change }] of samples.entries()) {
      const route = INPUT_ROUTES[routeIndex];
      const sent = apply(route, route.base(input.context, index), change, maxBodyBytes);
      const answer = await input.send(sent);
      const written = await input.writesSinceLastLook();
      byGroup.set(route.group, (byGroup.get(route.group) ?? 0) + 1);
      byKind.set(change.kind, (byKind.get(change.kind) ?? 0) + 1);
      const failure = {
        index,
        route: route.name,
        change: JSON.stringify(change).slice(0, 200),
        status: answer.status,
        answer: answer.text.slice(0, 200),
      };
      if (answer.status >= 500) serverErrors.push(failure);
      if (answer.status >= 400) {
        refused++;
        if (written.events !== 0 || Object.keys(written.rows).length > 0) writingRefusals.push({ ...failure, written });
      }
      // A fault injected into the sandbox biller on purpose would make its payment API answer
      // 503 by design: undone at once, so that only failures of input handling count.
      if (route.path === '/sandbox/v1/biller/faults' && answer.status < 300) {
        await input.send({
          method: 'PUT',
          url: route.path,
          headers: { ...sent.headers, 'content-type': 'application/json' },
          payload: '{}',
        });
        await input.writesSinceLastLook();
      }
    }
    const refusedEvents = writingRefusals.reduce((sum, failure) => sum + (failure.written?.events ?? 0), 0);
    process.stdout.write(
      `input corpus (seed ${SEED}): ${CORPUS_SIZE.toLocaleString('en')} requests over ${INPUT_ROUTES.length} routes ` +
        `(${[...byGroup].map(([group, count]) => `${group} ${count}`).join(', ')}); ${refused} refused, ${CORPUS_SIZE - refused} accepted; ` +
        `${serverErrors.length} × 5xx; ${refusedEvents} events and ${writingRefusals.length} writing refusals among refused requests\n` +
        `  changes: ${[...byKind].map(([kind, count]) => `${kind} ${count}`).join(', ')}\n`,
    );
    expect({ serverErrors: serverErrors.slice(0, 10), writingRefusals: writingRefusals.slice(0, 10) }).toEqual({
      serverErrors: [],
      writingRefusals: [],
    });
  }, 600_000);
});
