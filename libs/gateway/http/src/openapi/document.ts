import { Global, Module, type INestApplication, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { CONFIG, DRAIN, INFRASTRUCTURE, LOGGER, RATE_LIMITER } from '@paygate/platform';
import { webhookBodySchemas, webhooks, WEBHOOK_PAYLOADS, WEBHOOKS_TAG } from './webhooks';

/**
 * Versioned paths only: the unprefixed aliases (and /sandbox/v1/wallets/top-up) keep working but are documented once,
 * under /v1.
 */
const DOCUMENTED = /^\/(admin\/)?v1\//;

const DESCRIPTION = [
  'Collections by mobile money and card, collect-for-payment of URA PRNs, and signed callbacks (see `webhooks`).',
  'Amounts are JSON numbers in major units of the currency. Every answer, refusals included, is the envelope',
  '`{code, status, message, data}`, `code` repeating the HTTP status. Every merchant route also answers at its path without `/v1`',
  '(an alias, not listed here). docs/api.md is the prose contract.',
].join(' ');

type Json = Record<string, unknown>;

/**
 * OpenAPI 3.1 types `null` as a type: Nest writes 3.0's `nullable: true`, which 3.1 dropped.
 * A `$ref` made nullable becomes `oneOf` the reference and null; a nullable `enum` lists null
 * too (in 3.1 an enum without it refuses null, whatever the type says).
 */
function nullableToTypeArrays(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableToTypeArrays);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = node as Json;
  const out: Json = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, nullableToTypeArrays(value)]));
  if (nullable !== true) return out;
  if (Array.isArray(out.allOf) && out.allOf.length === 1) {
    const { allOf, ...others } = out;
    delete others.type;
    return { ...others, oneOf: [allOf[0], { type: 'null' }] };
  }
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  return out;
}

/**
 * OpenAPI 3.1 (JSON Schema 2020-12) makes `exclusiveMinimum` the bound itself: Nest writes 3.0's
 * `minimum: 0, exclusiveMinimum: true`, which 3.1 validators and client generators misread.
 */
function exclusiveBoundsToNumbers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(exclusiveBoundsToNumbers);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = Object.fromEntries(
    Object.entries(node as Json).map(([key, value]) => [key, exclusiveBoundsToNumbers(value)]),
  );
  if (out.exclusiveMinimum === true && typeof out.minimum === 'number') {
    const { minimum, ...rest } = out;
    return { ...rest, exclusiveMinimum: minimum };
  }
  return out;
}

/** Every key an operation names is needed together: Nest lists each @ApiSecurity as an alternative. */
function allKeysRequired(operation: Json): void {
  const requirements = operation.security as Json[] | undefined;
  if (requirements && requirements.length > 1) operation.security = [Object.assign({}, ...requirements)];
}

/**
 * Request and response objects have exactly their fields: the API refuses unknown request fields and adds none to
 * answers.
 */
function closeObjects(schemas: Record<string, Json>): void {
  for (const schema of Object.values(schemas)) {
    if (schema.type === 'object' && schema.additionalProperties === undefined) schema.additionalProperties = false;
  }
}

/** The document of the gateway's routes (`gateway` is GatewayHttpModule, passed in to keep the imports acyclic). */
export function buildOpenApiDocument(app: INestApplication, gateway: Type<unknown>): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Paygate API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addServer('http://127.0.0.1:3000', 'npm start (PORT changes the port); point a client at your gateway’s base URL')
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'public-key', description: 'The merchant’s public key (pk_test_…)' },
      'public-key',
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'secret-key', description: 'The merchant’s secret key (sk_test_…)' },
      'secret-key',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque (ADMIN_TOKEN)',
        description: 'authorization: Bearer <ADMIN_TOKEN>',
      },
      'admin',
    )
    .addTag('collections', 'Collections by mobile money and card, and collect-for-payment')
    .addTag('payment options', 'Providers, limits and fees')
    .addTag('wallet', 'The merchant’s wallet')
    .addTag('refunds', 'Refunds of completed collections to their payers')
    .addTag('payouts', 'Wallet money paid out to mobile money numbers, after a name check')
    .addTag('callbacks', 'Asking for callbacks again, their deliveries, and the callback stream')
    .addTag(
      WEBHOOKS_TAG,
      'The signed callbacks Paygate POSTs to the merchant’s URLs (the `webhooks`): what a receiver gets',
    )
    .addTag('admin', 'Operators: merchants, deliveries, wallet top-ups, money out needing attention')
    .build();
  const generated = SwaggerModule.createDocument(app, config, { include: [gateway], extraModels: WEBHOOK_PAYLOADS });
  const paths = Object.fromEntries(Object.entries(generated.paths).filter(([path]) => DOCUMENTED.test(path)));
  for (const item of Object.values(paths))
    for (const operation of Object.values(item)) if (typeof operation === 'object') allKeysRequired(operation as Json);
  const schemas = {
    ...(generated.components?.schemas as Record<string, Json>),
    ...(webhookBodySchemas() as Record<string, Json>),
  };
  closeObjects(schemas);
  const components = { ...generated.components, schemas };
  // Client generators (openapi-generator) refuse a 3.1 license without an SPDX identifier; a
  // LicenseRef- identifier is SPDX's form for a license of one's own.
  const info = {
    ...generated.info,
    license: { name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-Paygate-Proprietary' },
  };
  return exclusiveBoundsToNumbers(
    nullableToTypeArrays({ ...generated, info, paths, components, webhooks: webhooks() }),
  ) as OpenAPIObject;
}

/** Tokens the gateway's providers ask for; a preview application never builds them. */
@Global()
@Module({
  providers: [CONFIG, DRAIN, INFRASTRUCTURE, LOGGER, RATE_LIMITER].map((token) => ({ provide: token, useValue: {} })),
  exports: [CONFIG, DRAIN, INFRASTRUCTURE, LOGGER, RATE_LIMITER],
})
class PreviewTokens {}

/**
 * The document without a running gateway (`paygate openapi`): a preview application reads the routes and builds
 * nothing.
 */
export async function openApiDocument(gateway: Type<unknown>): Promise<OpenAPIObject> {
  @Module({ imports: [PreviewTokens, gateway] })
  class Preview {}
  const app = await NestFactory.create(Preview, new FastifyAdapter(), { preview: true, logger: false });
  try {
    return buildOpenApiDocument(app, gateway);
  } finally {
    await app.close();
  }
}
