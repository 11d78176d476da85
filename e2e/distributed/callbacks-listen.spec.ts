import {
  CallbackReceiver,
  describeWithService,
  dropSchemas,
  mobileMoneyRequest,
  TEST_CALLBACK_SETTINGS,
  TEST_TIMERS,
  uniqueSchema,
} from '@paygate/testing';
import { startListeningMerchant, type ListeningMerchant } from '../cli/listen-test-setup';
import {
  collectionsOnSandbox,
  distributedEnv,
  distributedPostgres,
  ensureBuilt,
  freePort,
  localCommandRoutes,
  startApp,
  type AppProcess,
} from './processes';

/**
 * paygate listen against the distributed layout: the gateway long-polls the webhook dispatcher,
 * another process, over the TCP command bus; the gateway going away and coming back loses nothing.
 */
describeWithService(
  'kafka',
  'paygate listen in distributed mode (gateway and dispatcher in separate processes)',
  (brokerUrl) => {
    const schema = uniqueSchema('e2e_listen');
    const apps: AppProcess[] = [];
    let env: Record<string, string>;
    /**
     * The gateway listen talks to (restarted on its port by a test) and a second one the merchant's requests use
     * meanwhile.
     */
    let listened: AppProcess;
    let listenedPort: number;
    let other: AppProcess;
    let listening: ListeningMerchant;
    let dispatcher: AppProcess;
    let dispatcherEnv: Record<string, string>;
    let postgres: string;

    beforeAll(async () => {
      postgres = distributedPostgres();
      ensureBuilt();
      const routes = await localCommandRoutes();
      env = distributedEnv({ postgres, schema, brokerUrl, routes }, { ...TEST_TIMERS, ...TEST_CALLBACK_SETTINGS });
      const sandbox = await startApp('sandbox', env);
      listenedPort = await freePort();
      listened = await startApp('api-gateway', env, listenedPort);
      other = await startApp('api-gateway', env);
      apps.push(
        sandbox,
        other,
        await startApp('collections', {
          ...env,
          ...collectionsOnSandbox(sandbox.url, other.url),
          ...routes.listen('collections'),
        }),
      );
      dispatcherEnv = { ...env, ...routes.listen('webhook-dispatcher') };
      dispatcher = await startApp('webhook-dispatcher', dispatcherEnv);
      listening = await startListeningMerchant(other.url, 'Distributed listener', listened.url);
    }, 180_000);

    afterAll(async () => {
      await listening?.close();
      await Promise.all([listened, dispatcher, ...apps].map((app) => app?.stop()));
      if (postgres) await dropSchemas(postgres, [schema]);
    });

    it('forwards the callback the dispatcher sent, with signatures that verify', async () => {
      const ref = (await listening.merchant.initialize(mobileMoneyRequest({ require_confirmation: false }))).body.data
        .internal_reference as string;
      const [forwarded] = await listening.laptop.waitFor(ref, 'transaction.completed', 60_000);
      const [sent] = await listening.merchantEndpoint.waitFor(ref, 'transaction.completed', 60_000);
      expect(forwarded.body).toBe(sent.body);
      expect(forwarded.headers['webhook-signature']).toBe(sent.headers['webhook-signature']);
      expect(CallbackReceiver.verify(forwarded, listening.merchant.merchant.signingKey)).toBe(true);
    });

    it('keeps its stream open while the dispatcher restarts, and forwards what the new one sends', async () => {
      await dispatcher.stop();
      const ref = (
        await listening.merchant.initialize(mobileMoneyRequest({ msisdn: '256772000003', require_confirmation: false }))
      ).body.data.internal_reference as string;
      dispatcher = await startApp('webhook-dispatcher', dispatcherEnv);
      const [forwarded] = await listening.laptop.waitFor(ref, 'transaction.cancelled', 60_000);
      expect(CallbackReceiver.verify(forwarded, listening.merchant.merchant.signingKey)).toBe(true);
      expect(listening.listener.stderr).toBe('');
    });

    it('reconnects when its gateway goes away and comes back, and forwards what was sent meanwhile', async () => {
      await listened.stop();
      const ref = (
        await listening.merchant.initialize(mobileMoneyRequest({ msisdn: '256772000002', require_confirmation: false }))
      ).body.data.internal_reference as string;
      await listening.merchantEndpoint.waitFor(ref, 'transaction.failed', 60_000);
      expect(listening.laptop.about(ref)).toEqual([]);
      listened = await startApp('api-gateway', env, listenedPort);
      const [forwarded] = await listening.laptop.waitFor(ref, 'transaction.failed', 60_000);
      expect(CallbackReceiver.verify(forwarded, listening.merchant.merchant.signingKey)).toBe(true);
      expect(listening.listener.stdout).toMatch(/^Reconnected to http:\/\/127\.0\.0\.1:\d+$/m);
      expect(listening.listener.stderr).toMatch(
        /^Lost the stream from http:\/\/127\.0\.0\.1:\d+ \(.+\); reconnecting in [\d.]+ s$/m,
      );
    });
  },
);
