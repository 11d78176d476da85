import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from 'undici';
import { guardedDispatcher } from './guarded-dispatcher';
import { TARGET_NOT_ALLOWED, TargetNotAllowedError, type Resolver } from './target-guard';

const SWITCH_OFF = { allowPrivate: false };
const SWITCH_ON = { allowPrivate: true };

/** A resolver answering `address` for every name, counting how often it is asked. */
function resolvingTo(address: string) {
  const resolver = Object.assign<Resolver, { calls: number }>(
    (_hostname, _options, callback) => {
      resolver.calls += 1;
      const answer: LookupAddress = { address, family: address.includes(':') ? 6 : 4 };
      callback(null, [answer]);
    },
    { calls: 0 },
  );
  return resolver;
}

/** A loopback receiver of this test that counts the connections made to it. */
async function receiver(configure: (server: Server) => void = () => undefined) {
  let connections = 0;
  const server = createServer((_request, response) => response.end('reached'));
  server.on('connection', () => connections++);
  configure(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('guardedDispatcher', () => {
  let endpoint: Awaited<ReturnType<typeof receiver>>;
  const dispatchers: Agent[] = [];
  const dispatcher = (...args: Parameters<typeof guardedDispatcher>) => {
    const opened = guardedDispatcher(...args);
    dispatchers.push(opened);
    return opened;
  };
  const OPTIONS = { connectionsPerOrigin: 4, connectTimeoutMs: 2_000 };

  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((opened) => opened.destroy()));
    await endpoint?.close();
  });

  /** The body of a GET, or the error that stopped it. */
  async function get(through: Agent, origin: string): Promise<string> {
    try {
      const { body } = await through.request({ origin, path: '/', method: 'GET' });
      return await body.text();
    } catch (error) {
      return error instanceof TargetNotAllowedError ? TARGET_NOT_ALLOWED : (error as Error).message;
    }
  }

  it('sends requests to one origin over one kept-alive connection, resolving its name once', async () => {
    endpoint = await receiver();
    const resolve = resolvingTo('127.0.0.1');
    const pool = dispatcher(SWITCH_ON, { ...OPTIONS, resolve });
    const origin = `http://receiver.example:${endpoint.port}`;

    expect(await get(pool, origin)).toBe('reached');
    // The pool hears a connection is free on the next turn of the event loop: a request sent in the same turn as
    // the last one ended would open a second connection (up to connectionsPerOrigin).
    await nextTurn();
    expect(await get(pool, origin)).toBe('reached');
    expect(endpoint.connections()).toBe(1);
    expect(resolve.calls).toBe(1);
  });

  it('opens no more connections to an origin than connectionsPerOrigin', async () => {
    endpoint = await receiver();
    const pool = dispatcher(SWITCH_ON, { ...OPTIONS, connectionsPerOrigin: 1 });
    const origin = `http://127.0.0.1:${endpoint.port}`;

    expect(await Promise.all([get(pool, origin), get(pool, origin), get(pool, origin)])).toEqual([
      'reached',
      'reached',
      'reached',
    ]);
    expect(endpoint.connections()).toBe(1);
  });

  it('refuses a new connection to a name that resolves to a refused address, deciding before any connect', async () => {
    // The decision only: the refusal comes from the resolver's answer, so nothing is ever connected to 10.0.0.1.
    const resolve = resolvingTo('10.0.0.1');
    expect(await get(dispatcher(SWITCH_OFF, { ...OPTIONS, resolve }), 'http://rebind.example')).toBe(
      TARGET_NOT_ALLOWED,
    );
    expect(resolve.calls).toBe(1);
    // Link-local (cloud metadata) stays refused with private targets allowed.
    const metadata = resolvingTo('169.254.169.254');
    expect(await get(dispatcher(SWITCH_ON, { ...OPTIONS, resolve: metadata }), 'http://rebind.example')).toBe(
      TARGET_NOT_ALLOWED,
    );
  });

  it('never connects to a loopback listener when private targets are refused, by name or by IP literal', async () => {
    endpoint = await receiver();
    const pool = dispatcher(SWITCH_OFF, { ...OPTIONS, resolve: resolvingTo('127.0.0.1') });

    expect(await get(pool, `http://rebound.example:${endpoint.port}`)).toBe(TARGET_NOT_ALLOWED);
    expect(await get(pool, `http://127.0.0.1:${endpoint.port}`)).toBe(TARGET_NOT_ALLOWED);
    expect(await get(pool, `http://[::ffff:127.0.0.1]:${endpoint.port}`)).toBe(TARGET_NOT_ALLOWED);
    expect(await get(pool, `http://localhost:${endpoint.port}`)).toBe(TARGET_NOT_ALLOWED);
    expect(endpoint.connections()).toBe(0);
  });

  it('sends the next request on a new connection after the receiver timed the idle one out', async () => {
    endpoint = await receiver((server) => (server.keepAliveTimeout = 100));
    const pool = dispatcher(SWITCH_ON, OPTIONS);
    const origin = `http://127.0.0.1:${endpoint.port}`;

    expect(await get(pool, origin)).toBe('reached');
    await sleep(300);
    expect(await get(pool, origin)).toBe('reached');
    expect(endpoint.connections()).toBe(2);
  });

  it('sends the next request on a new connection after the receiver closed the idle one unannounced', async () => {
    // keepAliveTimeout 0: no Keep-Alive header, and the receiver closes idle connections when it likes.
    endpoint = await receiver((server) => (server.keepAliveTimeout = 0));
    const pool = dispatcher(SWITCH_ON, OPTIONS);
    const origin = `http://127.0.0.1:${endpoint.port}`;

    expect(await get(pool, origin)).toBe('reached');
    endpoint.server.closeIdleConnections();
    await sleep(50);
    expect(await get(pool, origin)).toBe('reached');
    expect(endpoint.connections()).toBe(2);
  });
});
