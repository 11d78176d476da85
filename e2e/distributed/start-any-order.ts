import { openSqlDatabase } from '@paygate/sql';
import {
  CallbackReceiver,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  SandboxAdmin,
  TEST_ADMIN_TOKEN,
  TEST_MASTER_KEY,
  TEST_TIMERS,
  serviceUrl,
  uniqueSchema,
} from '@paygate/testing';
import { join } from 'node:path';
import { KafkaBroker } from '@paygate/tools-local';
import { ensureBuilt } from './processes';
import { startReadmeLayout, type ReadmeLayout } from './readme-distributed';

/**
 * Issue 17, start in any order: README's distributed block, run as a user runs it, started
 * before its broker exists and started together with a freshly started broker. Either way
 * every app is live at once, unready while it waits (saying for what, in one log line), and
 * serves a collection and a collect-for-payment once the broker answers.
 */
export function startAnyOrderSuite(): void {
  describe("start in any order: README's distributed block", () => {
    const postgres = serviceUrl('postgres') ?? '';
    let broker: KafkaBroker;
    let layout: ReadmeLayout | undefined;
    const schemas: string[] = [];

    const envFor = (schema: string) => ({
      ...TEST_TIMERS,
      // Loopback receivers, and callbacks retried on the default schedule: on a loaded machine a
      // first attempt may time out, and the short test schedule would abandon it.
      ALLOW_PRIVATE_CALLBACKS: 'true',
      DISPATCH_TICK_MS: '50',
      STORE_URL: `${postgres}${postgres.includes('?') ? '&' : '?'}schema=${schema}`,
      BROKER_URL: broker.url,
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
    });

    beforeAll(async () => {
      if (!postgres) throw new Error('starting the distributed layout needs STORE_URL=postgres://… as well as Kafka');
      ensureBuilt();
      broker = await KafkaBroker.reserve(join(__dirname, '..', '..'), 'start-order');
    }, 180_000);

    afterEach(async () => {
      await layout?.stop();
      layout = undefined;
    });

    afterAll(async () => {
      await broker?.stop();
      if (!postgres) return;
      const db = await openSqlDatabase(postgres);
      for (const schema of schemas) await db.query(`drop schema if exists ${schema} cascade`);
      await db.close();
    });

    /** A failure carries what the apps logged: the only record of a start that went wrong. */
    async function withAppLogs(work: () => Promise<void>): Promise<void> {
      try {
        await work();
      } catch (error) {
        if (error instanceof Error && layout)
          error.message += `\n--- what the README layout logged (last 20,000 characters) ---\n${layout.output().slice(-20_000)}`;
        throw error;
      }
    }

    const status = (url: string, path: string) =>
      fetch(`${url}${path}`).then(
        (response) => response.status,
        () => 0,
      );

    async function allReady(apps: Record<string, string>, timeoutMs: number): Promise<void> {
      for (const url of Object.values(apps))
        await eventually(async () => ((await status(url, '/health/ready')) === 200 ? true : undefined), timeoutMs, `${url} to turn ready`);
    }

    it('started before the broker exists: live, unready naming the broker with one log line each; ready once it starts; a collection and a collect-for-payment go through', async () => {
      const schema = uniqueSchema('e2e_start_before_broker');
      schemas.push(schema);
      layout = startReadmeLayout(envFor(schema));
      const { apps } = layout;
      expect(Object.keys(apps).sort()).toEqual(['api-gateway', 'collections', 'sandbox', 'service-payments', 'webhook-dispatcher']);

      for (const url of Object.values(apps))
        await eventually(async () => ((await status(url, '/health/live')) === 200 ? true : undefined), 30_000, `${url} to be live`);
      for (const [app, url] of Object.entries(apps)) {
        const ready = await eventually(
          async () => {
            const response = await fetch(`${url}/health/ready`);
            const body = (await response.json()) as { data?: { waiting_for?: string[] } };
            return body.data?.waiting_for?.includes(`BROKER_URL ${broker.url}`) ? { status: response.status, body } : undefined;
          },
          30_000,
          `${app} to name the broker it waits for`,
        );
        expect(ready.status).toBe(503);
      }
      // Several retries later (backoff from 250 ms to 5 s): still one line per app, not one per retry.
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      for (const app of Object.keys(apps)) {
        const lines = layout
          .output()
          .split('\n')
          .filter((line) => line.includes(`"component":"${app}"`) && line.includes('"message":"waiting for BROKER_URL'));
        expect({ app, lines: lines.length }).toEqual({ app, lines: 1 });
      }

      await broker.start();
      await withAppLogs(async () => {
        await allReady(apps, 90_000);
        await collectionGoesThrough(apps['api-gateway']);
        await collectForPaymentGoesThrough(apps['api-gateway'], apps.sandbox);
      });
    }, 300_000);

    it('started together with a freshly started broker: every app turns ready and a collection goes through', async () => {
      await broker.stop();
      const schema = uniqueSchema('e2e_start_together');
      schemas.push(schema);
      const started = broker.start();
      layout = startReadmeLayout(envFor(schema));
      await started;
      const { apps } = layout;
      await withAppLogs(async () => {
        await allReady(apps, 120_000);
        await collectionGoesThrough(apps['api-gateway']);
      });
    }, 300_000);
  });
}

async function collectionGoesThrough(gateway: string): Promise<void> {
  const receiver = await CallbackReceiver.start();
  try {
    const client = await PaygateClient.withNewMerchant(gateway, TEST_ADMIN_TOKEN, 'Start-order merchant', receiver.url());
    const initialized = await client.initialize(mobileMoneyRequest());
    expect(initialized.status).toBe(202);
    const ref = String(initialized.body.data.internal_reference);
    expect((await client.confirm(ref)).status).toBe(202);
    expect(await client.finalState(ref, 60_000)).toMatchObject({ transaction_status: 'COMPLETED' });
    const [completed] = (await receiver.waitFor(ref, 'transaction.completed', 60_000)).filter((callback) => callback.event === 'transaction.completed');
    expect(CallbackReceiver.verify(completed, client.merchant.signingKey)).toBe(true);
  } finally {
    await receiver.close();
  }
}

async function collectForPaymentGoesThrough(gateway: string, sandbox: string): Promise<void> {
  const receiver = await CallbackReceiver.start();
  try {
    const client = await PaygateClient.withNewMerchant(gateway, TEST_ADMIN_TOKEN, 'Start-order PRN merchant', receiver.url());
    const admin = new SandboxAdmin(sandbox);
    const prn = await admin.createPrn(25_000);
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
      body: mobileMoneyRequest({ amount: 25_000, prn, charge_customer: true, require_confirmation: false }),
    });
    expect(accepted.status).toBe(202);
    const ref = String(accepted.body.data.internal_reference);
    const callbacks = await receiver.waitFor(ref, 'payment.completed', 90_000);
    expect(callbacks.map((callback) => callback.event).slice(-2)).toEqual(['transaction.completed', 'payment.completed']);
    await admin.expectPaidOnce(prn);
  } finally {
    await receiver.close();
  }
}
