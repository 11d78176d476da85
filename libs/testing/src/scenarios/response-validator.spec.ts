/**
 * The response validator the e2e suites run every answer through refuses what docs/openapi.json
 * does not say: a status an operation does not list, a field a schema does not name, a value of
 * the wrong type or format, and a route the document lacks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACKNOWLEDGED_MOMO_RECORD } from '../fixtures/collection-record';
import { installResponseValidation, ResponseValidator, UndocumentedResponseError } from './response-validator';

const REFERENCE = 'PG7K3M9Q2X4T8V6B1N5R0D2F3H';
const record = {
  id: 1,
  merchant_reference: 'order-1001',
  internal_reference: REFERENCE,
  ...ACKNOWLEDGED_MOMO_RECORD,
};
const accepted = (data: object) =>
  JSON.stringify({ code: 202, status: 'accepted', message: 'Transaction initiated', data });
const error = (code: number, data: object = {}) => JSON.stringify({ code, status: 'error', message: 'refused', data });

describe('the response validator', () => {
  const validator = ResponseValidator.ofDocument();
  const problems = (method: string, path: string, status: number, body: string | null) =>
    validator.problems(method, `http://127.0.0.1:3000${path}`, status, body);

  it('accepts a documented status whose body fits its schema, at the versioned path and at its alias', () => {
    expect(problems('POST', '/v1/collections/initialize', 202, accepted(record))).toEqual([]);
    expect(problems('POST', '/collections/initialize', 202, accepted(record))).toEqual([]);
    expect(problems('GET', `/v1/collections/${REFERENCE}`, 404, error(404))).toEqual([]);
    expect(
      problems(
        'POST',
        '/v1/collections/initialize',
        400,
        error(400, { errors: [{ field: 'amount', message: 'amount must be a JSON number' }] }),
      ),
    ).toEqual([]);
  });

  it('refuses a status the operation does not document', () => {
    expect(problems('POST', '/v1/collections/initialize', 404, error(404))).toEqual([
      expect.stringContaining('a status the OpenAPI document does not list for POST /v1/collections/initialize'),
    ]);
    expect(problems('GET', '/v1/payment-providers', 500, error(500))).toHaveLength(1);
  });

  it('lets a path parameter that fails its documented pattern be answered as no route, and nothing else undocumented', () => {
    expect(problems('GET', '/v1/collections/confirm', 405, error(405))).toEqual([]);
    expect(problems('GET', '/collections/initialize', 405, error(405))).toEqual([]);
    expect(problems('GET', '/admin/v1/merchants/nobody', 404, error(404))).toEqual([]);
    expect(problems('GET', '/v1/collections/confirm', 409, error(409))).toEqual([
      expect.stringContaining('a status the OpenAPI document does not list'),
    ]);
    expect(problems('GET', `/v1/collections/${REFERENCE}`, 405, error(405))).toEqual([
      expect.stringContaining('a status the OpenAPI document does not list'),
    ]);
  });

  it('checks an event stream by its status and media type, without reading it', () => {
    expect(problems('GET', '/v1/callbacks/stream', 200, null)).toEqual([]);
    expect(problems('GET', '/v1/collections/PG7K3M9Q2X4T8V6B1N5R0D2F3H', 200, null)).toEqual([
      expect.stringContaining('with an event stream'),
    ]);
  });

  it('refuses a field the schema does not name, in data and in the envelope', () => {
    expect(problems('POST', '/v1/collections/initialize', 202, accepted({ ...record, loyalty_points: 3 }))).toEqual([
      expect.stringMatching(/\/data must NOT have additional properties .*loyalty_points/),
    ]);
    const extraEnvelopeField = JSON.stringify({ ...JSON.parse(accepted(record)), request_id: 'r1' });
    expect(problems('POST', '/v1/collections/initialize', 202, extraEnvelopeField)).toHaveLength(1);
  });

  it('refuses a missing field, a wrong type, a wrong pattern or format, and a code other than the status', () => {
    const missing: Partial<typeof record> = { ...record };
    delete missing.status_message;
    expect(problems('POST', '/v1/collections/initialize', 202, accepted(missing))).toHaveLength(1);
    expect(
      problems('POST', '/v1/collections/initialize', 202, accepted({ ...record, request_amount: '81000' })),
    ).toHaveLength(1);
    expect(
      problems('POST', '/v1/collections/initialize', 202, accepted({ ...record, internal_reference: 'pg-1' })),
    ).toHaveLength(1);
    expect(
      problems('POST', '/v1/collections/initialize', 202, accepted({ ...record, payment_url: 'not a url' })),
    ).toHaveLength(1);
    expect(
      problems(
        'POST',
        '/v1/collections/initialize',
        202,
        JSON.stringify({ code: 200, status: 'accepted', message: 'm', data: record }),
      ),
    ).toHaveLength(1);
    expect(problems('POST', '/v1/collections/initialize', 202, '<html></html>')).toEqual([
      expect.stringContaining('not JSON'),
    ]);
  });

  it('refuses an answer from a route the document lacks, and leaves the platform’s 404 and 405 and other paths alone', () => {
    expect(problems('POST', '/v1/undocumented/route', 202, accepted({}))).toEqual([
      expect.stringContaining('has no POST operation for this path'),
    ]);
    expect(problems('GET', '/v1/no/such/route', 404, error(404))).toEqual([]);
    expect(problems('DELETE', '/v1/collections/initialize', 405, error(405))).toEqual([]);
    expect(problems('GET', '/v1/no/such/route', 429, error(429, { retry_after: 1 }))).toEqual([]);
    expect(problems('GET', '/health/live', 200, '{}')).toEqual([]);
    expect(problems('GET', `/v1/checkout/return/${REFERENCE}`, 200, '<html></html>')).toEqual([]);
  });

  it('accepts a callback as the webhooks section describes it, and refuses an unknown event, an extra field or a missing signature header', () => {
    const { transaction_fee: charge, ...rest } = record;
    const payload = {
      ...rest,
      transaction_charge: charge,
      transaction_account: '256772000001',
      customer_name: 'Jane Doe',
      transaction_status: 'COMPLETED',
    };
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,abc=',
      'hmac-signature': 'a'.repeat(64),
    };
    const body = (event: string, fields: object = {}) => JSON.stringify({ event, payload: { ...payload, ...fields } });
    expect(validator.callbackProblems(headers, body('transaction.completed'))).toEqual([]);
    expect(validator.callbackProblems(headers, body('transaction.refunded'))).toEqual([
      expect.stringContaining('do not list'),
    ]);
    expect(validator.callbackProblems(headers, body('transaction.completed', { loyalty_points: 3 }))).toEqual([
      expect.stringContaining('additional properties'),
    ]);
    expect(
      validator.callbackProblems({ ...headers, 'webhook-signature': undefined }, body('transaction.completed')),
    ).toEqual(['callback transaction.completed without its webhook-signature header']);
    expect(
      validator.callbackProblems({ ...headers, 'webhook-signature': 'sha256=abc' }, body('transaction.completed')),
    ).toEqual([expect.stringContaining('webhook-signature header not matching')]);
  });

  describe('around fetch', () => {
    let server: Server;
    let base: string;
    let answer: { status: number; body: string; foreign?: boolean };
    beforeAll(async () => {
      server = createServer((_, response) =>
        response
          .writeHead(answer.status, {
            'content-type': 'application/json',
            ...(!answer.foreign && { 'x-request-id': 'r1' }),
          })
          .end(answer.body),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('rejects the fetch of an undocumented answer, records it, and hands a documented one back unread', async () => {
      const validation = installResponseValidation(validator);
      try {
        answer = { status: 202, body: accepted(record) };
        const response = await fetch(`${base}/v1/collections/initialize`, { method: 'POST', body: '{}' });
        expect(await response.json()).toEqual(JSON.parse(answer.body));
        answer = { status: 201, body: accepted(record) };
        await expect(fetch(`${base}/v1/collections/initialize`, { method: 'POST', body: '{}' })).rejects.toThrow(
          UndocumentedResponseError,
        );
        expect(validation.refused).toEqual([expect.stringContaining('POST /v1/collections/initialize answered 201')]);
        // Another host's API (a fake provider has /v1 paths too) is not Paygate's: no x-request-id, not checked.
        answer = { status: 201, body: '{}', foreign: true };
        expect((await fetch(`${base}/v1/collections/initialize`, { method: 'POST', body: '{}' })).status).toBe(201);
        expect(validation.refused).toHaveLength(1);
      } finally {
        validation.uninstall();
      }
    });
  });
});
