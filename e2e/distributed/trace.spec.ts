import {
  describeWithService,
  dropSchemas,
  OtlpReceiver,
  TEST_CALLBACK_SETTINGS,
  TEST_TIMERS,
  uniqueSchema,
} from '@paygate/testing';
import { collectForPaymentTraceSuite } from '../trace/collect-for-payment-trace';
import {
  collectionsOnSandbox,
  distributedEnv,
  distributedPostgres,
  ensureBuilt,
  localCommandRoutes,
  startApp,
  type AppProcess,
} from './processes';

const SERVICES = ['sandbox', 'api-gateway', 'collections', 'service-payments', 'webhook-dispatcher'];

describeWithService('kafka', 'distributed: one collect-for-payment, one trace across every process', (brokerUrl) => {
  const schema = uniqueSchema('e2e_trace');
  const apps: AppProcess[] = [];
  let postgres: string;
  let collector: OtlpReceiver;

  beforeAll(async () => {
    postgres = distributedPostgres();
    ensureBuilt();
    collector = await OtlpReceiver.start();
    const routes = await localCommandRoutes();
    const env = distributedEnv(
      { postgres, schema, brokerUrl, routes },
      {
        ...TEST_TIMERS,
        ...TEST_CALLBACK_SETTINGS,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url(),
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        // The sandbox's callback, not a status poll of a trace of its own, settles the collection.
        PROVIDER_STATUS_POLL_MS: '60000',
      },
    );
    const sandbox = await startApp('sandbox', env);
    const gateway = await startApp('api-gateway', env);
    apps.push(sandbox, gateway);
    apps.push(
      await startApp('collections', {
        ...env,
        ...collectionsOnSandbox(sandbox.url, gateway.url),
        ...routes.listen('collections'),
      }),
      await startApp('service-payments', {
        ...env,
        BILLER_API_URL: `${sandbox.url}/sandbox/biller`,
        ...routes.listen('service-payments'),
      }),
      await startApp('webhook-dispatcher', { ...env, ...routes.listen('webhook-dispatcher') }),
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await collector?.close();
    if (postgres) await dropSchemas(postgres, [schema]);
  });

  collectForPaymentTraceSuite({
    gateway: () => apps[1].url,
    sandbox: () => apps[0].url,
    collector: () => collector,
    layout: { services: SERVICES, kafka: true },
  });
});
