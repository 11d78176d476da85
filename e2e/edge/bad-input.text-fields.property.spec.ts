/**
 * Property-based checks of the input layer in front of every route (libs/platform input-guard):
 * every string field of every route that reads input — public API, admin, sandbox (the hosted
 * checkout's form included) and provider callbacks; body, query string and path — answers a
 * text holding NUL or an unpaired UTF-16 surrogate (high or low) with a 400 envelope naming that
 * field and where it was, and any body nested deeper than MAX_JSON_DEPTH with a 400 before it is
 * parsed; neither writes an event or a row. Routes and base requests in
 * input-routes-test-setup.ts. FC_SEED replays a failure; runs per field: TEXT_FIELD_RUNS (input-sizes.ts).
 */
import * as fc from 'fast-check';
import {
  encode,
  hasJsonBody,
  NOTHING_WRITTEN,
  startInputPaygate,
  stringFields,
  withValue,
  type InputPaygate,
} from './input-paygate-test-setup';
import { INPUT_ROUTES, type InputRoute, type RouteRequest } from './input-routes-test-setup';
import { TEXT_FIELD_RUNS } from './input-sizes';

const options = (): fc.Parameters<unknown> => ({
  numRuns: TEXT_FIELD_RUNS,
  ...(process.env.FC_SEED !== undefined && { seed: Number(process.env.FC_SEED) }),
});

/** Text around the bad unit: printable, or any code point (surrogate pairs included, never a lone half). */
const around = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }));
const badUnit = fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ude00\ud83d');
/** Holds NUL or an unpaired surrogate, wherever it sits. */
const unstorable = fc.tuple(around, badUnit, around).map(([before, bad, after]) => before + bad + after);
/** URLs carry UTF-8, which has no lone surrogates: there a bad text holds NUL. */
const withNul = fc.tuple(around, around).map(([before, after]) => `${before}\u0000${after}`);

let input: InputPaygate;

beforeAll(async () => {
  input = await startInputPaygate();
});

afterAll(async () => {
  await input?.close();
});

const WHERE: Record<string, string> = { body: '', query: 'query parameter ', path: 'path parameter ' };

async function refusedNamingField(
  route: InputRoute,
  request: RouteRequest,
  location: string,
  field: string,
): Promise<void> {
  await input.writesSinceLastLook();
  const answer = await input.send(encode(route, request));
  const written = await input.writesSinceLastLook();
  const errors = ((answer.body as { data?: { errors?: unknown[] } }).data?.errors ?? []) as {
    field: string;
    message: string;
  }[];
  const message = `${WHERE[location]}${field} must not contain NUL characters or unpaired UTF-16 surrogates`;
  expect({
    route: route.name,
    field,
    status: answer.status,
    named: errors.some((error) => error.field === field && error.message === message),
    written,
  }).toEqual({
    route: route.name,
    field,
    status: 400,
    named: true,
    written: NOTHING_WRITTEN,
  });
  expect(answer.body).toEqual({
    code: 400,
    status: 'error',
    message: expect.stringContaining('must not contain NUL characters or unpaired UTF-16 surrogates'),
    data: expect.any(Object),
  });
}

describe.each(
  INPUT_ROUTES.filter((route) => stringFields(route).length > 0).map((route) => [route.name, route] as const),
)('%s', (_name, route) => {
  it.each(stringFields(route).map((field) => [`${field.location} ${field.path}`, field] as const))(
    'refuses NUL and unpaired surrogates in %s with a 400 naming it, writing nothing',
    async (_label, field) => {
      const json = field.location === 'body' && !route.form;
      await fc.assert(
        fc.asyncProperty(json ? unstorable : withNul, fc.nat(), async (text, n) => {
          const request = withValue(route.base(input.context, 1_000_000 + n), field.location, field.segments, text);
          await refusedNamingField(route, request, field.location, field.path);
        }),
        options(),
      );
    },
  );
});

describe('bodies nested deeper than the limit', () => {
  const bodyRoutes = INPUT_ROUTES.filter(hasJsonBody);
  const NESTED = '(nested value)';
  const limit = () => input.paygate.config.input.maxJsonDepth;
  /** A value nesting `levels` arrays or objects (levels ≥ 1), built as text: no recursion. */
  const nestedText = (levels: number, objects: boolean) =>
    objects ? '{"a":'.repeat(levels) + '1' + '}'.repeat(levels) : '['.repeat(levels) + ']'.repeat(levels);

  /** The route's base body with one top-level field's value replaced by raw JSON text. */
  function bodyWith(route: InputRoute, fieldIndex: number, valueText: string) {
    const request = route.base(input.context, 2_000_000 + fieldIndex);
    const keys = Object.keys(request.body!);
    const sent = encode(route, { ...request, body: { ...request.body, [keys[fieldIndex % keys.length]]: NESTED } });
    return { ...sent, payload: (sent.payload as string).replace(JSON.stringify(NESTED), valueText) };
  }

  it.each(bodyRoutes.map((route) => [route.name, route] as const))(
    '%s: 400 before parsing, nothing written',
    async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 6000 }),
          fc.nat(),
          fc.boolean(),
          async (extra, fieldIndex, objects) => {
            // The body object is the first level; its field's value adds the rest.
            const sent = bodyWith(route, fieldIndex, nestedText(limit() - 1 + extra, objects));
            await input.writesSinceLastLook();
            const answer = await input.send(sent);
            expect({ route: route.name, status: answer.status, written: await input.writesSinceLastLook() }).toEqual({
              route: route.name,
              status: 400,
              written: NOTHING_WRITTEN,
            });
            expect(answer.body).toEqual({
              code: 400,
              status: 'error',
              message: `the request body nests objects and arrays deeper than ${limit()} levels`,
              data: {
                errors: [
                  { field: 'body', message: `the request body nests objects and arrays deeper than ${limit()} levels` },
                ],
              },
            });
          },
        ),
        options(),
      );
    },
  );

  it.each(bodyRoutes.map((route) => [route.name, route] as const))(
    '%s: a body exactly at the limit is answered by the route, not refused for depth',
    async (_name, route) => {
      const sent = bodyWith(route, 0, nestedText(limit() - 1, true));
      const answer = await input.send(sent);
      expect({
        route: route.name,
        status: answer.status < 500 ? 'not 5xx' : answer.status,
        message: (answer.body as { message?: string }).message ?? '',
      }).toEqual({
        route: route.name,
        status: 'not 5xx',
        message: expect.not.stringContaining('deeper than'),
      });
    },
  );
});
