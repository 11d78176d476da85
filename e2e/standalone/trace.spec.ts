import type { InProcessPaygate } from '@paygate/standalone';
import { OtlpReceiver } from '@paygate/testing';
import { collectForPaymentTraceSuite } from '../trace/collect-for-payment-trace';
import { startCallbackTestPaygate } from './test-paygate';

describe('standalone: one collect-for-payment, one trace (OTLP/HTTP to a loopback collector)', () => {
  let collector: OtlpReceiver;
  let paygate: InProcessPaygate;

  beforeAll(async () => {
    collector = await OtlpReceiver.start();
    paygate = await startCallbackTestPaygate({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url(),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      PROVIDER_STATUS_POLL_MS: '60000',
    });
  }, 120_000);

  afterAll(async () => {
    await paygate?.close();
    await collector?.close();
  });

  collectForPaymentTraceSuite({
    gateway: () => paygate.url,
    sandbox: () => paygate.url,
    collector: () => collector,
    layout: { services: ['standalone'], kafka: false },
  });
});
