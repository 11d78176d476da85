import { describeWithService, dropSchemas, mobileMoneyRequest, PaygateClient, uniqueSchema } from '@paygate/testing';
import {
  distributedEnv,
  distributedPostgres,
  ensureBuilt,
  freePort,
  localCommandRoutes,
  startApp,
  type AppProcess,
} from './processes';
import { startBalancedLoad } from './balanced-load';

/*
 * Issue 12, drain on SIGTERM: two gateways behind a load balancer that follows readiness and
 * retries refused connections; each gateway in turn gets SIGTERM and is started again on its
 * port while the load goes on. No request may be lost: every one is answered, none with a 5xx,
 * no connection reset.
 *
 * Why readiness and SHUTDOWN_DELAY_MS: connections a client opens while the listener closes are
 * queued in the kernel's accept backlog, and closing the listener resets them. A client that only
 * retries refused connections therefore loses a few requests per restart (7 of 937 in a run of
 * this test without the balancer); a balancer that stops sending once readiness answers 503
 * loses none, provided the delay outlasts its check interval.
 */
/**
 * Rolling restart of two gateways under load (Kafka and PostgreSQL); declared by distributed.spec.ts, which always has
 * tests of its own.
 */
export function rollingRestartSuite(): void {
  describeWithService('kafka', 'rolling restart of the gateways under load (distributed mode)', (brokerUrl) => {
    const schema = uniqueSchema('e2e_rolling');
    let env: Record<string, string>;
    let collections: AppProcess;
    const gateways: AppProcess[] = [];
    const ports: number[] = [];
    let postgres: string;

    beforeAll(async () => {
      postgres = distributedPostgres();
      ensureBuilt();
      const routes = await localCommandRoutes();
      env = distributedEnv({ postgres, schema, brokerUrl, routes }, { SHUTDOWN_DELAY_MS: '1000' });
      collections = await startApp('collections', { ...env, ...routes.listen('collections') });
      for (let i = 0; i < 2; i += 1) {
        ports.push(await freePort());
        gateways.push(await startApp('api-gateway', env, ports[i]));
      }
    }, 180_000);

    afterAll(async () => {
      await Promise.all([...gateways, collections].map((app) => app?.stop()));
      if (postgres) await dropSchemas(postgres, [schema]);
    });

    it('loses no request while each gateway in turn is stopped with SIGTERM and started again', async () => {
      const client = await PaygateClient.withNewMerchant(gateways[0].url);
      const acknowledged: string[] = [];
      const load = startBalancedLoad({
        targets: gateways.map((gateway) => gateway.url),
        concurrency: 24,
        checkEveryMs: 100,
        next: () => ({
          method: 'POST',
          path: '/v1/collections/initialize',
          headers: { 'content-type': 'application/json', 'public-key': client.merchant.publicKey },
          body: JSON.stringify(mobileMoneyRequest()),
        }),
        answered: (status, body) => {
          if (status === 202) acknowledged.push(String(JSON.parse(body).data.merchant_reference));
        },
      });

      const exitCodes: (number | null)[] = [];
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (let i = 0; i < gateways.length; i += 1) {
        exitCodes.push(await gateways[i].stop('SIGTERM'));
        gateways[i] = await startApp('api-gateway', env, ports[i]);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      const counts = await load.stop();
      process.stderr.write(
        `rolling restart of 2 gateways under load: requests sent ${counts.sent}, responses ${counts.responses} ${JSON.stringify(counts.byStatus)}, ` +
          `readiness 503s seen ${counts.unreadyAnswers}, refused and retried ${counts.refused}, resets ${counts.resets}${counts.failures.length ? ` (${[...new Set(counts.failures)].join(', ')})` : ''}, 5xx ${counts.serverErrors}\n`,
      );

      expect(exitCodes).toEqual([0, 0]);
      expect(counts.resets).toBe(0);
      expect(counts.serverErrors).toBe(0);
      expect(counts.responses).toBe(counts.sent);
      expect(counts.byStatus).toEqual({ 202: counts.sent });
      expect(counts.unreadyAnswers).toBeGreaterThan(0); // each gateway said it was going away before it stopped listening
      // Each acknowledgement stands: a sample of the acknowledged collections is found by reference.
      const reader = new PaygateClient(gateways[1].url, client.merchant);
      for (const reference of acknowledged.filter((_, i) => i % Math.ceil(acknowledged.length / 20) === 0)) {
        const found = await reader.request('GET', `/v1/collections?merchant_reference=${reference}`, { secret: true });
        expect(found.status).toBe(200);
      }
    }, 180_000);
  });
}
