import { BadRequestException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
    return { field, message: `${WHERE[location]}${field} must not contain NUL characters or unpaired UTF-16 surrogates` };
  });
}

/** Every problem of a parsed request's path parameters, query string and body. */
export function unstorableInput(request: Pick<FastifyRequest, 'params' | 'query' | 'body'>): InputProblem[] {
  return [...problemsIn(request.params, 'path'), ...problemsIn(request.query, 'query'), ...problemsIn(request.body, 'body')];
}

/**
 * The one input-sanitising layer, in front of every route of every app: bodies are parsed
 * only when within `maxBodyBytes` (413 otherwise, by Fastify) and, for JSON, within
 * `maxJsonDepth`; then path parameters, query string and body are refused with a 400 naming
 * each field that holds NUL or an unpaired surrogate, before any guard, validator or handler
 * sees them.
 */
export function guardInput(fastify: FastifyInstance, limits: InputLimits): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: limits.maxBodyBytes }, (request, text, done) => {
    if (exceedsJsonDepth(text as string, limits.maxJsonDepth)) {
      const message = `the request body nests objects and arrays deeper than ${limits.maxJsonDepth} levels`;
      done(new InputRefused([{ field: 'body', message }]), undefined);
      return;
    }
    parseJson(request, text as string, done);
  });
  // HTML forms (the sandbox's hosted checkout); the body size already bounds the number of keys.
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: limits.maxBodyBytes }, (_request, text, done) => {
    done(null, parseForm(text as string, undefined, undefined, { maxKeys: 0 }));
  });
  fastify.addHook('preValidation', async (request) => {
    const problems = unstorableInput(request);
    if (problems.length > 0) throw new InputRefused(problems);
  });
}
