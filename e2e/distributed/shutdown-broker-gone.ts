import {
  describeWithService,
  mobileMoneyRequest,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  TEST_MASTER_KEY,
} from '@paygate/testing';
import { startKafkaProxy, type KafkaProxy } from './kafka-proxy';
import { ensureBuilt, localCommandRoutes, startApp, type AppProcess, type LocalCommandRoutes } from './processes';

/*
 * Issue 12, bounded shutdown: every app exits within SHUTDOWN_TIMEOUT_MS after SIGTERM even when
 * its broker has gone, and a shutdown that gives something up exits 1 with a log line saying
 * what. The broker disappears behind a proxy the test put in front of it (the shared broker is
 * never touched): cut (stopped: connections refused), or partitioned (connections stay open and
 * nothing gets through, so whatever waits for the broker waits until the bound ends it).
 */
const SHUTDOWN_TIMEOUT_MS = 3_000;

/**
 * Bounded shutdown with the broker gone (Kafka); declared by distributed.spec.ts, which always has tests of its own.
 */
export function brokerGoneShutdownSuite(): void {
  describeWithService('kafka', 'bounded shutdown with the broker gone', (brokerUrl) => {
    const env = (proxy: KafkaProxy, routes: LocalCommandRoutes, app: string) => ({
      ...routes.senders,
      ...(app === 'collections' || app === 'service-payments' || app === 'webhook-dispatcher'
        ? routes.listen(app)
        : {}),
      STORE_URL: 'pglite://memory',
      BROKER_URL: proxy.url,
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    const proxies: KafkaProxy[] = [];
    const started: AppProcess[] = [];

    const startBehindProxy = async (names: string[]) => {
      const proxy = await startKafkaProxy(brokerUrl);
      proxies.push(proxy);
      const apps: AppProcess[] = [];
      const routes = await localCommandRoutes();
      for (const name of names) apps.push(await startApp(name, env(proxy, routes, name)));
      started.push(...apps);
      expect(proxy.rewrites()).toBeGreaterThan(0); // the apps reach the broker only through the proxy
      return { proxy, apps };
    };

    beforeAll(() => ensureBuilt(), 180_000);

    afterAll(async () => {
      for (const app of started) app.child.kill('SIGKILL');
      await Promise.all(proxies.map((proxy) => proxy.cut()));
    });

    it('every app exits after SIGTERM once its broker has stopped; one that gives up says what', async () => {
      const names = ['api-gateway', 'collections', 'service-payments', 'webhook-dispatcher', 'sandbox'];
      const { proxy, apps } = await startBehindProxy(names);
      await proxy.cut(); // SIGTERM while the Kafka clients are retrying their lost connections
      const outcomes = await Promise.all(apps.map(exitAfterSigterm));
      report('broker stopped', names, outcomes);
      for (const outcome of outcomes) {
        expect([0, 1]).toContain(outcome.code);
        if (outcome.code === 1) expect(outcome.abandoned).toMatch(/^the broker connection|consumer groups still open/);
      }
    }, 240_000);

    it('a consumer whose broker is unreachable gives up at SHUTDOWN_TIMEOUT_MS, exits 1 and says what it abandoned; a gateway, which holds no consumer, exits 0', async () => {
      const names = ['collections', 'api-gateway'];
      const { proxy, apps } = await startBehindProxy(names);
      const [collections, gateway] = apps;
      // A command through the gateway: it goes to collections over TCP, not through the broker.
      const client = await PaygateClient.withNewMerchant(gateway.url);
      expect((await client.initialize(mobileMoneyRequest())).status).toBe(202);
      proxy.partition();
      const outcomes = await Promise.all([collections, gateway].map(exitAfterSigterm));
      report('broker unreachable', names, outcomes);
      const [collectionsOutcome, gatewayOutcome] = outcomes;
      expect(collectionsOutcome.code).toBe(1);
      expect(collectionsOutcome.abandoned).toMatch(
        /^consumers, timers and workers finishing their current work \(consumer groups still open: .*collections-/,
      );
      expect(gatewayOutcome).toMatchObject({ code: 0 });
    }, 240_000);
  });
}

interface Outcome {
  code: number | null | 'still running';
  abandoned?: string;
}

function report(scenario: string, names: string[], outcomes: Outcome[]): void {
  const lines = outcomes.map(
    (outcome, i) => `${names[i]} exit ${outcome.code}${outcome.abandoned ? ` (abandoned ${outcome.abandoned})` : ''}`,
  );
  process.stderr.write(`shutdown, ${scenario}, SHUTDOWN_TIMEOUT_MS=${SHUTDOWN_TIMEOUT_MS}: ${lines.join('; ')}\n`);
}

/**
 * SIGTERM, then the exit code and what the abandonment line names; a process still running well past the limit is
 * killed and reported so.
 */
async function exitAfterSigterm(app: AppProcess): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const stillRunning = new Promise<'still running'>(
    (resolve) => (timer = setTimeout(() => resolve('still running'), SHUTDOWN_TIMEOUT_MS + 15_000)),
  );
  const code = await Promise.race([app.stop('SIGTERM'), stillRunning]);
  clearTimeout(timer);
  if (code === 'still running') app.child.kill('SIGKILL');
  const abandonment = app
    .output()
    .split('\n')
    .map((text) => {
      try {
        return JSON.parse(text) as { message?: string; abandoned?: string };
      } catch {
        return {};
      }
    })
    .find((entry) => entry.message === 'shutdown abandoned');
  return { code, abandoned: abandonment?.abandoned };
}
