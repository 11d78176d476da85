import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown, type Type } from '@nestjs/common';
import type { RecordedEvent } from '@paygate/event-store';
import type { RunningConsumer } from '@paygate/messaging';
import { getOnNewConnection, Gate, heldRoute, parseResponses, rawConnection, startTestApp } from './platform-test-app';
import type { Infrastructure } from './infrastructure';
import { shutDown } from './shutdown';
import { INFRASTRUCTURE } from './tokens';

/*
 * Issue 12, drain on SIGTERM: readiness turns unready first, the listener stops accepting,
 * requests in flight finish and get their responses, idle keep-alive connections are closed,
 * consumers finish their current message and commit, and whatever does not finish within
 * SHUTDOWN_TIMEOUT_MS is abandoned with a line saying what. (Exit codes: e2e/distributed.)
 */
describe('shutDown', () => {
  it('turns unready, stops accepting, answers the request in flight and closes every connection', async () => {
    const gate = new Gate();
    const { app, infrastructure, config, log, url, port } = await startTestApp([heldRoute(gate)], {
      SHUTDOWN_DELAY_MS: '300',
    });
    const idle = await rawConnection(port);
    idle.socket.write('GET /health/live HTTP/1.1\r\nhost: test\r\n\r\n');
    const inFlight = await rawConnection(port);
    inFlight.socket.write('GET /test/held HTTP/1.1\r\nhost: test\r\n\r\n');
    await gate.reached;
    expect(await getOnNewConnection(url, '/health/ready')).toBe(200);

    const stopped = shutDown(app, infrastructure, config.shutdown, log);
    // Unready at once, while the listener still accepts for SHUTDOWN_DELAY_MS (load balancers probe on new
    // connections).
    expect(await getOnNewConnection(url, '/health/ready')).toBe(503);
    // Then the listener closes while the request is still in flight.
    await waitFor(() => !app.getHttpServer().listening);
    expect(await getOnNewConnection(url, '/health/ready')).toBe('ECONNREFUSED');
    // The idle keep-alive connection is closed without waiting for the request in flight.
    expect(parseResponses(await idle.closed).map((response) => response.status)).toEqual([200]);
    gate.release();

    expect(await stopped).toBe(true);
    const [answered, ...more] = parseResponses(await inFlight.closed);
    expect(answered.status).toBe(200);
    expect(answered.headers.connection).toBe('close');
    expect(more).toEqual([]);
  });

  it('lets a consumer finish the event in hand and commit it before the store closes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-shutdown-'));
    const env = { STORE_URL: `pglite://${dir}` };
    const prefix = `drain${randomUUID().slice(0, 8)}-`;
    const gate = new Gate();
    const handled: string[] = [];
    try {
      const first = await startTestApp([consumerFeature(prefix, handled, gate)], env);
      await first.infrastructure.store.appendToStream(`${prefix}1`, [{ id: randomUUID(), type: 'Held', data: {} }]);
      await gate.reached; // the consumer has the event in hand
      const stopped = shutDown(first.app, first.infrastructure, first.config.shutdown, first.log);
      gate.release();
      expect(await stopped).toBe(true);
      expect(handled).toEqual(['Held']);

      // After a restart the group resumes after that event: it was committed, not redelivered.
      const restarted = await startTestApp([consumerFeature(prefix, handled, new Gate())], env);
      await restarted.infrastructure.store.appendToStream(`${prefix}2`, [{ id: randomUUID(), type: 'Next', data: {} }]);
      await waitFor(() => handled.length === 2);
      expect(handled).toEqual(['Held', 'Next']);
      expect(await shutDown(restarted.app, restarted.infrastructure, restarted.config.shutdown, restarted.log)).toBe(
        true,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops taking commands before any module closes, so no command reaches a half-closed one', async () => {
    const order: string[] = [];
    const { app, infrastructure, config, log } = await startTestApp([shutdownRecorder(order)]);
    const stopServing = infrastructure.commands.stopServing.bind(infrastructure.commands);
    infrastructure.commands.stopServing = async () => {
      await stopServing();
      order.push('commands stopped');
    };
    expect(await shutDown(app, infrastructure, config.shutdown, log)).toBe(true);
    expect(order).toEqual(['commands stopped', 'module closed']);
  });

  it('is not held by a connection that never sends a request', async () => {
    const { app, infrastructure, config, log, port } = await startTestApp([], { SHUTDOWN_TIMEOUT_MS: '5000' });
    // A client that connected and sent nothing (a pool connecting ahead, a request given up while connecting).
    const silent = await rawConnection(port);

    expect(await shutDown(app, infrastructure, config.shutdown, log)).toBe(true);
    expect(await silent.closed).toBe('');
    expect(log.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('abandons what is still running after SHUTDOWN_TIMEOUT_MS and logs what it was', async () => {
    const gate = new Gate();
    const { app, infrastructure, config, log, port } = await startTestApp([heldRoute(gate)], {
      SHUTDOWN_TIMEOUT_MS: '500',
    });
    const held = await rawConnection(port);
    held.socket.write('GET /test/held HTTP/1.1\r\nhost: test\r\n\r\n');
    await gate.reached;

    expect(await shutDown(app, infrastructure, config.shutdown, log)).toBe(false);
    expect(log.entries.filter((entry) => entry.level === 'error')).toEqual([
      expect.objectContaining({
        message: 'shutdown abandoned',
        abandoned: 'the HTTP server: 1 requests in flight',
        shutdown_timeout_ms: 500,
      }),
    ]);
    gate.release();
    held.socket.destroy();
    await infrastructure.close().catch(() => undefined); // the abandoned shutdown may be closing it too
  });

  it('names the consumer group whose handler never finished', async () => {
    const prefix = `stuck${randomUUID().slice(0, 8)}-`;
    const gate = new Gate();
    const { app, infrastructure, config, log } = await startTestApp([consumerFeature(prefix, [], gate)], {
      SHUTDOWN_TIMEOUT_MS: '500',
    });
    await infrastructure.store.appendToStream(`${prefix}1`, [{ id: randomUUID(), type: 'Stuck', data: {} }]);
    await gate.reached;

    expect(await shutDown(app, infrastructure, config.shutdown, log)).toBe(false);
    expect(log.entries.find((entry) => entry.message === 'shutdown abandoned')).toMatchObject({
      abandoned: `consumers, timers and workers finishing their current work (consumer groups still open: ${prefix}group)`,
    });
    gate.release();
    await infrastructure.close().catch(() => undefined); // the abandoned shutdown may be closing it too
  });

  it('names the connection it was closing when that is what never finished', async () => {
    const { app, infrastructure, config, log } = await startTestApp([], { SHUTDOWN_TIMEOUT_MS: '500' });
    // A broker that has gone away: closing it never finishes.
    const hanging: Infrastructure = {
      ...infrastructure,
      close: (closing) =>
        infrastructure.close((what) => closing?.(what)).then(() => new Promise<void>(() => undefined)),
    };
    expect(await shutDown(app, hanging, config.shutdown, log)).toBe(false);
    expect(log.entries.find((entry) => entry.message === 'shutdown abandoned')).toMatchObject({
      abandoned: 'the SQL store connection (STORE_URL pglite://memory)',
    });
  });
});

/** A consumer group over `prefix` streams that records each event's type; it waits at `gate` on the first one. */
function consumerFeature(prefix: string, handled: string[], gate: Gate): Type {
  @Module({})
  class ConsumerFeature implements OnApplicationBootstrap, OnApplicationShutdown {
    private consumer?: RunningConsumer;
    constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

    async onApplicationBootstrap() {
      this.consumer = await this.infrastructure.events.consume(
        { group: `${prefix}group`, streamPrefixes: [prefix] },
        async (event: RecordedEvent) => {
          if (handled.length === 0) await gate.pass();
          handled.push(event.type);
        },
      );
    }

    async onApplicationShutdown() {
      await this.consumer?.stop();
    }
  }
  return ConsumerFeature;
}

/** A feature that records when Nest shuts it down. */
function shutdownRecorder(order: string[]): Type {
  @Module({})
  class ShutdownRecorder implements OnApplicationShutdown {
    onApplicationShutdown() {
      order.push('module closed');
    }
  }
  return ShutdownRecorder;
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
