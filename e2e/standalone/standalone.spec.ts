import {
  collectForPaymentFaultSuite,
  collectForPaymentSuite,
  collectionOutcomeSuite,
  expectReady,
  TEST_ADMIN_TOKEN,
  TEST_CALLBACK_SETTINGS,
  TEST_MASTER_KEY,
  TEST_RATE_LIMITS,
  TEST_TIMERS,
} from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';

describe('standalone mode (PGlite, in-process broker)', () => {
  let paygate: InProcessPaygate;

  beforeAll(async () => {
    paygate = await startInProcess({
      ...TEST_TIMERS,
      ...TEST_RATE_LIMITS,
      ...TEST_CALLBACK_SETTINGS,
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: 'error',
    });
  });

  afterAll(async () => {
    await paygate?.close();
  });

  it('answers live and ready', async () => {
    await expectReady(paygate.url);
  });

  describe('collection outcomes through the sandbox providers', () => {
    collectionOutcomeSuite({ gateway: () => paygate.url });
  });

  describe('collect-for-payment: PRN validation, wallet and PRN payment through the sandbox biller', () => {
    collectForPaymentSuite({ gateway: () => paygate.url, sandbox: () => paygate.url });
  });

  describe('collect-for-payment faults: holds released, retries spent, two collections racing for one PRN', () => {
    collectForPaymentFaultSuite({ gateway: () => paygate.url, sandbox: () => paygate.url });
  });
});
