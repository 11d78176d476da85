import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * docs/openapi.json: what `npm run openapi` generates, lint checks and the gateway serves (a spec keeps the three
 * equal).
 */
export const OPENAPI_DOCUMENT_PATH = join(__dirname, '../../../../docs/openapi.json');

type Json = Record<string, unknown>;
interface Operation {
  method: string;
  template: string;
  /** The template with each path parameter captured, in order. */
  pattern: RegExp;
  /** Each path parameter's documented pattern, in the template's order (undefined: any value). */
  parameterPatterns: (RegExp | undefined)[];
  responses: Record<string, Json>;
}
interface Parameter {
  name: string;
  in: string;
  schema?: { pattern?: string };
}

/** The API's own prefixes: a path under them that no operation documents may only answer as no route does. */
const API_NAMESPACE = /^\/(admin\/)?v1(\/|$)/;
const NO_ROUTE_STATUSES = [404, 405, 429];
/**
 * Under the namespace but not the merchant API: the card checkout sends the customer's browser back here (an HTML page
 * or a redirect).
 */
const NOT_API = [/^\/v1\/checkout\/return(\/|$)/];
/** Paths served at two places, documented once: the unprefixed merchant aliases and top-up's old sandbox path. */
const ALIASES: [RegExp, (path: string) => string][] = [
  [/^\/sandbox\/v1\/wallets\/top-up$/, () => '/admin/v1/wallets/top-up'],
  [/^\/(collections|payment-providers|wallet-balances|callbacks)(\/|$)/, (path) => `/v1${path}`],
];

const documentedPath = (path: string) => ALIASES.find(([alias]) => alias.test(path))?.[1](path) ?? path;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks answers of the API against its OpenAPI document: the status must be one the operation
 * documents and the body must be valid against that status's schema (JSON Schema 2020-12, which
 * OpenAPI 3.1 uses; objects are closed, so an undocumented field is refused). The e2e suites
 * run every fetch through it (installResponseValidation), so a new status or field fails a test
 * until the document says it.
 */
export class ResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly operations: Operation[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
    const paths = document.paths as Record<string, Record<string, Json>>;
    this.operations = Object.entries(paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => {
          const parameters = (operation.parameters as Parameter[] | undefined) ?? [];
          const pathPattern = (name: string) =>
            parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.schema?.pattern;
          return {
            method: method.toUpperCase(),
            template,
            pattern: new RegExp(
              `^${template
                .split(/\{[^}]+\}/)
                .map(escapeRegExp)
                .join('([^/]+)')}$`,
            ),
            parameterPatterns: [...template.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
              const pattern = pathPattern(name);
              return pattern === undefined ? undefined : new RegExp(pattern, 'u');
            }),
            responses: operation.responses as Record<string, Json>,
          };
        }),
    );
  }

  private static shared?: ResponseValidator;
  /** The validator of docs/openapi.json, read once per test file. */
  static ofDocument(): ResponseValidator {
    ResponseValidator.shared ??= new ResponseValidator(JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')) as Json);
    return ResponseValidator.shared;
  }

  /** The documented operation a request reaches, the aliases included. */
  operation(method: string, path: string): Operation | undefined {
    const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return this.operations.find(
      (operation) => operation.method === verb && operation.pattern.test(documentedPath(path)),
    );
  }

  /**
   * Whether the path's parameters match the patterns the operation documents. One that does not
   * (`GET /v1/collections/confirm`) is not the operation's to answer: the gateway serves it as no
   * route does, after the input checks every route shares.
   */
  private fitsPathPatterns(operation: Operation, path: string): boolean {
    const values = operation.pattern.exec(documentedPath(path))?.slice(1) ?? [];
    return values.every((value, index) => {
      const pattern = operation.parameterPatterns[index];
      if (pattern === undefined) return true;
      try {
        return pattern.test(decodeURIComponent(value));
      } catch {
        return false;
      }
    });
  }

  /**
   * What is wrong with an answer, per the document: empty when nothing is (or when no operation of the API was asked).
   */
  /**
   * `body` is null for a server-sent events stream, which is never read to its end: its status and media type are
   * checked.
   */
  problems(method: string, url: string, status: number, body: string | null): string[] {
    const path = new URL(url, 'http://localhost').pathname;
    const operation = this.operation(method, path);
    const where = `${method.toUpperCase()} ${path} answered ${status}`;
    if (!operation) {
      const underApi = API_NAMESPACE.test(path) || ALIASES.some(([alias]) => alias.test(path));
      // No route there: the platform's 404 or 405, or the 429 of the address's bucket that such a request takes from
      // first. Anything else is a route the document lacks.
      if (!underApi || NOT_API.some((excluded) => excluded.test(path)) || NO_ROUTE_STATUSES.includes(status)) return [];
      return [`${where}, but the OpenAPI document has no ${method.toUpperCase()} operation for this path`];
    }
    if (NO_ROUTE_STATUSES.includes(status) && !this.fitsPathPatterns(operation, path)) return [];
    const key = String(status);
    if (!operation.responses[key])
      return [`${where}, a status the OpenAPI document does not list for ${operation.method} ${operation.template}`];
    if (method.toUpperCase() === 'HEAD') return [];
    if (body === null) {
      const media = Object.keys((operation.responses[key].content as Record<string, unknown> | undefined) ?? {});
      return media.includes(EVENT_STREAM)
        ? []
        : [
            `${where} with an event stream, which the OpenAPI document does not list for ${operation.method} ${operation.template}`,
          ];
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [`${where} with a body that is not JSON: ${body.slice(0, 200)}`];
    }
    const validate = this.validator(operation, key);
    if (!validate || validate(parsed)) return [];
    const errors = (validate.errors ?? []).map(
      (error) =>
        `${error.instancePath || '(body)'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`,
    );
    return [
      `${where} with a body the OpenAPI document does not allow for ${operation.method} ${operation.template}: ${errors.join('; ')} — body ${body.slice(0, 500)}`,
    ];
  }

  /**
   * What is wrong with a callback Paygate sent, per the document's `webhooks`: its event, signature headers and body.
   */
  callbackProblems(headers: Record<string, string | string[] | undefined>, body: string): string[] {
    let parsed: { event?: unknown };
    try {
      parsed = JSON.parse(body) as { event?: unknown };
    } catch {
      return [`a callback whose body is not JSON: ${body.slice(0, 200)}`];
    }
    const event = String(parsed.event);
    const webhook = (this.document.webhooks as Record<string, { post: Json }> | undefined)?.[event]?.post;
    if (!webhook) return [`a callback ${event}, which the OpenAPI document's webhooks do not list`];
    const problems = (
      webhook.parameters as { name: string; required?: boolean; schema?: { pattern?: string } }[]
    ).flatMap((parameter) => {
      const value = headers[parameter.name];
      if (value === undefined)
        return parameter.required ? [`callback ${event} without its ${parameter.name} header`] : [];
      const pattern = parameter.schema?.pattern;
      return pattern && !new RegExp(pattern).test(String(value))
        ? [`callback ${event} with a ${parameter.name} header not matching ${pattern}: ${String(value)}`]
        : [];
    });
    const validate = this.ajv.getSchema(
      `openapi.json#/${pointer('webhooks', event, 'post', 'requestBody', 'content', 'application/json', 'schema')}`,
    );
    if (validate && !validate(parsed))
      problems.push(
        `callback ${event} with a body the OpenAPI document does not allow: ${this.ajv.errorsText(validate.errors)} — body ${body.slice(0, 500)}`,
      );
    return problems;
  }

  /** Throws when the answer is not what the document says. */
  check(method: string, url: string, status: number, body: string): void {
    const problems = this.problems(method, url, status, body);
    if (problems.length > 0) throw new UndocumentedResponseError(problems.join('\n'));
  }

  private validator(operation: Operation, status: string): ValidateFunction | undefined {
    const id = `${operation.method} ${operation.template} ${status}`;
    if (!this.compiled.has(id)) {
      const content = operation.responses[status].content as Record<string, { schema?: Json }> | undefined;
      if (!content?.['application/json']?.schema) return undefined;
      const ref = `openapi.json#/${pointer('paths', operation.template, operation.method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema')}`;
      const validate = this.ajv.getSchema(ref);
      if (!validate) throw new Error(`cannot compile the schema at ${ref}`);
      this.compiled.set(id, validate);
    }
    return this.compiled.get(id);
  }
}

/**
 * Callbacks the receivers got that the document does not describe; the e2e suites fail on any
 * (jest-response-validation.ts).
 */
export const undocumentedCallbacks: string[] = [];

const EVENT_STREAM = 'text/event-stream';

export class UndocumentedResponseError extends Error {
  override name = 'UndocumentedResponseError';
}

const requestMethod = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
  init?.method ?? (input instanceof Request ? input.method : 'GET');
const requestUrl = (input: Parameters<typeof fetch>[0]) => (input instanceof Request ? input.url : String(input));

/**
 * Routes every `fetch` of the test file through the validator and returns what it refused, so a
 * suite's afterEach can fail on it even where a test swallowed the thrown error. The answer
 * itself is handed back unchanged (read through a clone).
 */
export function installResponseValidation(validator = ResponseValidator.ofDocument()): {
  refused: string[];
  uninstall(): void;
} {
  const original = globalThis.fetch;
  const refused: string[] = [];
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    const method = requestMethod(input, init);
    const url = requestUrl(input);
    // Only Paygate's answers to API paths are checked: every Paygate app answers with x-request-id, which the fake
    // providers of the connector suites (serving /v1 paths of their own) do not; sandbox, health and metrics are not
    // the API.
    if (!response.headers.has('x-request-id')) return response;
    if (!validator.operation(method, new URL(url).pathname) && !API_NAMESPACE.test(new URL(url).pathname))
      return response;
    const stream = response.headers.get('content-type')?.startsWith(EVENT_STREAM) ?? false;
    const problems = validator.problems(method, url, response.status, stream ? null : await response.clone().text());
    if (problems.length > 0) {
      refused.push(...problems);
      throw new UndocumentedResponseError(problems.join('\n'));
    }
    return response;
  };
  return {
    refused,
    uninstall: () => {
      globalThis.fetch = original;
    },
  };
}
