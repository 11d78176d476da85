/**
 * GET /metrics on a Paygate in process: Prometheus text with process metrics, open without
 * credentials, and counters that move when a collection completes through the API.
 */
import { eventually, TEST_MASTER_KEY } from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';
import {
  grew,
  completedMobileMoney,
  paidPrn,
  sample,
  scrape,
  startObservedPaygate,
  type ObservedPaygate,
} from './observability-test-setup';

describe('GET /metrics', () => {
  let observed: ObservedPaygate;

  beforeAll(async () => {
    observed = await startObservedPaygate();
  });

  afterAll(async () => {
    await observed?.close();
  });

  it('answers without credentials in the Prometheus text format, with process metrics', async () => {
    const response = await fetch(`${observed.paygate.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^# HELP process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^paygate_ready 1$/m);
  });

  it('serves only the families named by ?name=, so a look at a counter reads no gauge', async () => {
    const text = await (
      await fetch(`${observed.paygate.url}/metrics?name=paygate_sql_statements_total&name=no_such_metric`)
    ).text();
    const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
    expect([...families]).toEqual(['paygate_sql_statements_total']);
    expect(text).toMatch(/^paygate_sql_statements_total\{kind="merchants"\} [1-9]\d*$/m);
  });

  it('counts a mobile money collection completed through the API, from the request to its callbacks', async () => {
    const before = await scrape(observed.paygate.url);
    const ref = await completedMobileMoney(observed);
    const callbacks = observed.receiver.about(ref).length;
    const delivered = sample('paygate_callback_attempts_total', { outcome: 'delivered' });
    // An attempt is recorded just after the receiver answered it.
    const after = await eventually(
      async () => {
        const now = await scrape(observed.paygate.url);
        return grew(before, now, delivered) >= callbacks ? now : undefined;
      },
      10_000,
      'the delivered callbacks to be recorded',
    );

    expect(
      grew(
        before,
        after,
        sample('paygate_http_request_duration_seconds_count', {
          route: '/v1/collections/initialize',
          method: 'POST',
          status: '202',
        }),
      ),
    ).toBe(1);
    expect(
      grew(
        before,
        after,
        sample('paygate_http_request_duration_seconds_count', {
          route: '/v1/collections/confirm',
          method: 'POST',
          status: '202',
        }),
      ),
    ).toBe(1);
    expect(
      grew(
        before,
        after,
        sample('paygate_command_duration_seconds_count', { command: 'collections.initialize', outcome: 'ok' }),
      ),
    ).toBe(1);
    expect(
      grew(
        before,
        after,
        sample('paygate_command_duration_seconds_count', { command: 'collections.confirm', outcome: 'ok' }),
      ),
    ).toBe(1);
    expect(
      grew(
        before,
        after,
        sample('paygate_collections_finished_total', {
          status: 'COMPLETED',
          method: 'MOBILE_MONEY',
          provider: 'mtn_momo_ug',
        }),
      ),
    ).toBe(1);
    expect(callbacks).toBe(2);
    expect(grew(before, after, delivered)).toBe(callbacks);
    expect(
      grew(before, after, sample('paygate_callback_attempt_duration_seconds_count', { outcome: 'delivered' })),
    ).toBe(callbacks);
    expect(
      grew(before, after, sample('paygate_event_store_append_duration_seconds_count', { outcome: 'ok' })),
    ).toBeGreaterThanOrEqual(4);
    // The prompt to the payer's provider, by its provider_code (MoMo's prompt is idempotent by our reference, so a
    // flow decided again after a conflict may send it twice); status queries may follow.
    expect(
      grew(
        before,
        after,
        sample('paygate_provider_request_duration_seconds_count', {
          provider: 'mtn_momo_ug',
          operation: 'collect.initiate',
          outcome: 'ok',
        }),
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(
      grew(before, after, sample('paygate_events_handled_total', { consumer: 'webhook-dispatcher', outcome: 'ok' })),
    ).toBeGreaterThanOrEqual(2);
    // Gauges read at the scrape: lag per store subscription, the delivery queue.
    expect(
      after.get(sample('paygate_consumer_lag_seconds', { consumer: 'webhook-dispatcher' })),
    ).toBeGreaterThanOrEqual(0);
    expect(after.get(sample('paygate_callback_queue_depth', { state: 'pending' }))).toBeGreaterThanOrEqual(0);
    expect(after.get(sample('paygate_callback_oldest_due_age_seconds'))).toBeGreaterThanOrEqual(0);
    expect(after.get(sample('paygate_collection_oldest_pending_age_seconds'))).toBeGreaterThanOrEqual(0);
  });

  it('counts a PRN paid through collect-for-payment', async () => {
    const before = await scrape(observed.paygate.url);
    await paidPrn(observed);
    const after = await scrape(observed.paygate.url);
    expect(grew(before, after, sample('paygate_service_payments_finished_total', { outcome: 'COMPLETED' }))).toBe(1);
    // The biller was asked about the PRN and paid it, under the biller's code.
    const billerCalls = (operation: string) =>
      grew(
        before,
        after,
        sample('paygate_provider_request_duration_seconds_count', { provider: 'ura_prn_ug', operation, outcome: 'ok' }),
      );
    expect(billerCalls('bill.validate')).toBeGreaterThanOrEqual(1);
    expect(billerCalls('bill.pay')).toBeGreaterThanOrEqual(1);
    // The fee was held and the bill paid: the wallet's money invariants are reported, none broken.
    expect(after.get(sample('paygate_wallet_held_minor_units', { currency: 'UGX' }))).toBeGreaterThanOrEqual(0);
    expect(after.get(sample('paygate_wallets_overdrawn'))).toBe(0);
    expect(
      grew(
        before,
        after,
        sample('paygate_command_duration_seconds_count', { command: 'collections.collectForPayment', outcome: 'ok' }),
      ),
    ).toBe(1);
  });

  it('labels requests by route pattern, never by the raw path', async () => {
    const ref = 'PG0000000000000000000000ZZ';
    expect((await observed.client.collection(ref)).status).toBe(404);
    expect((await fetch(`${observed.paygate.url}/no/such/${ref}`)).status).toBe(404);
    const after = await scrape(observed.paygate.url);
    const series = [...after.keys()].filter((key) => key.startsWith('paygate_http_request_duration_seconds_count'));
    expect(series).toContain(
      sample('paygate_http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status: '404' }),
    );
    expect(series.some((key) => key.includes('/v1/collections/:'))).toBe(true);
    expect(series.filter((key) => key.includes(ref))).toEqual([]);
  });

  it('counts rejected commands by their code', async () => {
    const before = await scrape(observed.paygate.url);
    expect((await observed.client.confirm('PG0000000000000000000000ZZ')).status).toBe(404);
    const after = await scrape(observed.paygate.url);
    expect(
      grew(
        before,
        after,
        sample('paygate_command_duration_seconds_count', { command: 'collections.confirm', outcome: 'not_found' }),
      ),
    ).toBe(1);
  });
});

describe('GET /metrics under tight rate limits', () => {
  let paygate: InProcessPaygate;

  beforeAll(async () => {
    paygate = await startInProcess({
      MASTER_KEY: TEST_MASTER_KEY,
      RATE_LIMIT_PUBLIC_BURST: '1',
      RATE_LIMIT_PUBLIC_PER_SECOND: '0.001',
      LOG_LEVEL: 'error',
    });
  });

  afterAll(async () => {
    await paygate?.close();
  });

  it('is never refused, while a public route is', async () => {
    // A merchant id of the documented form: the admin route itself answers (401), not the router.
    const admin = [
      await fetch(`${paygate.url}/admin/v1/merchants/mer_1`),
      await fetch(`${paygate.url}/admin/v1/merchants/mer_1`),
    ];
    expect(admin.map((response) => response.status)).toEqual([401, 429]);
    const scrapes = await Promise.all(Array.from({ length: 5 }, () => fetch(`${paygate.url}/metrics`)));
    expect(scrapes.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
  });
});
