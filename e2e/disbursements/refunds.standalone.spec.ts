import { refundSuite } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

describe('refunds in standalone mode (PGlite, in-process broker, the sandbox provider)', () => {
  let paygate: InProcessPaygate;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
  });

  afterAll(async () => {
    await paygate?.close();
  });

  refundSuite({ gateway: () => paygate.url, sandbox: () => paygate.url });
});
