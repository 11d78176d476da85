import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COLLECTION_INTEGRATION_EVENTS, collectionStream } from '@paygate/contracts';
import { COLLECTION_EVENT_TYPES } from '@paygate/collections-domain';
import {
  mobileMoneyRequest,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  TEST_MASTER_KEY,
  TEST_RATE_LIMITS,
  TEST_TIMERS,
} from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';

/** Timers live in the store: a time-out that falls due while Paygate is down fires once after it restarts. */
describe('durable timers across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-timers-'));
  const env = {
    ...TEST_TIMERS,
    ...TEST_RATE_LIMITS,
    STORE_URL: `pglite://${dataDir}`,
    MASTER_KEY: TEST_MASTER_KEY,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'error',
  };
  let paygate: InProcessPaygate | undefined;

  afterAll(async () => {
    await paygate?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('cancels an unconfirmed collection and an unanswered prompt exactly once after the restart', async () => {
    paygate = await startInProcess(env);
    const client = await PaygateClient.withNewMerchant(paygate.url);
    const unconfirmed = (await client.initialize(mobileMoneyRequest())).body.data.internal_reference as string;
    const unanswered = (await client.initialize(mobileMoneyRequest({ msisdn: '256772000004' }))).body.data
      .internal_reference as string;
    expect((await client.confirm(unanswered)).status).toBe(202);
    await paygate.close();
    paygate = undefined;

    // Both time-outs (1.5 s) fall due while nothing runs.
    await new Promise((resolve) => setTimeout(resolve, Number(TEST_TIMERS.CONFIRMATION_TIMEOUT_MS) + 500));

    paygate = await startInProcess(env);
    const restarted = new PaygateClient(paygate.url, client.merchant);
    expect(await restarted.finalState(unconfirmed)).toMatchObject({
      transaction_status: 'CANCELLED',
      status_message: 'Transaction cancelled: confirmation not received in time',
    });
    expect(await restarted.finalState(unanswered)).toMatchObject({
      transaction_status: 'CANCELLED',
      status_message: 'Transaction cancelled: payment prompt not answered in time',
    });

    // Let further ticks run: a fired timer must not fire again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const ref of [unconfirmed, unanswered]) {
      const events = await paygate.infrastructure.store.readStream(collectionStream(ref));
      expect(events.filter((event) => event.type === COLLECTION_EVENT_TYPES.cancelled)).toHaveLength(1);
      // The cancellation is the last thing that happened; only its published CollectionSettled follows.
      expect(events.slice(-2).map((event) => event.type)).toEqual([
        COLLECTION_EVENT_TYPES.cancelled,
        COLLECTION_INTEGRATION_EVENTS.settled,
      ]);
    }
    const [{ count }] = await paygate.infrastructure.sql.query<{ count: string }>(
      `select count(*) from jobs where queue = 'collection_timers' and payload->>'internalReference' = any($1::text[])`,
      [[unconfirmed, unanswered]],
    );
    expect(Number(count)).toBe(0);
  });
});
