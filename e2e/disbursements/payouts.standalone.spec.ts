import { payoutSuite } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

describe('payouts in standalone mode (PGlite, in-process broker, the sandbox provider)', () => {
  let paygate: InProcessPaygate;

  // Starting PGlite and every module takes a minute on a loaded 2-core CI machine, as the refund suite allows for.
  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
  }, 120_000);

  afterAll(async () => {
    await paygate?.close();
  });

  payoutSuite({ gateway: () => paygate.url, sandbox: () => paygate.url });
});
