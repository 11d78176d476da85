/**
 * The dashboards and alert rules against a real Prometheus (Debian's package): a distributed layout runs a little
 * load (mobile money collections, a collect-for-payment) with its rare outcomes (a callback abandoned at a receiver
 * that fails, a card provider that answers 503, a refused command connection), Prometheus scrapes every app each second
 * and evaluates the chart's alert rules, and every dashboard panel's query must answer with series, every rule
 * evaluate without error, every metric an alert reads exist, and exactly the alerts those outcomes call for go off.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CallbackReceiver,
  cardRequest,
  describeWithService,
  dropSchemas,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  SandboxAdmin,
  serviceUrl,
  TEST_CALLBACK_SETTINGS,
  TEST_TIMERS,
  topUpWallet,
  uniqueSchema,
  alertRules,
  ALERT_RULES,
  dashboardQueries,
  evaluable,
  familiesIn,
} from '@paygate/testing';
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

interface PrometheusAnswer<T> {
  status: string;
  error?: string;
  data: T;
}

// Without Kafka the suite below is not declared; this keeps the file a suite that runs everywhere.
describe('a dashboard query as the suite gives it to Prometheus', () => {
  it("gives Grafana's $__rate_interval the window asked for and leaves the rest as written", () => {
    expect(evaluable('sum(rate(a[$__rate_interval])) / sum(rate(b[1h]))', '1m')).toBe(
      'sum(rate(a[1m])) / sum(rate(b[1h]))',
    );
  });
});

describeWithService(
  'kafka',
  'dashboards and alert rules against a real Prometheus scraping the distributed layout',
  (brokerUrl) => {
    describeWithService('promtool', 'with Prometheus from its Debian package', (promtool) => {
      const prometheusBinary = join(promtool, '..', 'prometheus');
      const schema = uniqueSchema('e2e_prometheus');
      const apps: { name: string; app: AppProcess }[] = [];
      let postgres: string;
      let dir: string;
      let prometheus: ChildProcess | undefined;
      let prometheusUrl: string;
      let prometheusOutput = '';

      let failing: Server | undefined;
      const query = async <T>(path: string): Promise<PrometheusAnswer<T>> =>
        (await (await fetch(`${prometheusUrl}${path}`)).json()) as PrometheusAnswer<T>;
      const instant = (expr: string) => query<{ result: unknown[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`);

      beforeAll(async () => {
        postgres = distributedPostgres();
        ensureBuilt();
        // What the rare outcomes meet: a card provider that answers 503 and a merchant's receiver that answers 500.
        failing = createServer((request, response) => {
          request.resume();
          response.writeHead(request.url?.startsWith('/callbacks') ? 500 : 503).end();
        });
        await new Promise<void>((resolve) => failing?.listen(0, '127.0.0.1', resolve));
        const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
        const routes = await localCommandRoutes();
        const env = distributedEnv(
          { postgres, schema, brokerUrl, routes },
          { ...TEST_TIMERS, ...TEST_CALLBACK_SETTINGS },
        );
        const sandbox = await startApp('sandbox', env);
        const gateway = await startApp('api-gateway', env);
        apps.push(
          { name: 'sandbox', app: sandbox },
          { name: 'api-gateway', app: gateway },
          {
            name: 'collections',
            app: await startApp('collections', {
              ...env,
              ...collectionsOnSandbox(sandbox.url, gateway.url),
              CARD_API_URL: `${failingUrl}/card`,
              ...routes.listen('collections'),
            }),
          },
          {
            name: 'service-payments',
            app: await startApp('service-payments', {
              ...env,
              BILLER_API_URL: `${sandbox.url}/sandbox/biller`,
              ...routes.listen('service-payments'),
            }),
          },
          {
            name: 'webhook-dispatcher',
            app: await startApp('webhook-dispatcher', { ...env, ...routes.listen('webhook-dispatcher') }),
          },
        );

        dir = mkdtempSync(join(tmpdir(), 'paygate-prometheus-'));
        const config = join(dir, 'prometheus.yml');
        writeFileSync(
          config,
          JSON.stringify({
            global: { scrape_interval: '1s', evaluation_interval: '1s' },
            rule_files: [ALERT_RULES],
            scrape_configs: apps.map(({ name, app }) => ({
              job_name: `paygate-${name}`,
              static_configs: [{ targets: [new URL(app.url).host] }],
            })),
          }),
        );
        const port = await freePort();
        prometheusUrl = `http://127.0.0.1:${port}`;
        prometheus = spawn(
          prometheusBinary,
          [
            `--config.file=${config}`,
            `--storage.tsdb.path=${join(dir, 'data')}`,
            `--web.listen-address=127.0.0.1:${port}`,
            '--log.level=warn',
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        prometheus.stdout?.on('data', (chunk) => (prometheusOutput += chunk));
        prometheus.stderr?.on('data', (chunk) => (prometheusOutput += chunk));
        await eventually(
          () =>
            fetch(`${prometheusUrl}/-/ready`).then(
              (r) => (r.ok ? true : undefined),
              () => undefined,
            ),
          30_000,
          'Prometheus to be ready',
        );

        // A little load: mobile money collections to the end, a collect-for-payment paid at the biller.
        const receiver = await CallbackReceiver.start();
        try {
          const client = await PaygateClient.withNewMerchant(
            gateway.url,
            undefined,
            'Scraped merchant',
            receiver.url(),
          );
          for (let i = 0; i < 3; i++) {
            const initialized = await client.initialize(mobileMoneyRequest());
            const ref = String(initialized.body.data.internal_reference);
            expect((await client.confirm(ref)).status).toBe(202);
            await receiver.waitFor(ref, 'transaction.completed', 60_000);
          }
          await topUpWallet(gateway.url, client.merchant.id, 2_000);
          const admin = new SandboxAdmin(sandbox.url);
          const prn = await admin.createPrn(25_000);
          const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
            body: mobileMoneyRequest({ amount: 25_000, prn }),
          });
          const ref = String(accepted.body.data.internal_reference);
          await receiver.waitFor(ref, 'transaction.charges', 60_000);
          expect((await client.confirm(ref)).status).toBe(202);
          await receiver.waitFor(ref, 'payment.completed', 60_000);

          // A merchant whose receiver fails: its callback is abandoned once the retry schedule is spent.
          const failingMerchant = await PaygateClient.withNewMerchant(
            gateway.url,
            undefined,
            'Merchant whose receiver fails',
            `${failingUrl}/callbacks`,
          );
          const unheard = await failingMerchant.initialize(mobileMoneyRequest());
          expect((await failingMerchant.confirm(String(unheard.body.data.internal_reference))).status).toBe(202);

          // A card payment whose provider answers 503, confirmed again once Prometheus has the failure's series, so
          // the error rate has a rise to see.
          const card = await client.initialize(cardRequest());
          const cardRef = String(card.body.data.internal_reference);
          const confirmCard = async () => {
            const answer = await client.confirm(cardRef);
            expect({ status: answer.status, data: answer.body.data }).toEqual({
              status: 503,
              data: { internal_reference: cardRef },
            });
          };
          await confirmCard();
          await eventually(
            async () => {
              const { data } = await instant('paygate_provider_request_duration_seconds_count{outcome="unavailable"}');
              return data.result.length > 0 ? true : undefined;
            },
            30_000,
            "the card provider's failure scraped",
          );
          await confirmCard();
        } finally {
          await receiver.close();
        }
        // A connection that is not TLS knocks on the collections command port (a listener this suite started).
        const commands = new URL(routes.listen('collections').COMMANDS_LISTEN_URL);
        await new Promise<void>((resolve) => {
          const socket = connect(Number(commands.port), '127.0.0.1', () => socket.end('GET / HTTP/1.1\r\n\r\n'));
          socket.on('close', () => resolve());
          socket.on('error', () => resolve());
        });
        // Every target scraped after the load, and every rule evaluated since.
        const loaded = Date.now() / 1000;
        await eventually(
          async () => {
            const { data } = await query<{ activeTargets: { health: string; lastScrape: string }[] }>(
              '/api/v1/targets',
            );
            return data.activeTargets.length === apps.length &&
              data.activeTargets.every(
                (target) => target.health === 'up' && Date.parse(target.lastScrape) / 1000 > loaded + 1,
              )
              ? true
              : undefined;
          },
          30_000,
          'every app scraped after the load',
        );
        // Prometheus finds its targets a few seconds after it starts, so a short load may see a single scrape of each;
        // a rate needs two samples in its window.
        await eventually(
          async () => {
            const { data } = await instant('min(count_over_time(up[1m]))');
            const [sample] = data.result as { value: [number, string] }[];
            return sample && Number(sample.value[1]) >= 3 ? true : undefined;
          },
          30_000,
          'three scrapes of every app',
        );
      }, 300_000);

      afterAll(async () => {
        if (prometheus && prometheus.exitCode === null) {
          const exited = new Promise((resolve) => prometheus?.once('exit', resolve));
          prometheus.kill('SIGTERM');
          await exited;
        }
        await Promise.all(apps.map(({ app }) => app.stop()));
        await new Promise((resolve) => (failing ? failing.close(resolve) : resolve(undefined)));
        if (dir) rmSync(dir, { recursive: true, force: true });
        if (postgres && serviceUrl('postgres')) await dropSchemas(postgres, [schema]);
      });

      it('answers every dashboard panel query with series', async () => {
        for (const { dashboard, panel, expr } of dashboardQueries()) {
          const answer = await instant(evaluable(expr, '1m'));
          expect({
            dashboard,
            panel,
            status: answer.status,
            error: answer.error,
            series: answer.data?.result.length > 0,
          }).toEqual({
            dashboard,
            panel,
            status: 'success',
            error: undefined,
            series: true,
          });
        }
      });

      it('evaluates every alert rule without error, and every metric an alert reads has series', async () => {
        const rules = await eventually(
          async () => {
            const { data } = await query<{
              groups: { rules: { name: string; health: string; lastError?: string }[] }[];
            }>('/api/v1/rules?type=alert');
            const all = data.groups.flatMap((group) => group.rules);
            return all.length > 0 && all.every((rule) => rule.health !== 'unknown') ? all : undefined;
          },
          30_000,
          'every alert rule evaluated',
        );
        const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
        expect(
          rules
            .map(({ name, health, lastError }) => ({ name, health, lastError: lastError || undefined }))
            .sort(byName),
        ).toEqual(
          alertRules()
            .map((rule) => ({ name: rule.alert, health: 'ok', lastError: undefined }))
            .sort(byName),
        );
        for (const rule of alertRules())
          for (const family of familiesIn(rule.expr)) {
            const answer = await instant(`count({__name__=~"${family}(_bucket|_count|_sum)?"})`);
            expect({ alert: rule.alert, family, series: answer.data.result.length > 0 }).toEqual({
              alert: rule.alert,
              family,
              series: true,
            });
          }
        expect(prometheusOutput).not.toMatch(/level=error/);
      });

      it('goes off for what the load met: the abandoned callback and the refused connection fire, the failing provider is pending its 10 minutes, every other alert is quiet', async () => {
        const expected = {
          PaygateCallbacksAbandoned: 'firing',
          PaygateCommandConnectionsRefused: 'firing',
          PaygateProviderErrors: 'pending',
        };
        const states = await eventually(
          async () => {
            const { data } = await query<{ groups: { rules: { name: string; state: string }[] }[] }>(
              '/api/v1/rules?type=alert',
            );
            const byName = Object.fromEntries(
              data.groups.flatMap((group) => group.rules).map((rule) => [rule.name, rule.state]),
            );
            return Object.entries(expected).every(([name, state]) => byName[name] === state) ? byName : undefined;
          },
          60_000,
          'the alerts the load calls for',
        );
        expect(states).toEqual(
          Object.fromEntries(
            alertRules().map((rule) => [rule.alert, expected[rule.alert as keyof typeof expected] ?? 'inactive']),
          ),
        );
      });
    });
  },
);
