import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@paygate/config';
import { createLogger } from '@paygate/logging';
import { postgresUrlInSchema } from '@paygate/sql';
import { createHttpApp, listen, openInfrastructure, type Infrastructure } from '@paygate/platform';
import {
  describeWithService,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  TEST_MASTER_KEY,
  TEST_RATE_LIMITS,
  uniqueSchema,
} from '@paygate/testing';
import { GatewayHttpModule } from '@paygate/gateway-http';

const BURST = 5;

/**
 * Two api-gateway instances on one PostgreSQL: a merchant's bucket is one row both take from, so
 * the limit holds for the pair, not for each. One token per 1000 s: nothing refills meanwhile.
 */
/**
 * Two gateways sharing PostgreSQL share one limit; declared by rate-limits.merchant.spec.ts, which always has tests of
 * its own.
 */
export function sharedPostgresRateLimitSuite(): void {
  describeWithService('postgres', 'rate limits per merchant across two gateways sharing PostgreSQL', (storeUrl) => {
    const schema = uniqueSchema('rate_limit_gateways');
    const gateways: { url: string; app: INestApplication; infrastructure: Infrastructure }[] = [];

    beforeAll(async () => {
      const config = loadConfig({
        ...TEST_RATE_LIMITS,
        STORE_URL: postgresUrlInSchema(storeUrl, schema),
        BROKER_URL: 'inproc://',
        RATE_LIMIT_MERCHANT_PER_SECOND: '0.001',
        RATE_LIMIT_MERCHANT_BURST: String(BURST),
        MASTER_KEY: TEST_MASTER_KEY,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        LOG_LEVEL: 'error',
      });
      for (const name of ['gateway-1', 'gateway-2']) {
        const log = createLogger(name, config.logging.level);
        const infrastructure = await openInfrastructure(config.platform, name, log);
        const app = await createHttpApp([GatewayHttpModule], { config, infrastructure, log });
        gateways.push({ url: await listen(app, 0, '127.0.0.1'), app, infrastructure });
      }
    });

    afterAll(async () => {
      for (const { app, infrastructure } of gateways) {
        await app.close();
        await infrastructure.close();
      }
    });

    it("lets one merchant's burst through the pair no more than one bucket allows, and every other merchant's requests", async () => {
      const [bursting, quiet] = await Promise.all([
        PaygateClient.withNewMerchant(gateways[0].url, TEST_ADMIN_TOKEN, 'Bursting'),
        PaygateClient.withNewMerchant(gateways[0].url, TEST_ADMIN_TOKEN, 'Quiet'),
      ]);
      const at = (merchant: PaygateClient, index: number) =>
        new PaygateClient(gateways[index % 2].url, merchant.merchant).request('GET', '/v1/payment-providers');
      const [burst, others] = await Promise.all([
        Promise.all(Array.from({ length: 20 }, (_, i) => at(bursting, i))),
        Promise.all(Array.from({ length: BURST }, (_, i) => at(quiet, i))),
      ]);
      const count = (answers: { status: number }[]) =>
        answers.reduce<Record<number, number>>(
          (counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }),
          {},
        );
      process.stdout.write(
        `rate limits across two gateways: bursting merchant ${JSON.stringify(count(burst))}, quiet merchant ${JSON.stringify(count(others))}\n`,
      );
      expect(count(burst)).toEqual({ 200: BURST, 429: 20 - BURST });
      expect(count(others)).toEqual({ 200: BURST });
      for (const refused of burst.filter((answer) => answer.status === 429))
        expect(refused.body).toEqual({
          code: 429,
          status: 'error',
          message: expect.any(String),
          data: { retry_after: expect.any(Number) },
        });
    });
  });
}
