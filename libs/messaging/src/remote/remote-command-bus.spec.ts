import {
  CommandRejectedError,
  ContractCommand,
  ContractQuery,
  serviceContract,
  UnavailableError,
} from '@paygate/contracts';
import type { StreamDecider } from '@paygate/decider';
import { DeciderRuntime, SqlEventStore } from '@paygate/event-store';
import { createLogger, currentLogContext, withLogContext } from '@paygate/logging';
import { NO_METRICS } from '@paygate/metrics';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { freePort } from '@paygate/net-guard';
import { issueAppCertificates } from '@paygate/testing';
import { join } from 'node:path';
import { CommandTimeoutError, type CommandBus } from '../command-bus';
import { readCommandTls, type CommandTls } from './command-tls';
import { TcpCommandBus } from './tcp-command-bus';

const log = createLogger('remote-commands-test', 'error');

class WhoAmI extends ContractQuery<Record<string, never>, { instance: string; requestId: string | null }> {}
class Add extends ContractCommand<{ counter: string }, { total: number }> {}
class Refuse extends ContractCommand<Record<string, never>, null> {}
class Crash extends ContractCommand<Record<string, never>, null> {}
class Slow extends ContractCommand<{ ms: number }, { done: boolean }> {}
const SERVICE = serviceContract(
  'counters',
  { servedBy: 'collections', sentBy: ['api-gateway'] },
  { whoAmI: WhoAmI, add: Add, refuse: Refuse, crash: Crash, slow: Slow },
);

type CounterEvent = { type: 'Added'; data: Record<string, never> };
const counter: StreamDecider<'add', CounterEvent, number> = {
  initialState: 0,
  streamName: (id) => `counter-${id}`,
  schemaVersion: 1,
  decide: () => [{ type: 'Added', data: {} }],
  evolve: (total) => total + 1,
  read: ({ type }) => (type === 'Added' ? { type, data: {} } : undefined),
};

/**
 * A sender learns that an instance has gone when its connection closes; a command sent in the
 * instant between is answered "unavailable" (whether it ran is unknown) and the merchant's retry
 * is safe. These tests send after that instant, as nearly every command does.
 */
const seesConnectionsClose = () => new Promise((resolve) => setTimeout(resolve, 50));

let db: SqlDatabase;
let counters: DeciderRuntime<'add', CounterEvent, number>;
/** The gateway's certificate sends, the collections app's serves. */
let tls: { sender: CommandTls; server: CommandTls };

beforeAll(async () => {
  db = await openSqlDatabase('pglite://memory');
  counters = new DeciderRuntime(await SqlEventStore.create(db), counter);
  const apps = issueAppCertificates();
  tls = { sender: readCommandTls(join(apps, 'api-gateway')), server: readCommandTls(join(apps, 'collections')) };
});
afterAll(() => db.close());

describe('commands between processes (TCP, mutual TLS)', () => {
  const opened: CommandBus[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((instance) => instance.close()));
  });

  function bus(listenPort: number | undefined, servicePorts: number[], timeoutMs = 5_000): CommandBus {
    const instance = new TcpCommandBus(
      {
        listenUrl: listenPort === undefined ? undefined : `tcp://127.0.0.1:${listenPort}`,
        services: servicePorts.length
          ? { counters: `tcp://${servicePorts.map((port) => `127.0.0.1:${port}`).join(',')}` }
          : {},
        tls: listenPort === undefined ? tls.sender : tls.server,
      },
      log,
      NO_METRICS,
      timeoutMs,
    );
    opened.push(instance);
    return instance;
  }

  /** An instance of the counters service on `port`, sharing the one event store. */
  async function instance(name: string, port: number): Promise<CommandBus> {
    const served = bus(port, []);
    await served.serve(SERVICE, async (message) => {
      if (message instanceof WhoAmI) return { instance: name, requestId: currentLogContext()?.requestId ?? null };
      if (message instanceof Add) return { total: (await counters.handle(message.payload.counter, 'add')).state };
      if (message instanceof Refuse)
        throw new CommandRejectedError('duplicate_reference', 'already used', { field: 'merchant_reference' });
      if (message instanceof Slow) {
        await new Promise((resolve) => setTimeout(resolve, message.payload.ms));
        return { done: true };
      }
      throw new Error('secret internals');
    });
    return served;
  }

  it('spreads commands over every instance behind one address, carrying the request id', async () => {
    const [a, b] = [await freePort(), await freePort()];
    await instance('a', a);
    await instance('b', b);
    const gateway = bus(undefined, [a, b]);
    // Round-robin over the instances it is connected to: the second connection may still be
    // opening during the first calls, so a hundred calls in turn must reach both.
    const answers: { instance: string; requestId: string | null }[] = [];
    for (let i = 0; i < 100 && new Set(answers.map((answer) => answer.instance)).size < 2; i++)
      answers.push(await withLogContext({ requestId: `req-${i}` }, () => gateway.send(new WhoAmI({}))));
    expect(new Set(answers.map((answer) => answer.instance))).toEqual(new Set(['a', 'b']));
    expect(answers.map((answer) => answer.requestId)).toEqual(answers.map((_, i) => `req-${i}`));
  });

  it('carries a rejection back with its code and details, and hides an internal error', async () => {
    const port = await freePort();
    await instance('a', port);
    const gateway = bus(undefined, [port]);
    await expect(gateway.send(new Refuse({}))).rejects.toMatchObject({
      code: 'duplicate_reference',
      message: 'already used',
      details: { field: 'merchant_reference' },
    });
    const crash = await gateway.send(new Crash({})).catch((e: unknown) => e);
    expect(crash).toMatchObject({ code: 'internal' });
    expect((crash as Error).message).not.toContain('secret');
  });

  it('answers the commands in hand when an instance shuts down, then sends to the other', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const first = await instance('a', a);
    await instance('b', b);
    const gateway = bus(undefined, [a, b]);
    const inHand = Array.from({ length: 6 }, () => gateway.send(new Slow({ ms: 300 })));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await first.close();
    await seesConnectionsClose();
    await expect(Promise.all(inHand)).resolves.toEqual(Array.from({ length: 6 }, () => ({ done: true })));
    const after = await Promise.all(Array.from({ length: 6 }, () => gateway.send(new WhoAmI({}))));
    expect(after.every((answer) => answer.instance === 'b')).toBe(true);
  });

  it('keeps answering from the other instance when one stops', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const first = await instance('a', a);
    await instance('b', b);
    const gateway = bus(undefined, [a, b]);
    await gateway.send(new WhoAmI({}));
    await first.close();
    await seesConnectionsClose();
    const answers = await Promise.all(Array.from({ length: 10 }, () => gateway.send(new WhoAmI({}))));
    expect(answers.every((answer) => answer.instance === 'b')).toBe(true);
  });

  it('waits for a service that is still starting and is answered once it listens', async () => {
    const port = await freePort();
    const gateway = bus(undefined, [port]);
    const answer = gateway.send(new WhoAmI({}));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await instance('late', port);
    await expect(answer).resolves.toMatchObject({ instance: 'late' });
  });

  it('answers unavailable (a time-out) when no instance answers before the deadline', async () => {
    const gateway = bus(undefined, [await freePort()], 300);
    const error = await gateway.send(new WhoAmI({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandTimeoutError);
    expect(error).toBeInstanceOf(UnavailableError);
  });

  it('retries a concurrency conflict between two instances writing one stream: every command is applied once', async () => {
    const [a, b] = [await freePort(), await freePort()];
    await instance('a', a);
    await instance('b', b);
    const gateway = bus(undefined, [a, b]);
    const totals = await Promise.all(
      Array.from({ length: 16 }, () => gateway.send(new Add({ counter: 'shared' }), { key: 'shared' })),
    );
    expect([...totals.map((reply) => reply.total)].sort((x, y) => x - y)).toEqual(
      Array.from({ length: 16 }, (_, i) => i + 1),
    );
    expect((await counters.load('shared')).state).toBe(16);
  });
});
