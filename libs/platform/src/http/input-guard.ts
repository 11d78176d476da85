import { BadRequestException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { parse as parseForm } from 'node:querystring';

/** What any request may carry (libs/config `input`). */
export interface InputLimits {
  maxBodyBytes: number;
  maxJsonDepth: number;
}

/** Where a refused value was: the body, the query string or a path parameter. */
type InputLocation = 'body' | 'query' | 'path';

/** One refused field, as validation failures name theirs; the message says where it was. */
export interface InputProblem {
  /** The field's path: `customer_email`, `payer.partyId`, `webhook_ids[2]`; `body` for the body itself. */
  field: string;
  message: string;
}

/** A 400 in the envelope, `data.errors` naming each refused field. */
export class InputRefused extends BadRequestException {
  constructor(readonly problems: InputProblem[]) {
    super({ message: problems.map((problem) => problem.message).join('; '), data: { errors: problems } });
  }
}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when JSON text opens more than `limit` objects or arrays inside one another. One pass over
 * the characters, counting brackets outside strings, so no parser, transformer or validator
 * (all of them recursive) ever sees a deeper body. Broken JSON may count wrongly; the parser
 * refuses it anyway.
 */
export function exceedsJsonDepth(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) inString = true;
    else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) depth--;
  }
  return false;
}

// NUL, or half of a surrogate pair without its other half.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_EVERYWHERE = new RegExp(UNSTORABLE.source, 'g');

/** A name that holds such characters, made safe to show: each becomes U+FFFD. */
const shown = (name: string) => name.replace(UNSTORABLE_EVERYWHERE, '\uFFFD');

const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

/**
 * Paths of every string in `value`, field names included, holding text that PostgreSQL cannot
 * store and URL and e-mail validators throw on: NUL or an unpaired UTF-16 surrogate. A field
 * name's path ends in the name with those characters shown as U+FFFD. Recursive: bodies reach
 * it only after the depth check.
 */
export function unstorableTextPaths(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => unstorableTextPaths(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(UNSTORABLE.test(key) ? [child(path, shown(key))] : []),
    ...unstorableTextPaths(inner, child(path, key)),
  ]);
}

const WHERE: Record<InputLocation, string> = { body: '', query: 'query parameter ', path: 'path parameter ' };

function problemsIn(value: unknown, location: InputLocation): InputProblem[] {
  return unstorableTextPaths(value).map((path) => {
    const field = path === '' ? location : path;
    return {
      field,
      message: `${WHERE[location]}${field} must not contain NUL characters or unpaired UTF-16 surrogates`,
    };
  });
}

/** Every problem of a parsed request's path parameters, query string and body. */
export function unstorableInput(request: Pick<FastifyRequest, 'params' | 'query' | 'body'>): InputProblem[] {
  return [
    ...problemsIn(request.params, 'path'),
    ...problemsIn(request.query, 'query'),
    ...problemsIn(request.body, 'body'),
  ];
}

/** The refusal of a body whose bytes are not UTF-8 (invalid sequences, overlong forms, encoded surrogates). */
const NOT_UTF8 = () => new InputRefused([{ field: 'body', message: 'the request body is not valid UTF-8' }]);

type Parsed = (error: Error | null, body?: unknown) => void;

/**
 * A text body parser that reads the bytes and refuses them unless they are UTF-8, then hands the
 * text to `parse`. Decoding as Fastify does (`parseAs: 'string'`) would turn each bad byte into
 * U+FFFD, which no longer matches the Content-Length and is refused as a size mismatch instead.
 */
const utf8Text =
  (parse: (request: FastifyRequest, text: string, done: Parsed) => void) =>
  (request: FastifyRequest, bytes: Buffer, done: Parsed) => {
    if (!isUtf8(bytes)) return done(NOT_UTF8());
    parse(request, bytes.toString('utf8'), done);
  };

/**
 * The one input-sanitising layer, in front of every route of every app: bodies are parsed
 * only when within `maxBodyBytes` (413 otherwise, by Fastify), UTF-8 and, for JSON, within
 * `maxJsonDepth`; path parameters, query string and body are refused with a 400 naming each
 * field that holds NUL or an unpaired surrogate, before any guard, validator or handler sees
 * them. Path and query are checked before the body is read, and before a path that no route
 * serves is answered 404 or 405 (edge-answers.ts).
 */
export function guardInput(fastify: FastifyInstance, limits: InputLimits): void {
  // A `__proto__` key is dropped, so the validator names the field that held it instead of the
  // parser calling valid JSON invalid. A `constructor` key stays, an inert own property, so the
  // validator refuses it as an unknown field rather than the request going through without it.
  const parseJson = fastify.getDefaultJsonParser('remove', 'ignore');
  const asBytes = { parseAs: 'buffer', bodyLimit: limits.maxBodyBytes } as const;
  fastify.addContentTypeParser(
    'application/json',
    asBytes,
    utf8Text((request, text, done) => {
      if (exceedsJsonDepth(text, limits.maxJsonDepth)) {
        const message = `the request body nests objects and arrays deeper than ${limits.maxJsonDepth} levels`;
        return done(new InputRefused([{ field: 'body', message }]));
      }
      parseJson(request, text, done);
    }),
  );
  // HTML forms (the sandbox's hosted checkout); the body size already bounds the number of keys.
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    asBytes,
    utf8Text((_request, text, done) => done(null, parseForm(text, undefined, undefined, { maxKeys: 0 }))),
  );
  fastify.addContentTypeParser(
    'text/plain',
    asBytes,
    utf8Text((_request, text, done) => done(null, text)),
  );
  fastify.addHook('preParsing', async (request) => {
    const problems = [...problemsIn(request.params, 'path'), ...problemsIn(request.query, 'query')];
    if (problems.length > 0) throw new InputRefused(problems);
  });
  fastify.addHook('preValidation', async (request) => {
    const problems = problemsIn(request.body, 'body');
    if (problems.length > 0) throw new InputRefused(problems);
  });
}
