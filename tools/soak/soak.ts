import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { collectionTransferId } from '@paygate/payments-domain';
import { CallbackReceiver } from './callback-receiver';
import { expectedCallbacks, judge, type Injection, type Report } from './checks';
import { freePort } from '@paygate/net-guard';
import { localCommandRoutes } from '../local/command-routes';
import { collectionsOnSandbox, moneyOutOnSandbox } from '../local/sandbox-providers';
import { KafkaBroker, type BrokerSettings } from '../local/kafka-broker';
import { LoadGenerator, type Flow } from './load';
import { MONEY_OUT_EVERY } from './money-out';
import { holdProblems, indexLedger } from './money-out-checks';
import { Observer } from './observe';
import { createRunDatabase, type RunDatabase } from './run-database';
import { Supervisor, type ManagedApp } from './supervisor';
import { TcpProxy } from './tcp-proxy';

export interface SoakOptions {
  /** How long the load runs (and the faults are injected), in seconds. */
  seconds: number;
  /** A random app is killed with SIGKILL (and started again) about this often. */
  killEveryMs: number;
  /** How long the broker stays stopped. */
  brokerOutageMs: number;
  /** How long the database stays cut off. */
  dbOutageMs: number;
  /** During the cut, new database connections are held (never answered) or refused. */
  dbCut: 'hold' | 'refuse';
  /** After the load, how long the system may take to finish every collection and callback. */
  settleSeconds: number;
  /** Collections started per second. */
  rate: number;
  merchants: number;
  /** PostgreSQL (the soak uses a fresh database on that server and drops it at the end). */
  storeUrl: string;
  kafka: BrokerSettings;
  /** App exits and failed starts other than the kills fail the run (SOAK_FAIL_ON_EXITS=0: only reported). */
  failOnExits: boolean;
  log: (line: string) => void;
}

export function soakOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): SoakOptions {
  const number = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isFinite(value) || value < 0)
      throw new Error(`${name} must be a non-negative number, got "${env[name]}"`);
    return value;
  };
  return {
    seconds: number('SOAK_SECONDS', 600),
    killEveryMs: number('SOAK_KILL_EVERY_MS', 20_000),
    brokerOutageMs: number('SOAK_BROKER_OUTAGE_MS', 30_000),
    dbOutageMs: number('SOAK_DB_OUTAGE_MS', 30_000),
    dbCut: env.SOAK_DB_CUT === 'refuse' ? 'refuse' : 'hold',
    settleSeconds: number('SOAK_SETTLE_SECONDS', 180),
    rate: number('SOAK_RATE', 3),
    merchants: number('SOAK_MERCHANTS', 4),
    failOnExits: env.SOAK_FAIL_ON_EXITS !== '0',
    storeUrl: /^postgres(ql)?:\/\//.test(env.STORE_URL ?? '')
      ? String(env.STORE_URL)
      : 'postgres://root@127.0.0.1:5432/test',
    kafka: {
      port: number('SOAK_KAFKA_PORT', 19092),
      controllerPort: number('SOAK_KAFKA_CONTROLLER_PORT', 19093),
      dataDir: env.SOAK_KAFKA_DATA_DIR ?? '/tmp/paygate-kafka-soak',
    },
    log: (line) => process.stderr.write(`soak: ${line}\n`),
  };
}

export interface SoakResult {
  report: Report;
  /** Each app's recent output, for a failed run. */
  appOutputs: string;
}

/**
 * The report as printed: one line per check, the violations, each app's recent output when it failed, and the verdict
 * last.
 */
export function formatResult({ report, appOutputs }: SoakResult, maxViolations = 100): string {
  const lines = report.lines.slice(0, -1);
  if (!report.passed) {
    lines.push(
      `violations (${report.failures.length}):`,
      ...report.failures.slice(0, maxViolations).map((failure) => `  ${failure}`),
    );
    if (report.failures.length > maxViolations) lines.push(`  … and ${report.failures.length - maxViolations} more`);
    lines.push('recent output of each app:', appOutputs);
  }
  lines.push(report.lines[report.lines.length - 1]);
  return lines.join('\n');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The repository root: where scripts/kafka.sh is (from tools/soak or dist/tools/soak). */
function repositoryRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, 'scripts/kafka.sh'))) return dir;
  throw new Error('cannot find the repository root (scripts/kafka.sh) above ' + __dirname);
}

/** Timers and retries short enough for a soak, long enough for a loaded two-core machine. */
const TIMERS = {
  CONFIRMATION_TIMEOUT_MS: '20000',
  PROMPT_TIMEOUT_MS: '5000',
  CHECKOUT_TIMEOUT_MS: '120000',
  PROVIDER_STATUS_POLL_MS: '1000',
  TIMER_TICK_MS: '200',
  SANDBOX_LATENCY_MS: '200',
  PAYMENT_RETRY_ATTEMPTS: '5',
  PAYMENT_RETRY_BASE_MS: '500',
  PAYMENT_RETRY_MAX_DELAY_MS: '5000',
  PAYMENT_STATUS_POLL_MS: '3000',
  PAYMENT_TIMER_TICK_MS: '200',
  MONEY_OUT_STATUS_POLL_MS: '2000',
  MONEY_OUT_TIMER_TICK_MS: '200',
  // A payout to 0006 is reversed 5 s after it completed; completed payouts are watched for a minute, longer than an
  // outage lasts, so a reversal is seen even when its callback to a killed service-payments was lost.
  SANDBOX_REVERSAL_DELAY_MS: '5000',
  PAYOUT_REVERSAL_WATCH_MS: '60000',
  ALLOW_PRIVATE_CALLBACKS: 'true',
  CALLBACK_TIMEOUT_MS: '5000',
  CALLBACK_RETRY_SCHEDULE: '0s,1s,5s,15s,30s,1m,2m',
  DISPATCH_TICK_MS: '100',
  RATE_LIMIT_MERCHANT_PER_SECOND: '10000',
  RATE_LIMIT_MERCHANT_BURST: '10000',
  RATE_LIMIT_PUBLIC_PER_SECOND: '10000',
  RATE_LIMIT_PUBLIC_BURST: '10000',
  RATE_LIMIT_PROVIDER_PER_SECOND: '10000',
  RATE_LIMIT_PROVIDER_BURST: '10000',
};

/**
 * The distributed layout under a steady mixed load while apps are killed, the broker restarted
 * and the database cut off; then, with everything up, waits for the system to settle and judges
 * what it did (checks.ts). Everything it starts listens on loopback and is stopped at the end.
 */
export class Soak {
  private readonly root = repositoryRoot();
  private readonly runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  private readonly broker: KafkaBroker;
  private readonly supervisor = new Supervisor(this.root);
  private readonly injections: Injection[] = [];
  private database?: RunDatabase;
  private proxy?: TcpProxy;
  private receiver?: CallbackReceiver;
  private load?: LoadGenerator;
  private cleaned?: Promise<void>;

  constructor(private readonly options: SoakOptions) {
    this.broker = new KafkaBroker(this.root, options.kafka);
  }

  /** Runs the soak and judges it; throws (with each app's recent output) when it cannot run at all. */
  async run(): Promise<SoakResult> {
    try {
      const report = await this.soak();
      return { report, appOutputs: this.supervisor.outputs() };
    } catch (error) {
      throw new Error(`${(error as Error).message}\nrecent output of each app:\n${this.supervisor.outputs()}`, {
        cause: error,
      });
    } finally {
      await this.cleanUp();
    }
  }

  private async soak(): Promise<Report> {
    const { options } = this;
    options.log(`run ${this.runId}: fresh broker on ${this.broker.url}, database soak_${this.runId}`);
    await this.broker.stop(); // one left over by an interrupted run would be reused, not fresh
    await this.broker.start();
    this.database = await createRunDatabase(options.storeUrl, `soak_${this.runId}`, options.log);
    const store = new URL(options.storeUrl);
    this.proxy = await TcpProxy.start({ host: store.hostname, port: Number(store.port || 5432) });
    const receiver = (this.receiver = await CallbackReceiver.start());
    const apps = await this.startApps();
    const gateways = apps.filter((app) => app.spec.app === 'api-gateway').map((app) => app.url);
    const sandbox = apps.find((app) => app.spec.app === 'sandbox')!.url;
    const adminToken = String(apps[0].spec.env.ADMIN_TOKEN);

    const loadOptions = { gateways, sandbox, adminToken, rate: options.rate, runId: this.runId, timeoutMs: 10_000 };
    const merchants = await LoadGenerator.merchants(loadOptions, options.merchants, (index) => receiver.url(index));
    const load = (this.load = new LoadGenerator(loadOptions, merchants));
    const startedAt = Date.now();
    options.log(
      `load: ${options.rate} collections/s and a refund or payout every ${MONEY_OUT_EVERY} of them for ${options.seconds} s, kill -9 every ~${options.killEveryMs / 1000} s`,
    );
    load.start();
    await Promise.all([this.killRandomApps(startedAt + options.seconds * 1000), this.outages(startedAt)]);

    options.log(`load stopped; settling (up to ${options.settleSeconds} s, every app up)`);
    const observer = new Observer({ gateways, sandbox, adminToken, storeUrl: this.database.url, timeoutMs: 10_000 });
    const settleBy = Date.now() + options.settleSeconds * 1000;
    const loadDone = load.stop(settleBy);
    await this.supervisor.allReady();
    await this.settle(observer, loadDone, settleBy);

    return judge({
      startedAt,
      seconds: options.seconds,
      apps: apps.length,
      flows: load.flows,
      callbacks: receiver.received,
      finals: observer.finals,
      prns: await observer.prns(load.flows),
      moneyOut: load.moneyOut,
      moneyOutFinals: observer.moneyOutFinals,
      atProvider: await observer.atProvider(load.moneyOut),
      ledger: await observer.ledger(),
      walletBalances: await observer.walletBalances(merchants),
      injections: this.injections,
      processEvents: this.supervisor.events,
      retries: load.retries,
      failOnExits: options.failOnExits,
    });
  }

  /** Stops everything the soak started and drops its database; safe to call more than once. */
  cleanUp(): Promise<void> {
    this.cleaned ??= (async () => {
      await this.load?.stop(0);
      await this.supervisor.stopAll();
      await this.proxy?.close();
      await this.receiver?.close();
      await this.broker.stop().catch((error: Error) => this.options.log(error.message));
      await this.database?.drop();
    })();
    return this.cleaned;
  }

  private get stopping(): boolean {
    return this.cleaned !== undefined;
  }

  /** When even cleaning up takes too long: kills what it started, without waiting. */
  killNow(): void {
    this.supervisor.killAllNow();
    this.broker.stopNow();
  }

  /**
   * Sandbox, two gateways, two collections, service-payments, two dispatchers, one at a time on
   * the fresh broker. Every app reaches PostgreSQL through the proxy, so the cut hits them all.
   */
  private async startApps(): Promise<ManagedApp[]> {
    const storeUrl = new URL(this.database!.url);
    storeUrl.hostname = '127.0.0.1';
    storeUrl.port = String(this.proxy!.port);
    // Two collections and two dispatchers: the gateways deal their commands over both.
    const routes = await localCommandRoutes({ collections: 2, 'webhook-dispatcher': 2 });
    const common = {
      ...routes.senders,
      ...TIMERS,
      STORE_URL: storeUrl.toString(),
      BROKER_URL: this.broker.url,
      // Eight apps on one PostgreSQL: within its 100 connections, with room for everyone else.
      STORE_POOL_SIZE: '8',
      LOG_LEVEL: 'warn',
      MASTER_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: randomBytes(24).toString('hex'),
    };
    const port = await Promise.all(Array.from({ length: 8 }, freePort));
    const sandboxUrl = `http://127.0.0.1:${port[0]}`;
    const specs: { name: string; app: string; env: Record<string, string> }[] = [
      { name: 'sandbox', app: 'sandbox', env: {} },
      { name: 'api-gateway#1', app: 'api-gateway', env: {} },
      { name: 'api-gateway#2', app: 'api-gateway', env: {} },
      ...[1, 2].map((n) => ({
        name: `collections#${n}`,
        app: 'collections',
        env: {
          ...collectionsOnSandbox(sandboxUrl, `http://127.0.0.1:${port[1]}`),
          ...routes.listen('collections', n - 1),
        },
      })),
      {
        name: 'service-payments',
        app: 'service-payments',
        env: {
          BILLER_API_URL: `${sandboxUrl}/sandbox/biller`,
          ...moneyOutOnSandbox(sandboxUrl),
          ...routes.listen('service-payments'),
        },
      },
      ...[1, 2].map((n) => ({
        name: `webhook-dispatcher#${n}`,
        app: 'webhook-dispatcher',
        env: routes.listen('webhook-dispatcher', n - 1),
      })),
    ];
    const apps: ManagedApp[] = [];
    const began = Date.now();
    for (const [i, spec] of specs.entries()) {
      const app = this.supervisor.add({ ...spec, port: port[i], env: { ...common, ...spec.env } });
      await app.start();
      apps.push(app);
    }
    this.options.log(`${apps.length} apps ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    return apps;
  }

  private async killRandomApps(until: number): Promise<void> {
    const { killEveryMs } = this.options;
    if (killEveryMs <= 0) return sleep(until - Date.now());
    const restarts: Promise<void>[] = [];
    for (;;) {
      const next = Date.now() + killEveryMs * (0.75 + Math.random() / 2);
      if (next >= until) break;
      await sleep(next - Date.now());
      if (this.stopping) break;
      const candidates = this.supervisor.apps.filter((app) => app.running);
      const victim = candidates[Math.floor(Math.random() * candidates.length)];
      if (!victim) continue;
      this.options.log(`kill -9 ${victim.name}`);
      restarts.push(victim.killAndRestart().catch((error: Error) => this.options.log(error.message)));
    }
    await sleep(until - Date.now());
    await Promise.all(restarts);
  }

  /** The broker restart at 30 % of the run, then the database cut at 65 % (or as soon as the broker is back). */
  private async outages(startedAt: number): Promise<void> {
    const { seconds, brokerOutageMs, dbOutageMs, dbCut } = this.options;
    await sleep(startedAt + seconds * 1000 * 0.3 - Date.now());
    if (brokerOutageMs > 0 && !this.stopping) {
      const from = Date.now();
      this.options.log('broker: stopping');
      await this.broker.stop();
      await sleep(brokerOutageMs);
      this.options.log('broker: starting again, data kept');
      await this.broker.start({ keepData: true });
      this.injections.push({
        what: 'broker restart',
        how: `stopped, ${brokerOutageMs / 1000} s down, started again with its data`,
        from,
        to: Date.now(),
      });
      this.options.log('broker: back');
    }
    await sleep(startedAt + seconds * 1000 * 0.65 - Date.now());
    if (dbOutageMs > 0 && !this.stopping) {
      const from = Date.now();
      this.options.log(`database: cut (connections destroyed, new ones ${dbCut === 'hold' ? 'held' : 'refused'})`);
      await this.proxy!.cut(dbCut);
      await sleep(dbOutageMs);
      await this.proxy!.restore();
      this.injections.push({
        what: 'database cut',
        how: `connections destroyed, new ones ${dbCut === 'hold' ? 'held' : 'refused'}`,
        from,
        to: Date.now(),
      });
      this.options.log('database: back');
    }
  }

  /**
   * Until every acknowledged collection and accepted refund or payout is final with all its callbacks and ledger
   * entries, or the deadline.
   */
  private async settle(observer: Observer, loadDone: Promise<void>, settleBy: number): Promise<void> {
    let loadFinished = false;
    void loadDone.then(() => (loadFinished = true));
    const began = Date.now();
    while (Date.now() < settleBy && !this.stopping) {
      // Read before asking: once the load has finished, no collection is acknowledged behind the observer's back.
      const finished = loadFinished;
      const collectionsFinal = await observer.refreshFinals(this.load!.flows);
      const allFinal = (await observer.refreshMoneyOut(this.load!.moneyOut)) && collectionsFinal;
      if (finished && allFinal && this.callbacksComplete(observer) && (await this.ledgerComplete(observer))) {
        this.options.log(`settled in ${((Date.now() - began) / 1000).toFixed(1)} s`);
        // Late duplicates would come within a callback timeout or two.
        await sleep(10_000);
        return;
      }
      await sleep(2_000);
    }
    await loadDone;
    this.options.log(`not settled within ${this.options.settleSeconds} s`);
  }

  private callbacksComplete(observer: Observer): boolean {
    const events = new Set(
      this.receiver!.received.map((callback) => `${callback.internalReference} ${callback.event}`),
    );
    return this.acknowledged().every((flow) =>
      expectedCallbacks(flow, observer.finals.get(flow.internalReference)!, observer.moneyOutFinals).every((event) =>
        events.has(`${flow.internalReference} ${event}`),
      ),
    );
  }

  /**
   * Every completed collection credited, and every final refund's and payout's hold settled: service-payments does it
   * apart from the callbacks and after the money-out is final.
   */
  private async ledgerComplete(observer: Observer): Promise<boolean> {
    const ledger = indexLedger(await observer.ledger());
    const credited = this.acknowledged().every(
      (flow) =>
        observer.finals.get(flow.internalReference)!.status !== 'COMPLETED' ||
        ledger.posted.has(collectionTransferId(flow.internalReference)),
    );
    return (
      credited &&
      this.load!.moneyOut.every((flow) => {
        const final = observer.moneyOutFinals.get(flow.reference);
        return !final || holdProblems(flow, final.status, ledger).length === 0;
      })
    );
  }

  private acknowledged(): (Flow & { internalReference: string })[] {
    return this.load!.flows.filter(
      (flow): flow is Flow & { internalReference: string } => flow.internalReference !== undefined,
    );
  }
}
