/**
 * The cost budget of the distributed layout, as e2e/standalone/lifecycle-cost.spec.ts holds the embedded one: one mobile
 * money lifecycle, from initialize to its callback recorded, counted over every app (SQL statements by kind, inbound
 * HTTP requests, Kafka messages each way). Counts, not timings (docs/benchmarks.md has those). The fallback looks are
 * set beyond the test, so what is counted is what the payment itself causes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RATE_LIMIT_PRUNE_EVERY_MS } from '@paygate/platform';
import {
  CallbackReceiver,
  describeWithService,
  dropSchemas,
  mobileMoneyRequest,
  PaygateClient,
  serviceUrl,
  TEST_CALLBACK_SETTINGS,
  uniqueSchema,
} from '@paygate/testing';
import { countsOf, expectWithinBudget, grownBetween, NO_FALLBACK, settledCounts } from '../edge/cost-counts';
import {
  collectionsOnSandbox,
  distributedEnv,
  distributedPostgres,
  ensureBuilt,
  localCommandRoutes,
  moneyOutOnSandbox,
  startApp,
  type AppProcess,
} from './processes';

/**
 * Statements over every app for one lifecycle alone (docs/benchmarks.md, "Cost per lifecycle"): more than the embedded
 * layout's, as each consumer reads its batches back and rate-limit buckets live in PostgreSQL.
 */
const LIFECYCLE_BUDGET = 88;
/** Inbound HTTP requests of that lifecycle over every app, the sandbox provider's included (issue #37: at most 4). */
const HTTP_BUDGET = 4;

describeWithService('kafka', 'what a payment costs the distributed layout', (brokerUrl) => {
  const schema = uniqueSchema('e2e_cost');
  const apps: AppProcess[] = [];
  let postgres: string;
  let receiver: CallbackReceiver;
  let client: PaygateClient;
  const urls = () => apps.map((app) => app.url);

  const lifecycle = async () => {
    const init = await client.initialize(mobileMoneyRequest({ require_confirmation: false }));
    expect(init.status).toBe(202);
    await receiver.waitFor(String(init.body.data.internal_reference), 'transaction.completed', 60_000);
  };

  beforeAll(async () => {
    postgres = distributedPostgres();
    ensureBuilt();
    const routes = await localCommandRoutes();
    const env = distributedEnv({ postgres, schema, brokerUrl, routes }, { ...TEST_CALLBACK_SETTINGS, ...NO_FALLBACK });
    const sandbox = await startApp('sandbox', env);
    const gateway = await startApp('api-gateway', env);
    apps.push(
      sandbox,
      gateway,
      await startApp('collections', {
        ...env,
        ...collectionsOnSandbox(sandbox.url, gateway.url),
        ...routes.listen('collections'),
      }),
      await startApp('service-payments', {
        ...env,
        BILLER_API_URL: `${sandbox.url}/sandbox/biller`,
        ...moneyOutOnSandbox(sandbox.url),
        ...routes.listen('service-payments'),
      }),
      await startApp('webhook-dispatcher', { ...env, ...routes.listen('webhook-dispatcher') }),
    );
    receiver = await CallbackReceiver.start();
    client = await PaygateClient.withNewMerchant(gateway.url, undefined, 'Costed merchant', receiver.url());
    // Warm: the first payment reads the merchant and fills what a later one finds cached.
    await lifecycle();
  }, 180_000);

  afterAll(async () => {
    await receiver?.close();
    await Promise.all(apps.map((app) => app.stop()));
    if (postgres && serviceUrl('postgres')) await dropSchemas(postgres, [schema]);
  });

  it(`a mobile money lifecycle, initialize to its callback recorded, runs at most ${LIFECYCLE_BUDGET} statements and ${HTTP_BUDGET} HTTP requests over every app`, async () => {
    const before = await settledCounts(urls());
    await lifecycle();
    const cost = grownBetween(before, await settledCounts(urls()));
    expectWithinBudget(cost, { statements: LIFECYCLE_BUDGET, http: HTTP_BUDGET });
  });

  it('an idle layout runs no SQL statement in 5 s', async () => {
    // The gateway forgets full rate-limit buckets once after traffic: wait for that look, then for quiet.
    await sleep(RATE_LIMIT_PRUNE_EVERY_MS);
    const before = await settledCounts(urls());
    await sleep(5_000);
    expect(grownBetween(before, await countsOf(urls())).byKind).toEqual({});
  });
});
