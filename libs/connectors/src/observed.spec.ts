import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RecordingMetrics } from '@paygate/testing';
import { createConnectorRegistry, PROVIDER_REQUESTS_METRIC, type ConnectorRegistry } from './index';

/** A provider stand-in on 127.0.0.1: MoMo's token, then whatever `answer` says for the path. */
let server: Server;
let baseUrl: string;
let answer: (path: string) => { status: number; body?: unknown } = () => ({ status: 503 });

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const path = request.url ?? '';
      const { status, body } = /\/(collection|disbursement)\/token\/$/.test(path)
        ? { status: 200, body: { access_token: 't', token_type: 'access_token', expires_in: 3600 } }
        : answer(path);
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

const REQUEST = {
  reference: 'PG0000000000000000000000AB',
  amount: '81000',
  currency: 'UGX',
  msisdn: '256772000001',
  description: 'Order 42',
  payerMessage: 'Order 42',
  payeeNote: 'Thank you',
  notifyUrl: 'http://127.0.0.1:9/notify',
  returnUrl: 'https://merchant.example/return',
  expiresAt: '2030-01-01T00:00:00.000Z',
};

describe('provider requests, timed by provider_code, operation and outcome', () => {
  let metrics: RecordingMetrics;
  let registry: ConnectorRegistry;

  beforeEach(() => {
    metrics = new RecordingMetrics();
    registry = createConnectorRegistry(
      [
        { code: 'mtn_momo_ug', method: 'MOBILE_MONEY' },
        { code: 'airtel_money_ug', method: 'MOBILE_MONEY' },
        { code: 'ura', connector: 'biller' },
      ],
      { MOMO_API_URL: baseUrl, BILLER_API_URL: baseUrl },
      baseUrl,
    ).observedBy(metrics);
  });

  const calls = () => metrics.of(PROVIDER_REQUESTS_METRIC).map(({ labels }) => labels);

  it('names the provider_code of each call, though two codes share one MoMo connector', async () => {
    answer = (path) =>
      path.includes('requesttopay/') ? { status: 200, body: { status: 'PENDING' } } : { status: 202 };
    const initiated = await registry.get('mtn_momo_ug', 'collect').collect.initiate(REQUEST);
    await registry.get('airtel_money_ug', 'collect').collect.status(initiated.providerReference);
    expect(calls()).toEqual([
      { provider: 'mtn_momo_ug', operation: 'collect.initiate', outcome: 'ok' },
      { provider: 'airtel_money_ug', operation: 'collect.status', outcome: 'ok' },
    ]);
    expect(metrics.of(PROVIDER_REQUESTS_METRIC).every(({ value }) => value >= 0)).toBe(true);
  });

  it('tells a provider that is down (5xx) from one that refuses the request (4xx)', async () => {
    answer = () => ({ status: 503 });
    await expect(registry.get('mtn_momo_ug', 'collect').collect.initiate(REQUEST)).rejects.toThrow('unavailable');
    answer = () => ({ status: 400, body: { code: 'INVALID' } });
    await expect(registry.get('mtn_momo_ug', 'collect').collect.status('ref-1')).rejects.toThrow('HTTP 400');
    expect(calls()).toEqual([
      { provider: 'mtn_momo_ug', operation: 'collect.initiate', outcome: 'unavailable' },
      { provider: 'mtn_momo_ug', operation: 'collect.status', outcome: 'refused' },
    ]);
  });

  it("times a biller's operations under bill.*", async () => {
    answer = () => ({ status: 503 });
    const biller = registry.get('ura', 'billPayment').billPayment;
    await expect(biller.validate('2240000000001')).rejects.toThrow('unavailable');
    await expect(biller.status('key-1')).rejects.toThrow('unavailable');
    expect(calls()).toEqual([
      { provider: 'ura', operation: 'bill.validate', outcome: 'unavailable' },
      { provider: 'ura', operation: 'bill.status', outcome: 'unavailable' },
    ]);
  });

  it('keeps money out: refunds and payouts are timed under refund.* and payout.*', async () => {
    answer = () => ({ status: 503 });
    const momo = registry.get('mtn_momo_ug');
    expect(momo.refund?.partial).toBe(true);
    await expect(momo.refund!.status('RF0000000000000000000000AB')).rejects.toThrow('unavailable');
    await expect(momo.payout!.accountHolder('256772000001')).rejects.toThrow('unavailable');
    expect(calls()).toEqual([
      { provider: 'mtn_momo_ug', operation: 'refund.status', outcome: 'unavailable' },
      { provider: 'mtn_momo_ug', operation: 'payout.account_holder', outcome: 'unavailable' },
    ]);
  });

  it('reads a notification without a request, so times nothing', () => {
    expect(registry.get('mtn_momo_ug', 'collect').collect.verifyNotification({ nothing: true })).toBeNull();
    expect(calls()).toEqual([]);
  });
});
