import { randomUUID } from 'node:crypto';
import { CommandRejectedError, ContractCommand, ContractQuery, serviceContract } from '@paygate/contracts';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import { integrationEnvelope, type Messaging } from '@paygate/messaging';
import { eventually } from '../scenarios/wait';

export interface MessagingUnderTest {
  store: EventStore;
  /** Opens a fresh messaging instance, as a new process would (same store and database). */
  open(): Promise<Messaging>;
  dispose(): Promise<void>;
}

/** The service the command tests serve and send to (a remote transport routes it by this name). */
export const CONFORMANCE_SERVICE = 'conformance';

class Add extends ContractQuery<{ a: number; b: number }, { sum: number }> {}
class Reject extends ContractCommand<Record<string, never>, null> {}
class Crash extends ContractCommand<Record<string, never>, null> {}
/** One process serves and sends it, so over TCP its own certificate (collections') is on both ends. */
export const CONFORMANCE_ACCESS = { servedBy: 'collections', sentBy: ['collections'] } as const;
const TEST_CONTRACT = serviceContract(CONFORMANCE_SERVICE, CONFORMANCE_ACCESS, {
  add: Add,
  reject: Reject,
  crash: Crash,
});
/** What a newer sender may ask of an older server. */
class Newer extends ContractCommand<Record<string, never>, null> {}
serviceContract(CONFORMANCE_SERVICE, CONFORMANCE_ACCESS, { nope: Newer });

/** The behaviour both transports (in-process and Kafka) must show. */
export function messagingConformance(setup: () => Promise<MessagingUnderTest>): void {
  let subject: MessagingUnderTest;
  let messaging: Messaging;
  let prefix: string;
  const opened: Messaging[] = [];
  const open = async () => {
    const instance = await subject.open();
    opened.push(instance);
    return instance;
  };

  beforeAll(async () => {
    subject = await setup();
  });
  afterAll(() => subject?.dispose());
  beforeEach(async () => {
    prefix = `t${randomUUID().replace(/-/g, '').slice(0, 10)}-`;
    messaging = await open();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((m) => m.close()));
  });

  const append = (stream: string, ...types: string[]) =>
    subject.store.appendToStream(
      `${prefix}${stream}`,
      types.map((type) => ({ type, data: { type } })),
    );

  describe('commands', () => {
    it('replies with the handler result', async () => {
      await messaging.commands.serve(TEST_CONTRACT, async (message) =>
        message instanceof Add ? { sum: message.payload.a + message.payload.b } : null,
      );
      await expect(messaging.commands.send(new Add({ a: 2, b: 40 }))).resolves.toEqual({ sum: 42 });
    });

    it('carries a rejection back with its code, message and details, and hides internal errors', async () => {
      await messaging.commands.serve(TEST_CONTRACT, async (message) => {
        if (message instanceof Reject)
          throw new CommandRejectedError('duplicate_reference', 'already exists', { field: 'merchant_reference' });
        throw new Error('secret internals');
      });
      await expect(messaging.commands.send(new Reject({}))).rejects.toMatchObject({
        code: 'duplicate_reference',
        message: 'already exists',
        details: { field: 'merchant_reference' },
      });
      const crash = (await messaging.commands.send(new Crash({})).catch((e: unknown) => e)) as CommandRejectedError;
      expect(crash).toBeInstanceOf(CommandRejectedError);
      expect(crash).toMatchObject({ code: 'internal' });
      expect(crash.message).not.toContain('secret');
      await expect(messaging.commands.send(new Newer({}))).rejects.toMatchObject({ code: 'unknown_command' });
    });
  });

  describe('events', () => {
    it('delivers every event to each consumer group, in order per stream', async () => {
      await messaging.events.publish([prefix]);
      const groupA: RecordedEvent[] = [];
      const groupB: RecordedEvent[] = [];
      await messaging.events.consume(
        { group: `${prefix}a`, streamPrefixes: [prefix] },
        async (e) => void groupA.push(e),
      );
      await messaging.events.consume(
        { group: `${prefix}b`, streamPrefixes: [prefix] },
        async (e) => void groupB.push(e),
      );
      await append('s1', 'A1', 'A2');
      await append('s2', 'B1');
      await append('s1', 'A3');
      await append('s2', 'B2', 'B3');
      for (const seen of [groupA, groupB]) {
        await eventually(() => (seen.length >= 6 ? true : undefined), 30_000, 'six events');
        const ofStream = (s: string) => seen.filter((e) => e.streamName === `${prefix}${s}`).map((e) => e.type);
        expect(ofStream('s1')).toEqual(['A1', 'A2', 'A3']);
        expect(ofStream('s2')).toEqual(['B1', 'B2', 'B3']);
        expect(seen[0]).toMatchObject({
          data: expect.any(Object),
          id: expect.any(String),
          revision: expect.any(Number),
        });
      }
    });

    it('redelivers an event whose handler threw, before later events of its stream', async () => {
      await messaging.events.publish([prefix]);
      const attempts: string[] = [];
      let failuresLeft = 2;
      await messaging.events.consume({ group: `${prefix}retry`, streamPrefixes: [prefix] }, async (e) => {
        attempts.push(e.type);
        if (e.type === 'Flaky' && failuresLeft-- > 0) throw new Error('transient');
      });
      await append('s', 'Before', 'Flaky', 'After');
      await eventually(() => (attempts.includes('After') ? true : undefined), 30_000, 'event after the flaky one');
      expect(attempts.filter((t) => t === 'Flaky')).toHaveLength(3);
      expect(attempts.lastIndexOf('Flaky')).toBeLessThan(attempts.indexOf('After'));
    });

    it('hands a page consumer a backlog in pages, every event once, in stream order', async () => {
      await messaging.events.publish([prefix]);
      const types = Array.from({ length: 20 }, (_, i) => `E${i}`);
      await append('s', ...types); // one append: one read of the store, one fetch of its partition
      const pages: string[][] = [];
      await messaging.events.consumePages(
        { group: `${prefix}pages`, streamPrefixes: [prefix] },
        async (page) => void pages.push(page.map((e) => e.type)),
      );
      await eventually(() => (pages.flat().length >= 20 ? true : undefined), 30_000, 'twenty events');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pages.flat()).toEqual(types);
      expect(Math.max(...pages.map((page) => page.length))).toBeGreaterThan(1);
    });

    it('gives a page consumer the whole page again when its handler threw, and nothing after it before', async () => {
      await messaging.events.publish([prefix]);
      const attempts: string[][] = [];
      let failuresLeft = 1;
      await messaging.events.consumePages({ group: `${prefix}pageretry`, streamPrefixes: [prefix] }, async (page) => {
        attempts.push(page.map((e) => e.type));
        if (page.some((e) => e.type === 'Flaky') && failuresLeft-- > 0) throw new Error('transient');
      });
      await append('s', 'Before', 'Flaky', 'After');
      await eventually(
        () => (attempts.flat().filter((type) => type === 'Flaky').length === 2 ? true : undefined),
        30_000,
        'the page again',
      );
      await append('s', 'Later');
      await eventually(() => (attempts.flat().includes('Later') ? true : undefined), 30_000, 'a later event');
      const failed = attempts.findIndex((page) => page.includes('Flaky'));
      // The retry starts where the failed page did: nothing of it was taken as handled.
      expect(attempts[failed + 1]).toEqual(attempts[failed]);
      expect(attempts.flat().filter((type) => type === 'After')).toHaveLength(2);
    });

    it('resumes a group after a restart without losing or repeating events', async () => {
      await messaging.events.publish([prefix]);
      const handled: string[] = [];
      const group = { group: `${prefix}restart`, streamPrefixes: [prefix] };
      await messaging.events.consume(group, async (e) => void handled.push(e.type));
      await append('s', 'E1', 'E2');
      await eventually(() => (handled.length >= 2 ? true : undefined), 30_000, 'first events');
      await messaging.close();
      opened.splice(opened.indexOf(messaging), 1);

      await append('s', 'E3'); // appended while no consumer runs
      const restarted = await open();
      await restarted.events.publish([prefix]);
      await restarted.events.consume(group, async (e) => void handled.push(e.type));
      await append('s', 'E4');
      await eventually(() => (handled.includes('E4') ? true : undefined), 30_000, 'events after restart');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(handled).toEqual(['E1', 'E2', 'E3', 'E4']);
    });

    it("gives a publications consumer only the context's integration events, in stream order, with their version", async () => {
      const context = `ctx${prefix.slice(1, 9)}`;
      const publication = { context, streamPrefixes: [prefix] };
      await messaging.events.publish([prefix], publication);
      const seen: { type: string; version: number; revision: number }[] = [];
      await messaging.events.consume({ group: `${prefix}pub`, publications: [publication] }, async (e) => {
        const { type, version, revision } = integrationEnvelope(e);
        seen.push({ type, version, revision });
      });
      await subject.store.appendToStream(`${prefix}s`, [
        { type: 'Internal', data: {} },
        { type: `${context}.Opened`, data: {}, metadata: { schemaVersion: 2 } },
        { type: 'other.Opened', data: {} },
        { type: `${context}.Settled`, data: {}, metadata: { schemaVersion: 1 } },
      ]);
      await eventually(() => (seen.length >= 2 ? true : undefined), 30_000, 'two integration events');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toEqual([
        { type: `${context}.Opened`, version: 2, revision: 1 },
        { type: `${context}.Settled`, version: 1, revision: 3 },
      ]);
    });

    it('answers ping', async () => {
      await expect(messaging.events.ping()).resolves.toBeUndefined();
    });
  });
}
