/**
 * The callback delivery worker (setup in delivery-worker-test-setup.ts). This file: an attempt's
 * log line names the flow of the payment it is about (the correlation id of the event that
 * queued the callback), so an SRE following one payment through the logs finds its callbacks.
 */
import { byAttempt, describeDeliveryScenarios, newDelivery, status } from './delivery-worker-test-setup';

describeDeliveryScenarios(({ endpoint, dispatcher, settled, logLines }) => {
  const attemptLines = (webhookId: string) =>
    logLines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter(
        (entry) => /^callback (attempt|abandoned)$/.test(String(entry.message)) && entry.webhook_id === webhookId,
      );

  it("logs every attempt with the flow's correlation id", async () => {
    const target = await endpoint(byAttempt(status(503), status(200)));
    const { queue, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url(), { correlationId: 'req-checkout-42' });
    await queue.enqueue([delivery]);
    startWorker();

    await settled(delivery.webhookId, 'delivered');
    const lines = attemptLines(delivery.webhookId);
    expect(lines.map((entry) => entry.status)).toEqual([503, 200]);
    for (const entry of lines) expect(entry.correlation_id).toBe('req-checkout-42');
  });

  it('logs a callback queued without one (by a release before) as before, without the field', async () => {
    const target = await endpoint(byAttempt(status(200)));
    const { queue, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    await settled(delivery.webhookId, 'delivered');
    const [line] = attemptLines(delivery.webhookId);
    expect(line).toBeDefined();
    expect(line).not.toHaveProperty('correlation_id');
  });
});
