import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAYMENTS_INTEGRATION_EVENTS as PUBLISHED } from '@paygate/contracts';
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS } from '@paygate/payments-domain';
import { PaymentsHarness, single } from './service-payments-test-setup';

/**
 * A payment retry lives in the store: one that falls due while service-payments is down is made after it restarts,
 * once.
 */
describe('service-payments: a payment retry across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-payments-'));
  // The retry is due 1.5 s after the first failure.
  const env = { STORE_URL: `pglite://${dataDir}`, PAYMENT_RETRY_BASE_MS: '1500', PAYMENT_RETRY_MAX_DELAY_MS: '1500' };
  let harness: PaymentsHarness | undefined;

  afterAll(async () => {
    await harness?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('pays the PRN once after the restart', async () => {
    harness = await PaymentsHarness.start(env);
    await harness.topUp(1_000);
    const prn = await harness.createPrn();
    const ref = await harness.initiate({ prn });
    await harness.eventuallyHas(ref, PUBLISHED.prnValidated);
    await harness.prnAccepted(ref);
    await harness.billerFaults({ fail_next: 1 });
    await harness.settle(ref, 'COMPLETED');
    await harness.eventuallyHas(ref, EVENTS.attemptFailed);
    const merchant = harness.merchant;
    await harness.close();
    harness = undefined;

    // The retry falls due while nothing runs.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    harness = await PaymentsHarness.start(env, merchant);
    const events = await harness.eventuallyHas(ref, PUBLISHED.completed);
    expect(single(events, EVENTS.attemptFailed).data).toMatchObject({ attempt: 1 });
    const atBiller = await harness.prnAtBiller(prn);
    expect(atBiller).toMatchObject({ status: 'PAID', payment_calls: 2 });
    expect(atBiller.payments).toHaveLength(1);
    await harness.eventuallyBalance({ balance: 625, available: 625 });
  });
});
