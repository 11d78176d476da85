import {
  describeWithService,
  dropSchemas,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  TEST_TIMERS,
  uniqueSchema,
} from '@paygate/testing';
import {
  collectionsOnSandbox,
  distributedEnv,
  distributedPostgres,
  ensureBuilt,
  localCommandRoutes,
  startApp,
  type AppProcess,
} from './processes';

/**
 * Issue 17, a command nobody answers: with the collections service stopped, the gateway answers
 * initialize 503 in the envelope with Retry-After once COMMAND_TIMEOUT_MS has passed; the command
 * is not carried out when the service comes back (its sender gave up), and the merchant's retry
 * of the same request gets one collection, whose acknowledgement every further retry replays.
 * Declared by distributed.spec.ts, which always has tests of its own.
 */
export function commandTimeoutSuite(): void {
  describeWithService('kafka', 'a stopped collections service (built apps, Kafka, PostgreSQL)', (brokerUrl) => {
    const schema = uniqueSchema('e2e_command_timeout');
    const apps: AppProcess[] = [];
    let env: Record<string, string>;
    let collectionsEnv: Record<string, string>;
    let gateway: AppProcess;
    let postgres: string;

    beforeAll(async () => {
      postgres = distributedPostgres();
      ensureBuilt();
      const routes = await localCommandRoutes();
      env = distributedEnv({ postgres, schema, brokerUrl, routes }, { ...TEST_TIMERS, LOG_LEVEL: 'error' });
      const sandbox = await startApp('sandbox', env);
      gateway = await startApp('api-gateway', { ...env, COMMAND_TIMEOUT_MS: '2000' });
      collectionsEnv = { ...env, ...collectionsOnSandbox(sandbox.url, gateway.url), ...routes.listen('collections') };
      apps.push(sandbox, gateway, await startApp('collections', collectionsEnv));
    }, 180_000);

    afterAll(async () => {
      await Promise.all(apps.map((app) => app.stop()));
      if (postgres) await dropSchemas(postgres, [schema]);
    });

    it('answers 503 with Retry-After after COMMAND_TIMEOUT_MS; the same initialize retried once the service is back gives one collection, its acknowledgement replayed', async () => {
      const client = await PaygateClient.withNewMerchant(gateway.url);
      expect(await client.initialize(mobileMoneyRequest())).toMatchObject({ status: 202 });

      const collections = apps.pop() as AppProcess;
      await collections.stop('SIGTERM');
      const request = mobileMoneyRequest();
      const response = await fetch(`${gateway.url}/v1/collections/initialize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'public-key': client.merchant.publicKey },
        body: JSON.stringify(request),
      });
      expect({
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: await response.json(),
      }).toEqual({
        status: 503,
        retryAfter: '2',
        body: {
          code: 503,
          status: 'error',
          message:
            'temporarily unavailable: no reply from collections to collections.initialize within 2000 ms; try again shortly',
          data: {},
        },
      });

      apps.push(await startApp('collections', collectionsEnv));
      const first = await eventually(
        async () => {
          const retried = await client.initialize(request);
          return retried.status === 202 ? retried : undefined;
        },
        30_000,
        'the retried initialize to be acknowledged',
      );
      const again = await client.initialize(request);
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      const record = await client.collection(String(first.body.data.internal_reference));
      expect(record.body.data).toMatchObject({ merchant_reference: request.merchant_reference });
    }, 120_000);
  });
}
