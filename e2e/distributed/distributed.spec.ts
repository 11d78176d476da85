import {
  CallbackReceiver,
  collectForPaymentFaultSuite,
  collectForPaymentSuite,
  refundSuite,
  payoutSuite,
  collectionOutcomeSuite,
  describeWithService,
  dropSchemas,
  eventually,
  expectReady,
  mobileMoneyRequest,
  PaygateClient,
  SandboxAdmin,
  TEST_CALLBACK_SETTINGS,
  TEST_MASTER_KEY,
  TEST_TIMERS,
  uniqueSchema,
} from '@paygate/testing';
import { postgresUrlInSchema } from '@paygate/sql';
import { dispatcherCrashSuites } from './dispatcher-crash';
import { migrationsOnStartSuite } from './migrations-on-start';
import { rollingRestartSuite } from './rolling-restart';
import { brokerGoneShutdownSuite } from './shutdown-broker-gone';
import {
  collectionsOnSandbox,
  moneyOutOnSandbox,
  distributedEnv,
  distributedPostgres,
  ensureBuilt,
  freePort,
  localCommandRoutes,
  runFailingApp,
  startApp,
  type AppProcess,
  type LocalCommandRoutes,
} from './processes';
import { startAnyOrderSuite } from './start-any-order';
import { commandTimeoutSuite } from './command-timeout';
import { forgedCommandsSuite } from './forged-commands';
import { forgedEventsSuite } from './forged-events';

describeWithService('kafka', 'distributed mode (separate processes, Kafka, PostgreSQL)', (brokerUrl) => {
  const schema = uniqueSchema('e2e_distributed');
  const apps: AppProcess[] = [];
  let servicePayments: AppProcess;
  let env: Record<string, string>;
  let routes: LocalCommandRoutes;
  let postgres: string;

  beforeAll(async () => {
    postgres = distributedPostgres();
    ensureBuilt();
    // Two dispatchers: the gateway deals webhooks commands over both.
    routes = await localCommandRoutes({ 'webhook-dispatcher': 2 });
    env = distributedEnv(
      { postgres, schema, brokerUrl, routes },
      {
        ...TEST_TIMERS,
        ...TEST_CALLBACK_SETTINGS,
      },
    );
    const sandbox = await startApp('sandbox', env);
    // Two gateways prove request-reply works with several sending instances.
    const gateways = [await startApp('api-gateway', env), await startApp('api-gateway', env)];
    const collections = await startApp('collections', {
      ...env,
      ...collectionsOnSandbox(sandbox.url, gateways[0].url),
      ...routes.listen('collections'),
    });
    servicePayments = await startApp('service-payments', {
      ...env,
      BILLER_API_URL: `${sandbox.url}/sandbox/biller`,
      ...moneyOutOnSandbox(sandbox.url),
      ...routes.listen('service-payments'),
    });
    // Two dispatchers share the callbacks through the Kafka consumer group and the delivery queue.
    apps.push(
      collections,
      await startApp('webhook-dispatcher', { ...env, ...routes.listen('webhook-dispatcher', 0) }),
      ...gateways,
      sandbox,
      await startApp('webhook-dispatcher', { ...env, ...routes.listen('webhook-dispatcher', 1) }),
      servicePayments,
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    if (postgres) await dropSchemas(postgres, [schema]);
  });

  it('every app answers live and ready', async () => {
    for (const app of apps) await expectReady(app.url);
  });

  it('serves one collection through either gateway: initialized on one, confirmed and read on the other', async () => {
    const [, , gatewayA, gatewayB] = apps;
    const onA = await PaygateClient.withNewMerchant(gatewayA.url);
    const onB = new PaygateClient(gatewayB.url, onA.merchant);
    const initialized = await onB.initialize(mobileMoneyRequest());
    expect(initialized.status).toBe(202);
    const ref = String(initialized.body.data.internal_reference);
    expect((await onA.confirm(ref)).status).toBe(202);
    expect(await onB.finalState(ref)).toMatchObject({ internal_reference: ref, transaction_status: 'COMPLETED' });
  });

  it('every app serves GET /metrics; over Kafka the relays report their lag and the commands are counted where handled', async () => {
    const scrapes = await Promise.all(apps.map(async (app) => (await fetch(`${app.url}/metrics`)).text()));
    for (const text of scrapes) expect(text).toMatch(/^paygate_http_request_duration_seconds_count\{/m);
    const [collections] = scrapes;
    expect(collections).toMatch(/^paygate_consumer_lag_seconds\{consumer="relay:collection-"\} \d/m);
    // Its consumer groups' lag per topic and partition, from the broker's offsets.
    expect(collections).toMatch(
      /^paygate_kafka_consumer_group_lag_messages\{group="paygate.collections-prn-verdicts",topic="paygate.integration.payments",partition="0"\} \d/m,
    );
    expect(collections).toMatch(
      /^paygate_command_duration_seconds_count\{command="collections.initialize",outcome="ok"\} [1-9]/m,
    );
  });

  forgedCommandsSuite(() => ({
    gateway: apps[2].url,
    servicePayments,
    paymentsCommandsUrl: routes.listen('service-payments').COMMANDS_LISTEN_URL,
  }));

  forgedEventsSuite(() => ({
    gateway: apps[2].url,
    servicePayments,
    storeUrl: postgresUrlInSchema(postgres, schema),
    brokerUrl,
  }));

  describe('collection outcomes through the sandbox app', () => {
    collectionOutcomeSuite({ gateway: () => apps[2].url });
  });

  describe('collect-for-payment across processes: collections and service-payments over Kafka', () => {
    collectForPaymentSuite({ gateway: () => apps[2].url, sandbox: () => apps[4].url });
  });

  describe('refunds across processes: the gateway, collections, and disbursements beside the wallet in service-payments', () => {
    refundSuite({ gateway: () => apps[2].url, sandbox: () => apps[4].url });
  });

  describe('payouts across processes: the gateway, and disbursements beside the wallet in service-payments', () => {
    payoutSuite({ gateway: () => apps[2].url, sandbox: () => apps[4].url });
  });

  describe('collect-for-payment faults across processes', () => {
    collectForPaymentFaultSuite({ gateway: () => apps[2].url, sandbox: () => apps[4].url });
  });

  it('service-payments killed between the biller taking the payment and recording it: the PRN is paid once, payment.completed sent once', async () => {
    const sandbox = apps[4];
    const admin = new SandboxAdmin(sandbox.url);
    const receiver = await CallbackReceiver.start();
    try {
      const client = await PaygateClient.withNewMerchant(apps[2].url, undefined, 'PRN crash merchant', receiver.url());
      const prn = await admin.createPrn(25_000);
      // A slow biller: it records the payment at once and answers 4 s later.
      await admin.billerFaults({ delay_ms: 4_000 });
      const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
        body: mobileMoneyRequest({ amount: 25_000, prn, charge_customer: true, require_confirmation: false }),
      });
      const ref = String(accepted.body.data.internal_reference);
      await eventually(
        async () => ((await admin.prn(prn)).payments.length === 1 ? true : undefined),
        60_000,
        'the biller to take the payment',
      );
      // The biller holds the payment and has not answered: nothing can have recorded it yet.
      expect(receiver.about(ref).map((callback) => callback.event)).not.toContain('payment.completed');
      await servicePayments.stop('SIGKILL');
      await admin.billerFaults({});
      const restarted = await startApp('service-payments', {
        ...env,
        BILLER_API_URL: `${sandbox.url}/sandbox/biller`,
        ...routes.listen('service-payments'),
      });
      apps[apps.indexOf(servicePayments)] = servicePayments = restarted;

      await receiver.waitFor(ref, 'payment.completed', 60_000);
      const atBiller = await admin.prn(prn);
      expect(atBiller).toMatchObject({ status: 'PAID' });
      expect(atBiller.payments).toHaveLength(1);
      // The payment was recorded once: resending gives the two callbacks again, under their first webhook-ids.
      const resent = await client.request('POST', '/v1/callbacks/resend', {
        body: { internal_reference: ref },
        secret: true,
      });
      expect(resent.body.data).toMatchObject({ deliveries: 2 });
      const callbacks = await eventually(
        () => (receiver.about(ref).length >= 4 ? receiver.about(ref) : undefined),
        30_000,
        'the resent callbacks',
      );
      const paid = callbacks.filter((callback) => callback.event === 'payment.completed');
      expect(paid).toHaveLength(2);
      expect(paid[0].headers['webhook-id']).toBe(paid[1].headers['webhook-id']);
    } finally {
      await admin.billerFaults({});
      await receiver.close();
    }
  }, 120_000);

  it('stops cleanly on SIGTERM', async () => {
    const extra = await startApp('api-gateway', env);
    expect(await extra.stop('SIGTERM')).toBe(0);
  });
});

describe('start-up: a bad configuration exits, a dependency that does not answer is waited for', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('exits non-zero with one line naming a bad configuration variable', () => {
    const { status, output } = runFailingApp('api-gateway', { STORE_URL: 'mysql://nope', BROKER_URL: 'inproc://' });
    expect(status).toBe(1);
    expect(output.trim()).toBe(
      'api-gateway: invalid configuration: STORE_URL must be pglite://<dir> or postgres://…, got "mysql://nope"',
    );
  });

  it.each(['api-gateway', 'service-payments'])(
    '%s in distributed mode without its command certificate does not start: one line naming COMMANDS_TLS_DIR',
    (app) => {
      const { status, output } = runFailingApp(app, {
        STORE_URL: 'pglite://memory',
        BROKER_URL: 'kafka://127.0.0.1:9',
        COMMANDS_TLS_DIR: '',
        MASTER_KEY: TEST_MASTER_KEY,
      });
      expect(status).toBe(1);
      expect(output.trim().split('\n').pop()).toMatch(
        new RegExp(
          `^${app}: invalid configuration: COMMANDS_TLS_DIR is not set: with Kafka \\(kafka:// or kafkas://\\) the apps are separate processes and authenticate each other's commands with mutual TLS`,
        ),
      );
    },
  );

  // Nothing listens on the reserved port: the store and the broker are simply not up yet.
  it.each([
    [
      'collections',
      'STORE_URL',
      async (port: number) => ({ STORE_URL: `postgres://root@127.0.0.1:${port}/none`, BROKER_URL: 'inproc://' }),
      (port: number) => `STORE_URL postgres://***@127.0.0.1:${port}/none`,
    ],
    [
      'webhook-dispatcher',
      'BROKER_URL',
      async (port: number) => ({
        STORE_URL: 'pglite://memory',
        BROKER_URL: `kafka://127.0.0.1:${port}`,
        MASTER_KEY: TEST_MASTER_KEY,
        ...(await localCommandRoutes()).senders,
      }),
      (port: number) => `BROKER_URL kafka://127.0.0.1:${port}`,
    ],
  ])(
    '%s with its %s not answering stays up: live, unready naming it, one log line however long it waits, exit 0 on SIGTERM',
    async (app, _variable, envFor, nameFor) => {
      const port = await freePort();
      const waiting = await startApp(app, { ...(await envFor(port)), LOG_LEVEL: 'warn' }, undefined, { until: 'live' });
      try {
        const ready = await eventually(
          async () => {
            const response = await fetch(`${waiting.url}/health/ready`);
            const body = (await response.json()) as { message: string; data?: { waiting_for?: string[] } };
            return body.data?.waiting_for?.length ? { status: response.status, body } : undefined;
          },
          30_000,
          'the app to say what it waits for',
        );
        expect(ready.status).toBe(503);
        // Scraped meanwhile, it says it is not ready, so the alert on paygate_ready fires for it.
        expect(await (await fetch(`${waiting.url}/metrics`)).text()).toMatch(/^paygate_ready 0$/m);
        expect(ready.body).toMatchObject({
          code: 503,
          status: 'error',
          message: `waiting for ${nameFor(port)}`,
          data: { waiting_for: [nameFor(port)] },
        });
        const other = await fetch(`${waiting.url}/v1/payment-providers`);
        expect({
          status: other.status,
          retryAfter: other.headers.get('retry-after'),
          requestId: other.headers.get('x-request-id'),
        }).toEqual({
          status: 503,
          retryAfter: '2',
          requestId: expect.any(String),
        });
        // Retries back off to 5 s: after 8 s there have been several, and still one line.
        await new Promise((resolve) => setTimeout(resolve, 8_000));
        expect(waiting.child.exitCode).toBeNull();
        expect(
          waiting
            .output()
            .split('\n')
            .filter((line) => line.includes(`"message":"waiting for ${nameFor(port)}"`)),
        ).toHaveLength(1);
      } finally {
        expect(await waiting.stop('SIGTERM')).toBe(0);
      }
    },
    60_000,
  );
});

dispatcherCrashSuites();
rollingRestartSuite();
brokerGoneShutdownSuite();
migrationsOnStartSuite();
commandTimeoutSuite();
// Needs what the Kafka suites need (Java and scripts/kafka.sh), though it starts a broker of its own.
describeWithService('kafka', 'start in any order (built apps, a broker of their own, PostgreSQL)', () =>
  startAnyOrderSuite(),
);
