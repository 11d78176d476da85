/**
 * Following one collection through the JSON log by its request id: the gateway's request lines,
 * the service's command lines, the collection's end and its callbacks all carry it (as the
 * request id or as the flow's correlation id), and so does every event of its stream.
 */
import { eventually } from '@paygate/testing';
import {
  StdoutCapture,
  completedMobileMoney,
  startObservedPaygate,
  type ObservedPaygate,
} from './observability-test-setup';

describe('following a collection through the log', () => {
  const capture = new StdoutCapture();
  let observed: ObservedPaygate;

  beforeAll(async () => {
    capture.start();
    observed = await startObservedPaygate({ LOG_LEVEL: 'info' });
  });

  afterAll(async () => {
    await observed?.close();
    capture.stop();
  });

  it("finds the request, its commands, the collection's end and its callbacks by the id the merchant sent", async () => {
    const requestId = `follow-${Date.now()}`;
    const ref = await completedMobileMoney(observed, { 'x-request-id': requestId });
    // An attempt is logged once recorded, just after the receiver answered it; a request once its
    // response has gone, which for the provider's callback can be after the callbacks it caused.
    const isProviderCallback = (entry: Record<string, unknown>) =>
      entry.message === 'request' &&
      entry.route === '/provider-callbacks/:providerCode/:internalReference' &&
      entry.correlation_id === requestId;
    const entries = await eventually(
      () => {
        const now = capture.entries();
        const attempts = now.filter(
          (entry) => entry.message === 'callback attempt' && entry.internal_reference === ref,
        );
        return attempts.length === 2 && now.some(isProviderCallback) ? now : undefined;
      },
      10_000,
      "both callback attempts and the provider's callback to be logged",
    );
    const ofFlow = entries.filter((entry) => entry.request_id === requestId || entry.correlation_id === requestId);

    const requests = ofFlow.filter((entry) => entry.message === 'request');
    expect(requests.filter((entry) => entry.request_id === requestId).map((entry) => entry.route)).toEqual([
      '/v1/collections/initialize',
      '/v1/collections/confirm',
    ]);
    expect(ofFlow.filter((entry) => entry.message === 'command handled').map((entry) => entry.command)).toEqual([
      'collections.initialize',
      'collections.confirm',
    ]);
    // The provider's callback is a request of its own (its own request id); it joins the collection's flow.
    expect(requests.filter((entry) => entry.request_id !== requestId).map((entry) => entry.route)).toEqual([
      '/provider-callbacks/:providerCode/:internalReference',
    ]);
    expect(ofFlow.filter((entry) => entry.message === 'collection finished')).toEqual([
      expect.objectContaining({
        correlation_id: requestId,
        internal_reference: ref,
        status: 'COMPLETED',
        method: 'MOBILE_MONEY',
      }),
    ]);
    const scheduled = ofFlow.filter((entry) => entry.message === 'callback scheduled');
    expect(scheduled).toHaveLength(2);
    for (const entry of scheduled) expect(entry.event_id).toEqual(expect.any(String));
    const webhookIds = scheduled.map((entry) => entry.webhook_id);
    // The dispatcher's claims serve every flow; each attempt names the flow its delivery was queued in, never another.
    const attempts = entries.filter(
      (entry) => entry.message === 'callback attempt' && webhookIds.includes(entry.webhook_id),
    );
    expect(attempts.map((entry) => [entry.internal_reference, entry.state, entry.correlation_id])).toEqual([
      [ref, 'delivered', requestId],
      [ref, 'delivered', requestId],
    ]);
  });

  it("carries the request and correlation ids in the metadata of every event of the collection's stream", async () => {
    const requestId = `events-${Date.now()}`;
    const ref = await completedMobileMoney(observed, { 'x-request-id': requestId });
    const events = await observed.paygate.infrastructure.store.readStream(`collection-${ref}`);
    expect(events.length).toBeGreaterThanOrEqual(4);
    for (const event of events) expect(event.metadata.correlationId).toBe(requestId);
    expect(events[0].metadata.requestId).toBe(requestId);
  });

  it('writes nothing to stdout but JSON lines', () => {
    expect(capture.lines.length).toBeGreaterThan(0);
    for (const line of capture.lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
