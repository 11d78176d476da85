import {
  CallbackReceiver,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  SandboxAdmin,
  topUpWallet,
  type OtlpReceiver,
  type ReceivedSpan,
} from '@paygate/testing';

export interface TraceContext {
  gateway: () => string;
  sandbox: () => string;
  /** The loopback OTLP receiver every app of the layout exports to, with OTEL_EXPORTER_OTLP_PROTOCOL=http/json. */
  collector: () => OtlpReceiver;
  /**
   * The apps expected among the trace's spans (`service.name`), and whether the events between
   * them cross Kafka (a producer span between the append and each consumer).
   */
  layout: { services: string[]; kafka: boolean };
}

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;
const REQUEST_ID = 'trace-collect-for-payment';
const COMMAND = 'collections/collections.collectForPayment';

/**
 * One collect-for-payment (no confirmation, so nothing but the merchant's request starts it)
 * followed through every process it touches: the spans each hop leaves must arrive at the
 * collector in the merchant's request's trace, each below the hop that caused it. The layout
 * runs with a status poll later than the sandbox's callback (PROVIDER_STATUS_POLL_MS), so the
 * provider's callback, not a timer of its own trace, settles the collection.
 */
export function collectForPaymentTraceSuite(context: TraceContext): void {
  let client: PaygateClient;
  let receiver: CallbackReceiver;
  let trace: ReceivedSpan[];
  /** The trace that settled the collection: the request's (the provider's callback), or a status timer's linking to it. */
  let outcome: ReceivedSpan[];
  let request: ReceivedSpan;
  let ref: string;

  const spanOf = (what: string, test: (span: ReceivedSpan) => boolean) => {
    const found = trace.find(test);
    if (!found) throw new Error(`no ${what} span in the trace: ${trace.map((span) => span.name).join(', ')}`);
    return found;
  };
  /** `span`'s ancestors include `ancestor` (the request's span is every span's). */
  const expectBelow = (span: ReceivedSpan, ancestor: ReceivedSpan) =>
    expect(
      context
        .collector()
        .ancestry(span)
        .map((each) => each.spanId),
    ).toContain(ancestor.spanId);
  const urlOf = (span: ReceivedSpan) => String(span.attributes['url.full'] ?? '');
  const commandHandled = () => spanOf('command handled', (s) => s.kind === SERVER && s.name === COMMAND);
  const consumerOf = (type: string, group: string) =>
    spanOf(
      `${type} consumed by ${group}`,
      (s) =>
        s.kind === CONSUMER && s.name === `process ${type}` && s.attributes['messaging.consumer.group.name'] === group,
    );

  beforeAll(async () => {
    receiver = await CallbackReceiver.start();
    client = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'Traced merchant', receiver.url());
    await topUpWallet(context.gateway(), client.merchant.id, 2_000); // the merchant bears the fee
    const prn = await new SandboxAdmin(context.sandbox()).createPrn(25_000);
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
      body: mobileMoneyRequest({ amount: 25_000, prn, require_confirmation: false }),
      headers: { 'x-request-id': REQUEST_ID },
    });
    expect(accepted.status).toBe(202);
    ref = String(accepted.body.data.internal_reference);
    await receiver.waitFor(ref, 'payment.completed', 60_000);
    const collector = context.collector();
    // Spans leave in batches (every 5 s): wait for the request's, then for its trace's last hop.
    request = await eventually(
      () =>
        collector.spans.find((span) => span.kind === SERVER && span.attributes['paygate.internal_reference'] === ref),
      30_000,
      "the merchant's request span",
    );
    const paid = await eventually(
      () =>
        collector.spans.find(
          (span) => span.name === 'callback payment.completed' && span.attributes['paygate.internal_reference'] === ref,
        ),
      30_000,
      "the payment callback's span",
    );
    // Its HTTP request ends after it starts: give the batch holding it time to arrive.
    await eventually(
      () => collector.spans.find((span) => span.parentSpanId === paid.spanId && span.kind === CLIENT),
      30_000,
      "the payment callback's request",
    );
    trace = collector.trace(request.traceId);
    outcome = collector.trace(paid.traceId);
  }, 180_000);

  afterAll(async () => {
    await receiver?.close();
  });

  it("names the merchant's request by its x-request-id and the collection's internal_reference", () => {
    expect(request.name).toBe('POST /v1/collections/collect-for-payment');
    expect(request.attributes['http.request.header.x-request-id']).toEqual([REQUEST_ID]);
    expect(request.attributes['http.response.status_code']).toBe(202);
    expect(context.collector().problems).toEqual([]);
  });

  it('holds the command to the collections service (both ends), below the request, and its append', () => {
    const sent = spanOf('command sent', (s) => s.kind === CLIENT && s.name === COMMAND);
    expect(sent.parentSpanId).toBe(request.spanId);
    const handled = commandHandled();
    expect(handled.parentSpanId).toBe(sent.spanId);
    const append = spanOf('append', (s) => s.name === 'append' && s.parentSpanId === handled.spanId);
    expect(append.attributes['paygate.stream']).toBe(`collection-${ref}`);
  });

  it("holds the PRN's validation: the payments consumer, the biller's lookup, the collections consumer of its verdict", () => {
    const requested = consumerOf('collections.ServicePaymentRequested', 'service-payments');
    expectBelow(requested, commandHandled());
    expectBelow(
      spanOf('biller lookup', (s) => s.kind === CLIENT && /\/sandbox\/biller\/v1\/prns\/\d+$/.test(urlOf(s))),
      requested,
    );
    const verdict = consumerOf('payments.PrnValidated', 'collections-prn-verdicts');
    expectBelow(verdict, requested);
    // Over Kafka a consumer continues the relay's span for the message, not the store's.
    if (context.layout.kafka) expect(context.collector().ancestry(verdict)[1].kind).toBe(PRODUCER);
  });

  it("holds the provider's request to pay below the verdict, and the provider's callback below that", () => {
    const requestToPay = spanOf('request to pay', (s) => s.kind === CLIENT && urlOf(s).endsWith('/requesttopay'));
    expectBelow(requestToPay, consumerOf('payments.PrnValidated', 'collections-prn-verdicts'));
    if (outcome[0].traceId === request.traceId) {
      const providerCallback = spanOf(
        'provider callback',
        (s) => s.kind === SERVER && s.name === 'PUT /provider-callbacks/:providerCode/:internalReference',
      );
      expectBelow(providerCallback, requestToPay);
    } else {
      // The status poll asked first and settled it: its own trace, linked to the payment's.
      const [timer] = outcome.filter((span) => span.name === 'timer status');
      expect(timer.linkedTraceIds).toEqual([request.traceId]);
    }
  });

  it('holds each callback: the dispatcher consumer, the delivery job, and its HTTP request to the merchant', () => {
    const root = outcome[0].traceId === request.traceId ? request : outcome.find((s) => s.name === 'timer status')!;
    const inOutcome = (what: string, test: (span: ReceivedSpan) => boolean) => {
      const found = outcome.find(test);
      if (!found) throw new Error(`no ${what} span in the trace: ${outcome.map((span) => span.name).join(', ')}`);
      return found;
    };
    for (const [event, cause] of [
      ['transaction.completed', 'collections.CollectionSettled'],
      ['payment.completed', 'payments.ServicePaymentCompleted'],
    ]) {
      const consumed = inOutcome(
        `${cause} (dispatcher)`,
        (s) =>
          s.kind === CONSUMER &&
          s.name === `process ${cause}` &&
          s.attributes['messaging.consumer.group.name'] === 'webhook-dispatcher',
      );
      const delivery = inOutcome(`callback ${event}`, (s) => s.name === `callback ${event}`);
      expect(delivery.parentSpanId).toBe(consumed.spanId);
      expect(delivery.attributes['paygate.internal_reference']).toBe(ref);
      const sent = inOutcome(`${event} sent`, (s) => s.kind === CLIENT && s.parentSpanId === delivery.spanId);
      expect(urlOf(sent)).toBe(receiver.url());
      expectBelow(sent, root);
    }
  });

  it("a timer's run is a trace of its own that links back to the collection's: an unconfirmed one cancelled", async () => {
    const unconfirmed = await client.request('POST', '/v1/collections/initialize', { body: mobileMoneyRequest() });
    expect(unconfirmed.status).toBe(202);
    const reference = String(unconfirmed.body.data.internal_reference);
    await receiver.waitFor(reference, 'transaction.cancelled', 60_000);
    const collector = context.collector();
    const opened = await eventually(
      () =>
        collector.spans.find(
          (span) => span.kind === SERVER && span.attributes['paygate.internal_reference'] === reference,
        ),
      30_000,
      'the initialize request span',
    );
    const timer = await eventually(
      () =>
        collector.spans.find(
          (span) => span.name === 'timer confirmation' && span.attributes['paygate.internal_reference'] === reference,
        ),
      30_000,
      'the confirmation timer span',
    );
    expect(timer.traceId).not.toBe(opened.traceId);
    expect(timer.linkedTraceIds).toEqual([opened.traceId]);
    // The cancellation's callback goes out in the timer's trace.
    const cancelled = await eventually(
      () => collector.trace(timer.traceId).find((span) => span.name === 'callback transaction.cancelled'),
      30_000,
      "the cancellation callback's span",
    );
    expectBelow(cancelled, timer);
  });

  it("links the gateway's request latency to traces: its buckets' exemplars name traces the collector received", async () => {
    const metrics = await fetch(`${context.gateway()}/metrics?name=paygate_http_request_duration_seconds`);
    expect(metrics.headers.get('content-type')).toMatch(/^application\/openmetrics-text/);
    const text = await metrics.text();
    const exemplars = [...text.matchAll(/^paygate_http_request_duration_seconds_bucket\{.*\} \d+ # \{(.*)\} /gm)].map(
      ([, labels]) =>
        Object.fromEntries([...labels.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name, value])),
    );
    expect(exemplars.length).toBeGreaterThan(0);
    for (const exemplar of exemplars)
      expect(exemplar).toEqual({
        trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
    const received = new Set(context.collector().spans.map((span) => span.traceId));
    expect(exemplars.filter((exemplar) => received.has(exemplar.trace_id))).not.toEqual([]);
  });

  it("spans the layout's apps", () => {
    expect([...new Set(trace.map((span) => span.service))].sort()).toEqual([...context.layout.services].sort());
  });
}
