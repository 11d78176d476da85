/**
 * `paygate events replay` into a real Kafka: keyed by stream, in stream order, with the relay's
 * value and headers; replayed twice, consumers see each event twice with the same id and
 * nothing else. Reads back a topic of its own (--topic), so no service consumes it.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { describeWithService } from '@paygate/testing';
import { replayTopic } from '@paygate/analytics';
import { lines, runCli, seedPgliteStore, temporaryDir } from './cli-test-setup';

interface Received {
  key: string;
  value: Record<string, unknown>;
  headers: Record<string, string>;
}

async function readTopic(brokers: string[], topic: string, count: number): Promise<Received[]> {
  const kafka = new Kafka({ clientId: 'replay-spec', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `replay-spec-${randomUUID()}` });
  const received: Received[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        const headers = Object.fromEntries(
          Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
        );
        received.push({
          key: String(message.key),
          value: JSON.parse(String(message.value)) as Record<string, unknown>,
          headers,
        });
        if (received.length === count) resolve();
      },
    });
  });
  await consumer.disconnect();
  return received;
}

describe('the topic of a replayed event', () => {
  it('is the relay’s: paygate.events.<stream prefix without its dash>, or the one given', () => {
    expect(replayTopic('collection-PG1')).toBe('paygate.events.collection');
    expect(replayTopic('service-payment-PG1')).toBe('paygate.events.service-payment');
    expect(replayTopic('wallet-m1-UGX')).toBe('paygate.events.wallet');
    expect(replayTopic('collection-PG1', 'analysts.replay')).toBe('analysts.replay');
    expect(() => replayTopic('probe-1')).toThrow('stream probe-1 is published by no relay; name a topic with --topic');
  });
});

describeWithService('kafka', 'paygate events replay into Kafka', (brokerUrl) => {
  const dir = temporaryDir('replay');
  const env = { STORE_URL: `pglite://${join(dir.path, 'store')}` };
  const topic = `paygate.replay-spec.${randomUUID()}`;
  const brokers = brokerUrl.slice('kafka://'.length).split(',');

  beforeAll(() => seedPgliteStore(join(dir.path, 'store'), 4));
  afterAll(() => dir.remove());

  it('replayed twice: every event twice, same id, same key and value, each stream in order', async () => {
    const events = lines((await runCli(['events', 'export'], env)).stdout);
    for (let run = 0; run < 2; run++) {
      const replay = await runCli(['events', 'replay', '--to', brokerUrl, '--topic', topic], env);
      expect(replay).toEqual({
        code: 0,
        stdout: '',
        stderr: `paygate: 14 events replayed to ${topic}, last position ${events[13].position} (continue with --after ${events[13].position})\n`,
      });
    }
    const received = await readTopic(brokers, topic, 28);
    expect(received).toHaveLength(28);

    const byId = new Map<string, Received[]>();
    for (const message of received)
      byId.set(message.headers['event-id'], [...(byId.get(message.headers['event-id']) ?? []), message]);
    expect([...byId.keys()].sort()).toEqual(events.map((event) => String(event.id)).sort());
    for (const event of events) {
      const copies = byId.get(String(event.id))!;
      expect(copies).toHaveLength(2);
      expect(copies[1]).toEqual(copies[0]);
      expect(copies[0]).toEqual({
        key: event.stream,
        headers: { 'event-id': event.id, 'event-type': event.type },
        value: {
          id: event.id,
          type: event.type,
          streamName: event.stream,
          revision: event.revision,
          data: event.data,
          metadata: event.metadata,
          position: event.position,
          recordedAt: event.time,
        },
      });
    }
    // Per key (one partition each), each replay delivers the stream in revision order.
    for (const stream of new Set(events.map((event) => String(event.stream)))) {
      const revisions = received.filter((message) => message.key === stream).map((message) => message.value.revision);
      const once = events.filter((event) => event.stream === stream).map((event) => event.revision);
      expect(revisions).toEqual([...once, ...once]);
    }
  });

  it('a broker that does not answer: exit 1 with one line', async () => {
    const { createServer } = await import('node:net');
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const run = await runCli(['events', 'replay', '--to', `kafka://127.0.0.1:${port}`, '--topic', topic], env);
    server.close();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^paygate: cannot reach Kafka at 127\\.0\\.0\\.1:${port}: .+\\n$`));
  });
});
