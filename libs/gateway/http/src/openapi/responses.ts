import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiSecurity,
  getSchemaPath,
} from '@nestjs/swagger';
import { PathPatterns } from '@paygate/platform';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import {
  ConflictDataDto,
  EmptyDataDto,
  RateLimitedDataDto,
  UnavailableDataDto,
  ValidationErrorDataDto,
} from './schemas';

/** One schema, an array of it, or one of several (a route whose query decides the shape). */
type Data = Type<unknown> | [Type<unknown>] | { oneOf: Type<unknown>[] };

const modelsOf = (data: Data) => (Array.isArray(data) ? data : 'oneOf' in data ? data.oneOf : [data]);

const envelopeStatus = (code: number) => (code >= 400 ? 'error' : code === 202 ? 'accepted' : 'success');

/** The one envelope (docs/api.md, Conventions) around `data`: `code` repeats the HTTP status. */
function envelope(code: number, data: Data): SchemaObject {
  const dataSchema = Array.isArray(data)
    ? { type: 'array', items: { $ref: getSchemaPath(data[0]) } }
    : 'oneOf' in data
      ? { oneOf: data.oneOf.map((model) => ({ $ref: getSchemaPath(model) })) }
      : { $ref: getSchemaPath(data) };
  return {
    type: 'object',
    required: ['code', 'status', 'message', 'data'],
    additionalProperties: false,
    properties: {
      code: { type: 'integer', enum: [code] },
      status: { type: 'string', enum: [envelopeStatus(code)] },
      message: { type: 'string' },
      data: dataSchema,
    },
  };
}

/**
 * A path parameter as the document shows it and the router serves it: a value that does not match
 * `pattern` is not this route's (404, or 405 where the path is served with other methods).
 */
export const PathParam = (name: string, pattern: string, example: string) =>
  applyDecorators(ApiParam({ name, schema: { type: 'string', pattern }, example }), PathPatterns({ [name]: pattern }));

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });

/** A status the route answers, in the envelope with a typed `data`. */
export function ApiAnswer(
  status: number,
  description: string,
  data: Data,
  headers?: Record<string, { description: string; schema: SchemaObject }>,
) {
  return applyDecorators(
    ApiExtraModels(...modelsOf(data)),
    ApiResponse({ status, description, schema: envelope(status, data), ...(headers && { headers }) }),
  );
}

const RATE_LIMIT_HEADERS = {
  'Retry-After': integerHeader('seconds until a request will be accepted again'),
  'RateLimit-Limit': integerHeader('capacity of the bucket (requests at once)'),
  'RateLimit-Remaining': integerHeader('requests left in the bucket after this one'),
  'RateLimit-Reset': integerHeader('seconds until the bucket is full again'),
  'RateLimit-Policy': { description: '`<capacity>;w=<seconds to refill from empty>`', schema: { type: 'string' } },
};

/** The refusals, each with its one meaning; a route lists those it can answer. */
const REFUSALS = {
  400: (detail: string) => ApiAnswer(400, `Invalid request: ${detail}`, ValidationErrorDataDto),
  401: (detail: string) => ApiAnswer(401, `Not authenticated: ${detail}`, EmptyDataDto),
  403: () => ApiAnswer(403, 'This merchant account is suspended', EmptyDataDto),
  404: (detail: string) => ApiAnswer(404, detail, EmptyDataDto),
  409: (detail: string) => ApiAnswer(409, detail, ConflictDataDto),
  413: () => ApiAnswer(413, 'The body is over the size limit (64 KiB by default)', EmptyDataDto),
  415: () => ApiAnswer(415, 'The body is not sent as application/json', EmptyDataDto),
  429: (bucket: string) =>
    ApiAnswer(
      429,
      `Too many requests: ${bucket} is empty; retry after Retry-After seconds. RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers-06) come with every answer of this route`,
      RateLimitedDataDto,
      RATE_LIMIT_HEADERS,
    ),
  503: (detail: string) =>
    ApiAnswer(503, `${detail}; retry after Retry-After seconds`, UnavailableDataDto, {
      'Retry-After': integerHeader('Seconds to wait before retrying'),
    }),
};

const BAD_REQUEST =
  'malformed JSON or a body that is not an object, text no store can hold (NUL, lone surrogates), or x-api-version other than 1';
const UNAVAILABLE = 'A service, or the store or broker it needs, did not answer within COMMAND_TIMEOUT_MS';

/** What every merchant API route may answer besides its own statuses. */
export const MerchantRefusals = (options: { secretKey: boolean; body: boolean; invalid?: string }) =>
  applyDecorators(
    REFUSALS[400](options.invalid ? `${options.invalid}; or ${BAD_REQUEST}` : BAD_REQUEST),
    REFUSALS[401](
      options.secretKey
        ? 'a missing or unknown public-key, or a missing or wrong secret-key'
        : 'a missing or unknown public-key',
    ),
    REFUSALS[403](),
    REFUSALS[429]("the merchant's bucket (a failed authentication: the source address's public bucket)"),
    REFUSALS[503](UNAVAILABLE),
    ...(options.body ? [REFUSALS[413](), REFUSALS[415]()] : []),
  );

/** What every admin API route may answer besides its own statuses. */
export const AdminRefusals = (options: { body: boolean; invalid?: string }) =>
  applyDecorators(
    REFUSALS[400](options.invalid ? `${options.invalid}; or ${BAD_REQUEST}` : BAD_REQUEST),
    REFUSALS[401]('a missing or wrong admin bearer token (or ADMIN_TOKEN not set)'),
    REFUSALS[429]("the source address's public bucket"),
    REFUSALS[503](UNAVAILABLE),
    ...(options.body ? [REFUSALS[413](), REFUSALS[415]()] : []),
  );

export const ApiNotFound = (detail: string) => REFUSALS[404](detail);
export const ApiConflict = (detail: string) => REFUSALS[409](detail);

interface OperationDoc {
  /** operationId: what a generated client names the call. */
  id: string;
  summary: string;
  description: string;
  /** Takes a JSON body (413 and 415 apply). */
  body: boolean;
  /** What makes the request invalid (400), besides what makes any request invalid. */
  invalid?: string;
}

/** A merchant route: its keys (public-key, and secret-key too when `secretKey`) are one requirement, both needed. */
export const MerchantOperation = (doc: OperationDoc & { secretKey: boolean }) =>
  applyDecorators(
    ApiOperation({ operationId: doc.id, summary: doc.summary, description: doc.description }),
    ApiSecurity(doc.secretKey ? { 'public-key': [], 'secret-key': [] } : { 'public-key': [] }),
    ApiHeader({
      name: 'x-api-version',
      required: false,
      description: 'Only 1 (any other value answers 400)',
      schema: { type: 'string', enum: ['1'] },
    }),
    MerchantRefusals(doc),
  );

/** An admin route: `authorization: Bearer <ADMIN_TOKEN>`. */
export const AdminOperation = (doc: OperationDoc) =>
  applyDecorators(
    ApiOperation({ operationId: doc.id, summary: doc.summary, description: doc.description }),
    ApiSecurity({ admin: [] }),
    AdminRefusals(doc),
  );
