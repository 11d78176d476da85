import {
  collectForPaymentFaultSuite,
  collectForPaymentSuite,
  collectionOutcomeSuite,
  expectReady,
} from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from './test-paygate';

describe('standalone mode (PGlite, in-process broker)', () => {
  let paygate: InProcessPaygate;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
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
