import { postgresUrlInSchema } from '@paygate/sql';
import {
  CallbackReceiver,
  dropSchemas,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  SandboxAdmin,
  TEST_ADMIN_TOKEN,
  TEST_MASTER_KEY,
  serviceUrl,
  uniqueSchema,
} from '@paygate/testing';
import { join } from 'node:path';
import { KafkaBroker } from '@paygate/tools-local';
import { merchantEnv, RunningCli } from '../cli/listen-test-setup';
import { ensureBuilt } from './processes';
import { startReadmeLayout, type ReadmeKeeps, type ReadmeLayout } from './readme-distributed';

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

    // Only what the block keeps when set: every other setting is the block's own or the default,
    // as for a user (the merchants' callbacks come through paygate listen, which needs no
    // callback URL, so no ALLOW_PRIVATE_CALLBACKS for loopback receivers).
    const envFor = (schema: string): ReadmeKeeps => ({
      STORE_URL: postgresUrlInSchema(postgres, schema),
      BROKER_URL: broker.url,
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
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
      await dropSchemas(postgres, schemas);
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
        await eventually(
          async () => ((await status(url, '/health/ready')) === 200 ? true : undefined),
          timeoutMs,
          `${url} to turn ready`,
        );
    }

    it('started before the broker exists: live, unready naming the broker with one log line each; ready once it starts; a collection and a collect-for-payment go through', async () => {
      const schema = uniqueSchema('e2e_start_before_broker');
      schemas.push(schema);
      layout = startReadmeLayout(envFor(schema));
      const { apps } = layout;
      expect(Object.keys(apps).sort()).toEqual([
        'api-gateway',
        'collections',
        'sandbox',
        'service-payments',
        'webhook-dispatcher',
      ]);

      for (const url of Object.values(apps))
        await eventually(
          async () => ((await status(url, '/health/live')) === 200 ? true : undefined),
          30_000,
          `${url} to be live`,
        );
      for (const [app, url] of Object.entries(apps)) {
        const ready = await eventually(
          async () => {
            const response = await fetch(`${url}/health/ready`);
            const body = (await response.json()) as { data?: { waiting_for?: string[] } };
            return body.data?.waiting_for?.includes(`BROKER_URL ${broker.url}`)
              ? { status: response.status, body }
              : undefined;
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
          .filter(
            (line) => line.includes(`"component":"${app}"`) && line.includes('"message":"waiting for BROKER_URL'),
          );
        expect({ app, lines: lines.length }).toEqual({ app, lines: 1 });
      }

      await broker.start();
      await withAppLogs(async () => {
        await allReady(apps, 90_000);
        await collectionGoesThrough(apps, () => layout?.output() ?? '');
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
        await collectionGoesThrough(apps, () => layout?.output() ?? '');
      });
    }, 300_000);
  });
}

/** The merchant's callbacks as a user on the machine gets them: paygate listen forwarding to a local receiver. */
async function listening(
  gateway: string,
  name: string,
): Promise<{ client: PaygateClient; laptop: CallbackReceiver; done(): Promise<void> }> {
  const client = await PaygateClient.withNewMerchant(gateway, TEST_ADMIN_TOKEN, name);
  const laptop = await CallbackReceiver.start();
  const listener = new RunningCli(
    ['listen', '--forward-to', laptop.url('/hooks')],
    merchantEnv(gateway, client.merchant),
  );
  try {
    await listener.waitForLine(/^Ready!/, 'paygate listen to connect', 60_000);
  } catch (error) {
    await listener.stop();
    await laptop.close();
    throw error;
  }
  return {
    client,
    laptop,
    done: async () => {
      await listener.stop();
      await laptop.close();
    },
  };
}

/** Provider callbacks the collections service answered 200, from its request metric. */
async function providerCallbacksAnswered(collections: string): Promise<number> {
  const text = await (await fetch(`${collections}/metrics`)).text();
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('paygate_http_request_duration_seconds_count{') &&
        line.includes('route="/provider-callbacks/:providerCode/:internalReference"') &&
        line.includes('status="200"'),
    )
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * A mobile money collection completes through the sandbox's provider callback (issue 26: without
 * PROVIDER_CALLBACK_URL the sandbox refused it and only the 60 s status poll, the fallback for
 * lost callbacks, completed it): the collections service answered the callback, and the
 * sandbox refused none.
 */
async function collectionGoesThrough(apps: Record<string, string>, output: () => string): Promise<void> {
  const { client, laptop, done } = await listening(apps['api-gateway'], 'Start-order merchant');
  try {
    const before = await providerCallbacksAnswered(apps.collections);
    const initialized = await client.initialize(mobileMoneyRequest());
    expect(initialized.status).toBe(202);
    const ref = String(initialized.body.data.internal_reference);
    expect((await client.confirm(ref)).status).toBe(202);
    await eventually(
      async () => ((await providerCallbacksAnswered(apps.collections)) > before ? true : undefined),
      60_000,
      'the provider callback to reach collections',
    );
    expect(await client.finalState(ref, 60_000)).toMatchObject({ transaction_status: 'COMPLETED' });
    expect(output()).not.toContain('provider callback refused');
    const [completed] = (await laptop.waitFor(ref, 'transaction.completed', 60_000)).filter(
      (callback) => callback.event === 'transaction.completed',
    );
    expect(CallbackReceiver.verify(completed, client.merchant.signingKey)).toBe(true);
  } finally {
    await done();
  }
}

async function collectForPaymentGoesThrough(gateway: string, sandbox: string): Promise<void> {
  const { client, laptop, done } = await listening(gateway, 'Start-order PRN merchant');
  try {
    const admin = new SandboxAdmin(sandbox);
    const prn = await admin.createPrn(25_000);
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
      body: mobileMoneyRequest({ amount: 25_000, prn, charge_customer: true, require_confirmation: false }),
    });
    expect(accepted.status).toBe(202);
    const ref = String(accepted.body.data.internal_reference);
    const callbacks = await laptop.waitFor(ref, 'payment.completed', 90_000);
    expect(callbacks.map((callback) => callback.event).slice(-2)).toEqual([
      'transaction.completed',
      'payment.completed',
    ]);
    await admin.expectPaidOnce(prn);
  } finally {
    await done();
  }
}
