import RequestQueue from 'kafkajs/src/network/requestQueue';
import { describeWithService, silentLogger } from '@paygate/testing';
import { createKafka } from './kafka-connection';

/** Timers armed by kafkajs's request queues while `during` runs. */
async function requestQueueTimers(during: () => Promise<void>): Promise<number> {
  const original = global.setTimeout;
  let armed = 0;
  const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((...args: Parameters<typeof setTimeout>) => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 50;
    if (new Error().stack?.includes('kafkajs/src/network/requestQueue')) armed++;
    Error.stackTraceLimit = limit;
    return original(...args);
  }) as typeof setTimeout);
  try {
    await during();
  } finally {
    spy.mockRestore();
  }
  return armed;
}

const kafkajsLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe("kafkajs's request queue with nothing waiting", () => {
  const queue = () =>
    new RequestQueue({
      maxInFlightRequests: null,
      requestTimeout: 30_000,
      enforceRequestTimeout: true,
      clientId: 'test',
      broker: 'test:9092',
      logger: kafkajsLogger,
    });

  it('arms no timer after a check of an empty queue (kafkajs would check again every millisecond)', () => {
    const idle = queue();
    idle.checkPendingRequests();
    expect(idle.throttleCheckTimeoutId).toBeNull();
  });

  it('still checks again later for a request that waits while the broker throttles', () => {
    const throttled = queue();
    throttled.throttledUntil = Date.now() + 60_000;
    throttled.pending.push({});
    throttled.scheduleCheckPendingRequests();
    expect(throttled.throttleCheckTimeoutId).not.toBeNull();
    clearTimeout(throttled.throttleCheckTimeoutId!);
  });
});

describeWithService('kafka', 'an idle Kafka connection', (brokerUrl) => {
  it('wakes nothing once its requests are answered', async () => {
    const kafka = createKafka(brokerUrl, {}, 'request-queue-idle-test', silentLogger);
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.listTopics();
      const armed = await requestQueueTimers(() => new Promise((resolve) => setTimeout(resolve, 300)));
      expect(armed).toBe(0);
    } finally {
      await admin.disconnect();
    }
  });
});
