/**
 * The OpenAPI document: docs/openapi.json (what lint checks and the e2e response validator reads)
 * is exactly what the gateway generates from its controllers and DTOs, and it says what a client
 * generator or a validating proxy needs of every operation.
 */
import { readFileSync } from 'node:fs';
import { OPENAPI_DOCUMENT_PATH } from '@paygate/testing';
import { GatewayHttpModule } from '../gateway-http.module';
import { openApiDocument } from './document';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the OpenAPI document', () => {
  let document: Json;
  beforeAll(async () => {
    document = JSON.parse(JSON.stringify(await openApiDocument(GatewayHttpModule)));
  });
  const operations = () =>
    Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('is docs/openapi.json, as committed (npm run openapi writes it again after a change)', () => {
    expect(JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8'))).toEqual(document);
  });

  it('is OpenAPI 3.1 with a server, and lists each route once, under /v1 or /admin/v1, without the aliases', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers.length).toBeGreaterThan(0);
    const paths = Object.keys(document.paths);
    expect(paths.every((path) => /^\/(admin\/)?v1\/[^]*[^/]$/.test(path))).toBe(true);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v1/collections/initialize',
        '/v1/collections/{internal_reference}',
        '/admin/v1/wallets/top-up',
      ]),
    );
    expect(paths).not.toContain('/v1/checkout/return/{internal_reference}');
  });

  it('gives every operation an id, summary, description, tags and the keys it needs, all of them in one requirement', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { operation } of operations()) {
      expect(operation).toMatchObject({
        operationId: expect.any(String),
        summary: expect.any(String),
        description: expect.any(String),
        tags: [expect.any(String)],
      });
      expect(operation.security).toHaveLength(1);
    }
    const security = (path: string, method: string) => document.paths[path][method].security[0];
    expect(security('/v1/collections/{internal_reference}', 'get')).toEqual({ 'public-key': [], 'secret-key': [] });
    expect(security('/v1/wallet-balances', 'get')).toEqual({ 'public-key': [], 'secret-key': [] });
    expect(security('/v1/callbacks/resend', 'post')).toEqual({ 'public-key': [], 'secret-key': [] });
    expect(security('/v1/collections/initialize', 'post')).toEqual({ 'public-key': [] });
    expect(security('/admin/v1/merchants', 'post')).toEqual({ admin: [] });
  });

  it('answers every status in the envelope with a typed data schema, but the callback stream, which is server-sent events', () => {
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        if (operation.operationId === 'streamCallbacks' && status === '200') {
          expect(Object.keys(response.content)).toEqual(['text/event-stream']);
          continue;
        }
        const schema = response.content['application/json'].schema;
        expect(schema).toMatchObject({ required: ['code', 'status', 'message', 'data'], additionalProperties: false });
        expect(schema.properties.code).toEqual({ type: 'integer', enum: [Number(status)] });
        const data = schema.properties.data;
        if (data.oneOf) for (const each of data.oneOf) expect(each).toEqual({ $ref: expect.any(String) });
        else
          expect(data).toEqual(expect.objectContaining(data.$ref ? { $ref: expect.any(String) } : { type: 'array' }));
      }
    }
    const statuses = (path: string, method: string) => Object.keys(document.paths[path][method].responses).sort();
    expect(statuses('/v1/collections/confirm', 'post')).toEqual([
      '202',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '503',
    ]);
    expect(statuses('/v1/collections/{internal_reference}', 'get')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '503',
    ]);
  });

  it('types merchant URLs as uri strings (or null), and references, PRN and msisdn by their patterns', () => {
    const { schemas } = document.components;
    for (const dto of ['CreateMerchantDto', 'UpdateMerchantDto', 'MerchantDto'])
      for (const field of ['collection_callback_url', 'service_payments_callback_url'])
        expect(schemas[dto].properties[field]).toMatchObject({ type: ['string', 'null'], format: 'uri' });
    expect(schemas.InitializeCollectionDto.properties.msisdn.pattern).toBe('^[0-9]{8,15}$');
    expect(schemas.InitializeCollectionDto.properties.redirect_url.format).toBe('uri');
    expect(schemas.CollectForPaymentDto.properties.prn.pattern).toBe('^[0-9]{1,32}$');
    expect(schemas.CollectionRecordDto.properties.internal_reference.pattern).toBe('^PG[0-9A-HJKMNP-TV-Z]{24}$');
  });

  it('gives the license an SPDX identifier, which client generators (openapi-generator) require of 3.1', () => {
    expect(document.info.license).toEqual({
      name: 'Proprietary (UNLICENSED)',
      identifier: expect.stringMatching(/^LicenseRef-[A-Za-z0-9.-]+$/),
    });
  });

  it('tags the webhooks apart from the operations, each tag declared, so a generator writes one class per tag without overwriting one', () => {
    const declared = (document.tags as Json[]).map((tag) => tag.name);
    const operationTags = new Set(operations().flatMap(({ operation }) => operation.tags as string[]));
    const webhookTags = new Set(
      Object.values(document.webhooks as Record<string, Json>).flatMap((item) => item.post.tags as string[]),
    );
    expect([...operationTags, ...webhookTags].every((tag) => declared.includes(tag))).toBe(true);
    expect([...webhookTags].filter((tag) => operationTags.has(tag))).toEqual([]);
    const callbackRoutes = operations().filter(({ operation }) => operation.tags[0] === 'callbacks');
    expect(callbackRoutes.map(({ operation }) => operation.operationId).sort()).toEqual([
      'listCallbacks',
      'listDeliveries',
      'resendCallbacks',
      'retryDeliveries',
      'streamCallbacks',
    ]);
  });

  it('states in the request schemas the rules the gateway enforces: amounts above 0, key kinds, no NUL in any string', () => {
    const { schemas } = document.components;
    for (const dto of ['InitializeCollectionDto', 'CollectForPaymentDto', 'TopUpRequestDto'])
      expect(schemas[dto].properties.amount).toMatchObject({ type: 'number', exclusiveMinimum: 0 });
    expect(schemas.IssueKeysDto.properties.keys).toMatchObject({
      minItems: 1,
      items: { type: 'string', enum: ['api', 'signing'] },
    });

    const requestSchemas = operations()
      .map(({ operation }) => operation.requestBody?.content['application/json'].schema.$ref as string | undefined)
      .filter((ref): ref is string => ref !== undefined)
      .map((ref) => ref.split('/').pop()!);
    expect(requestSchemas.length).toBeGreaterThanOrEqual(8);
    const strings = (property: Json): Json[] =>
      property.type === 'array'
        ? strings(property.items)
        : [property].filter((p) => [p.type].flat().includes('string'));
    for (const name of new Set(requestSchemas))
      for (const [field, property] of Object.entries(schemas[name].properties as Record<string, Json>))
        for (const string of strings(property)) {
          if (string.enum || string.format === 'email') continue;
          expect({ field: `${name}.${field}`, pattern: typeof string.pattern }).toEqual({
            field: `${name}.${field}`,
            pattern: 'string',
          });
          const pattern = new RegExp(string.pattern, 'u');
          expect({ field: `${name}.${field}`, nul: pattern.test(`${string.example ?? 'x'}\u0000`) }).toEqual({
            field: `${name}.${field}`,
            nul: false,
          });
        }
    expect(new RegExp(schemas.InitializeCollectionDto.properties.customer_name.pattern, 'u').test(' \t ')).toBe(false);
  });

  it('leaves out of `required` every request field that has a default', () => {
    const { schemas } = document.components;
    for (const dto of ['InitializeCollectionDto', 'CollectForPaymentDto']) {
      expect(schemas[dto].properties.charge_customer.default).toBe(false);
      expect(schemas[dto].properties.require_confirmation.default).toBe(true);
      expect(schemas[dto].required).not.toEqual(expect.arrayContaining(['charge_customer']));
      expect(schemas[dto].required).not.toEqual(expect.arrayContaining(['require_confirmation']));
    }
  });

  it('describes each callback as a webhook with its payload and the Standard Webhooks signature headers', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([
      'payment.completed',
      'payment.failed',
      'payout.completed',
      'payout.failed',
      'payout.reversed',
      'refund.completed',
      'refund.failed',
      'test.callback',
      'transaction.cancelled',
      'transaction.charges',
      'transaction.completed',
      'transaction.failed',
    ]);
    for (const [event, item] of Object.entries(document.webhooks as Record<string, Json>)) {
      const headers = (item.post.parameters as Json[])
        .filter((parameter) => parameter.in === 'header' && parameter.required)
        .map((parameter) => parameter.name);
      expect(headers).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
      // A named schema: generators make an inline body a model without a name.
      const ref = item.post.requestBody.content['application/json'].schema.$ref as string;
      expect(ref).toMatch(/^#\/components\/schemas\/(Transaction|Payment|Refund|Payout|Test)[A-Z][a-z]+Event$/);
      const body = document.components.schemas[ref.split('/').pop()!];
      expect(body.properties.event).toEqual({ type: 'string', enum: [event] });
      // Left out of generated clients (Paygate sends it), its body schema still generated as a model.
      expect(item.post['x-internal']).toBe(true);
      const [payload, signed] = event.startsWith('refund.')
        ? [/RefundCallbackPayload/, '`<refund_reference>:<internal_reference>:<status>:<merchant_reference>`']
        : event.startsWith('payout.')
          ? [/PayoutCallbackPayload/, '`<payout_reference>:<status>:<provider_code>:<msisdn>`']
          : [
              event.startsWith('payment.') ? /PaymentCallbackPayload/ : /CollectionCallbackPayload/,
              '`<id>:<internal_reference>:<transaction_status>:<merchant_reference>`',
            ];
      expect(body.properties.payload.$ref).toMatch(payload);
      const hmac = (item.post.parameters as Json[]).find((parameter) => parameter.name === 'hmac-signature')!;
      expect(hmac.description).toContain(signed);
    }
  });

  it('describes a refund callback’s payload as the refund record, final, with the collection’s merchant_reference', () => {
    const { properties, required } = document.components.schemas.RefundCallbackPayloadDto;
    const record = document.components.schemas.RefundDto;
    expect([...required].sort()).toEqual([...record.required, 'merchant_reference'].sort());
    expect(properties.status.enum).toEqual(['COMPLETED', 'FAILED']);
    expect(properties.pending_reason).toMatchObject({ type: ['string', 'null'], enum: expect.arrayContaining([null]) });
    expect(required).toContain('pending_reason');
  });

  it('sends payout callbacks to the payouts callback URL, with the payout record at each final status', () => {
    for (const event of ['payout.completed', 'payout.failed', 'payout.reversed'])
      expect(document.webhooks[event].post.description).toContain("Sent to the merchant's payouts_callback_url");
    const { properties, required } = document.components.schemas.PayoutCallbackPayloadDto;
    expect(properties.status.enum).toEqual(['COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED']);
    expect([...required].sort()).toEqual(
      [
        'amount',
        'created_at',
        'currency',
        'failure_reason',
        'fee',
        'livemode',
        'msisdn',
        'payout_reference',
        'provider_code',
        'recipient_name',
        'status',
        'updated_at',
      ].sort(),
    );
    expect(document.components.schemas.MerchantDto.required).toContain('payouts_callback_url');
  });

  it('lets a nullable enum be null, as the API answers it (a final refund’s pending_reason)', () => {
    const pendingReason = document.components.schemas.RefundDto.properties.pending_reason;
    expect(pendingReason.type).toEqual(['string', 'null']);
    expect(pendingReason.enum).toEqual(['provider_processing', 'provider_unconfirmed', null]);
  });
});
