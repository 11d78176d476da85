/**
 * `paygate projections rebuild --verify` after a mixed workload (mobile money and card
 * collections with every outcome, collect-for-payment with PRN payments, a refund and a payout,
 * wallet holds and callbacks) run by the whole of Paygate in one process: the read models rebuilt from events
 * equal the live ones, and a live row that drifted is reported. PostgreSQL when STORE_URL names
 * one (a schema of its own), a PGlite directory otherwise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { openSqlDatabase, postgresUrlInSchema } from '@paygate/sql';
import {
  collectForPaymentSuite,
  collectionOutcomeSuite,
  dropSchemas,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  serviceUrl,
  TEST_ADMIN_TOKEN,
  TEST_CALLBACK_SETTINGS,
  TEST_MASTER_KEY,
  TEST_TIMERS,
  topUpWallet,
  uniqueSchema,
} from '@paygate/testing';
import { main } from '@paygate/cli';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';

async function paygateCli(argv: string[], env: Record<string, string>) {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const text = (stream: PassThrough) => {
    let collected = '';
    stream.on('data', (chunk: Buffer) => (collected += chunk.toString('utf8')));
    return () => collected;
  };
  const [out, err] = [text(stdout), text(stderr)];
  const code = await main(argv, { env, stdout, stderr, signal: new AbortController().signal });
  return { code, stdout: out(), stderr: err() };
}

/** Each in-process consumer group has handled the last event of its streams: the live read models are complete. */
async function caughtUp(paygate: InProcessPaygate): Promise<void> {
  const groups: Record<string, string[]> = {
    'collections-projection': ['collection-'],
    'service-payments-projection': ['service-payment-', 'wallet-'],
    'disbursements-projection': ['refund-', 'payout-'],
  };
  await eventually(
    async () => {
      for (const [group, streamPrefixes] of Object.entries(groups)) {
        const events = await paygate.infrastructure.store.readAll({ streamPrefixes, maxCount: 1_000_000 });
        const [checkpoint] = await paygate.infrastructure.sql.query<{ position: string }>(
          'select position from messaging_checkpoints where name = $1',
          [`consumer:${group}`],
        );
        expect({ group, position: checkpoint?.position }).toEqual({
          group,
          position: events[events.length - 1].position,
        });
      }
      return true;
    },
    30_000,
    'the projections to handle the last events',
  );
}

describe('paygate projections rebuild --verify after a mixed workload', () => {
  const postgres = serviceUrl('postgres');
  const dir = mkdtempSync(join(tmpdir(), 'paygate-rebuild-'));
  const schema = uniqueSchema('cli_rebuild');
  const storeUrl = postgres ? postgresUrlInSchema(postgres, schema) : `pglite://${join(dir, 'store')}`;
  const env = { STORE_URL: storeUrl };
  let paygate: InProcessPaygate;

  beforeAll(async () => {
    paygate = await startInProcess({
      ...TEST_TIMERS,
      ...TEST_CALLBACK_SETTINGS,
      STORE_URL: storeUrl,
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: 'error',
    });
  });

  afterAll(async () => {
    await paygate?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    if (postgres) await dropSchemas(postgres, [schema, `${schema}_a`, `${schema}_b`]);
  });

  describe('the workload: collections of every outcome', () => {
    collectionOutcomeSuite({ gateway: () => paygate.url });
  });

  describe('the workload: collect-for-payment with PRN payments', () => {
    collectForPaymentSuite({ gateway: () => paygate.url, sandbox: () => paygate.url });
  });

  describe('the workload: a refund and a payout', () => {
    it('refunds part of a completed collection and pays out of the wallet, both COMPLETED', async () => {
      const client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Money-out merchant');
      await topUpWallet(paygate.url, client.merchant.id, 50_000);
      const accepted = await client.initialize(mobileMoneyRequest({ require_confirmation: false }));
      const internal = accepted.body.data.internal_reference as string;
      expect(await client.finalState(internal)).toMatchObject({ transaction_status: 'COMPLETED' });
      const refund = await client.request('POST', '/v1/refunds', {
        secret: true,
        body: { internal_reference: internal, refund_reference: 'rebuild-refund', amount: 10_000 },
      });
      expect(refund.status).toBe(202);
      const payout = await client.request('POST', '/v1/payouts', {
        secret: true,
        body: {
          payout_reference: 'rebuild-payout',
          currency: 'UGX',
          amount: 10_000,
          provider_code: 'mtn_momo_ug',
          msisdn: '256772000001',
        },
      });
      expect(payout.status).toBe(202);
      for (const path of ['/v1/refunds/rebuild-refund', '/v1/payouts/rebuild-payout'])
        await eventually(
          async () =>
            (await client.request<{ status: string }>('GET', path, { secret: true })).body.data.status ===
              'COMPLETED' || undefined,
          30_000,
          `${path} COMPLETED`,
        );
    });
  });

  describe('then, on the quiet store', () => {
    beforeAll(async () => {
      await caughtUp(paygate);
      await paygate.close(); // PGlite serves one process at a time
    }, 60_000);

    const into = (suffix: 'a' | 'b') => (postgres ? `${schema}_${suffix}` : join(dir, `rebuild-${suffix}`));

    it('rebuilds every read model into a fresh place and finds zero differences', async () => {
      const run = await paygateCli(['projections', 'rebuild', '--verify', '--into', into('a')], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        /^rebuilt collections, service payments, money out, callback deliveries from \d+ events \(through position \d+\/\d+\) into /,
      );
      const counts = Object.fromEntries(
        lines.slice(1).map((line) => {
          const [, table, live, rebuilt, differences] =
            /^(\w+): (\d+) live rows, (\d+) rebuilt, (\d+) differences$/.exec(line)!;
          return [table, { live: Number(live), rebuilt: Number(rebuilt), differences: Number(differences) }];
        }),
      );
      expect(Object.keys(counts)).toEqual([
        'collection_view',
        'wallet_balances',
        'wallet_entries',
        'service_payment_view',
        'money_out_view',
        'webhook_deliveries',
      ]);
      for (const table of Object.values(counts)) {
        expect(table.live).toBeGreaterThan(0);
        expect(table).toEqual({ live: table.live, rebuilt: table.live, differences: 0 });
      }
    });

    it('reports a live row that drifted from its events, and exits 1', async () => {
      const live = await openSqlDatabase(storeUrl);
      const [wallet] = await live.query<{ merchant_id: string; currency: string }>(
        'update wallet_balances set available = available - 1 where ctid = (select ctid from wallet_balances limit 1) returning merchant_id, currency',
      );
      await live.close();
      const run = await paygateCli(['projections', 'rebuild', '--verify', '--into', into('b')], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`wallet_balances: `);
      expect(run.stdout).toContain(`  wallet_balances ${wallet.merchant_id}/${wallet.currency}: differs (available)\n`);
      expect(run.stderr).toBe('paygate: 1 differences between the live and the rebuilt read models\n');
    });

    it('refuses to rebuild into a place that exists', async () => {
      const run = await paygateCli(['projections', 'rebuild', '--into', into('a')], env);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^paygate: .+ exists; --into needs a new (schema|directory)\n$/);
    });
  });
});
