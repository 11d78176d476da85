/**
 * The cost tables of bench:e2e and bench:money-out: what each process spends over a window, per
 * item completed in it (a lifecycle, a refund, a payout) or with no traffic at all. CPU is read
 * from /proc (the apps, every PostgreSQL process, the Kafka broker) and from process.cpuUsage (the
 * bench: payers and receiver); SQL statements by kind, inbound HTTP requests and Kafka messages
 * from each app's counters, read with `GET /metrics?name=…`, which serves only those families and
 * reads no gauge.
 */
import type { StatementKind } from '@paygate/sql';
import { addCounters, countersSince, readAppCounters, type AppCounters } from '../local/app-counters';
import type { Proc } from './apps';
import { backendsOf, kafkaBroker, postgresProcesses, ticksOf } from './processes';

/** USER_HZ on Linux: /proc counts CPU in hundredths of a second. */
const TICKS_PER_SECOND = 100;
/** The columns' order; a kind no app used in the window gets no column. */
const KINDS: StatementKind[] = [
  'append',
  'log-read',
  'job-queue',
  'projection',
  'reference',
  'webhooks',
  'checkpoint',
  'merchants',
  'rate-limit',
  'sandbox',
  'transaction',
  'notify',
  'other',
];

/** What a layout runs on beside its apps, by TCP port: PostgreSQL's and Kafka's rows are measured when set. */
export interface Externals {
  postgresPort?: number;
  kafkaPort?: number;
}

export interface Snapshot {
  at: number;
  apps: Array<{ ticks: number; counters?: AppCounters }>;
  /** Every PostgreSQL process: pid → ticks, with the children it waited for (ended backends). */
  postgres: Map<number, number>;
  /** The backends serving the apps, by pid. */
  appBackends: number[];
  kafka?: { pid: number; ticks: number };
  benchTicks: number;
}

/** One process's use over a window. */
export interface Use {
  name: string;
  /** An app of the layout, what it runs on (PostgreSQL, Kafka), or the bench. */
  role: 'app' | 'external' | 'bench';
  /** CPU in clock ticks; undefined when the process was not found. */
  ticks?: number;
  /** An app's counters; undefined for other processes, or when its /metrics did not answer. */
  counters?: AppCounters;
}

export interface Window {
  seconds: number;
  uses: Use[];
  /** The ticks of PostgreSQL's backends whose clients are the apps: the part of the PostgreSQL row that is ours. */
  appBackendTicks?: number;
}

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/** Snapshots of a layout's processes; `between` two of them is a window's use. */
export class CostMeter {
  constructor(
    private readonly procs: Proc[],
    private readonly externals: Externals = {},
  ) {}

  async snapshot(): Promise<Snapshot> {
    const at = performance.now();
    const { postgresPort, kafkaPort } = this.externals;
    const ticks = this.procs.map((p) => ticksOf(p.child.pid ?? -1));
    const titles = postgresPort === undefined ? new Map<number, string>() : postgresProcesses();
    const postgres = new Map([...titles.keys()].map((pid) => [pid, ticksOf(pid, true)]));
    const kafkaPid = kafkaPort === undefined ? undefined : kafkaBroker(kafkaPort);
    const cpu = process.cpuUsage();
    const appPids = this.procs.map((p) => p.child.pid ?? -1);
    const appBackends = postgresPort === undefined ? [] : backendsOf(appPids, titles, postgresPort);
    const counters = await Promise.all(this.procs.map((proc) => readAppCounters(proc.url)));
    return {
      at,
      apps: ticks.map((t, i) => ({ ticks: t, counters: counters[i] })),
      postgres,
      appBackends,
      kafka: kafkaPid === undefined ? undefined : { pid: kafkaPid, ticks: ticksOf(kafkaPid) },
      benchTicks: ((cpu.user + cpu.system) / 1e6) * TICKS_PER_SECOND,
    };
  }

  between(before: Snapshot, after: Snapshot): Window {
    const uses: Use[] = this.procs.map((p, i) => ({
      name: p.name,
      role: 'app',
      ticks: after.apps[i].ticks - before.apps[i].ticks,
      counters: countersSince(before.apps[i].counters, after.apps[i].counters),
    }));
    let appBackendTicks: number | undefined;
    if (this.externals.postgresPort !== undefined) {
      // A backend that ended meanwhile is in the postmaster's waited-for children: the sums stay whole.
      const found = after.postgres.size > 0;
      uses.push({
        name: 'PostgreSQL',
        role: 'external',
        ticks: found ? sum(after.postgres.values()) - sum(before.postgres.values()) : undefined,
      });
      const backends = new Set([...before.appBackends, ...after.appBackends]);
      // One that ended meanwhile is left out: its share is in the postmaster's figure, not told apart.
      appBackendTicks = sum(
        [...backends]
          .filter((pid) => after.postgres.has(pid))
          .map((pid) => after.postgres.get(pid)! - (before.postgres.get(pid) ?? 0)),
      );
    }
    if (this.externals.kafkaPort !== undefined) {
      const same = before.kafka && after.kafka && before.kafka.pid === after.kafka.pid;
      uses.push({
        name: 'Kafka',
        role: 'external',
        ticks: same ? after.kafka!.ticks - before.kafka!.ticks : undefined,
      });
    }
    uses.push({ name: 'bench (payers, receiver)', role: 'bench', ticks: after.benchTicks - before.benchTicks });
    return { seconds: (after.at - before.at) / 1_000, uses, appBackendTicks };
  }
}

/** Paygate's processes: the apps, PostgreSQL and Kafka, not the bench that stands for the merchant and its payers. */
const paygate = (window: Window) => window.uses.filter((use) => use.role !== 'bench');
const cpuMs = (ticks: number) => (ticks * 1_000) / TICKS_PER_SECOND;
const corePercent = (ticks: number, seconds: number) => (100 * ticks) / TICKS_PER_SECOND / seconds;

/** A figure per item: two decimals under 1, one under 100. */
export const fig = (value: number) =>
  Number.isNaN(value)
    ? '-'
    : value === 0
      ? '0'
      : value < 1
        ? value.toFixed(2)
        : value < 100
          ? value.toFixed(1)
          : String(Math.round(value));

/** CPU ms per item summed over Paygate's processes, and those that were not found (not in the sum). */
export function paygateCpuMs(window: Window, items: number): { ms: number; missing: string[] } {
  const uses = paygate(window);
  return {
    ms: cpuMs(sum(uses.map((use) => use.ticks ?? 0))) / items,
    missing: uses.filter((use) => use.ticks === undefined).map((use) => use.name),
  };
}

/** Each app's CPU over the window, in % of one core. */
export const appCores = (window: Window) =>
  window.uses
    .filter((use) => use.role === 'app')
    .map((use) => ({ name: use.name, percent: corePercent(use.ticks ?? 0, window.seconds) }));

/** The statement kinds any app of `windows` used, in KINDS' order (unknown kinds last). */
function kindsUsed(windows: Window[]): string[] {
  const used = new Set(
    windows.flatMap((window) =>
      apps(window).flatMap((use) => [...(use.counters?.sql ?? [])].filter(([, n]) => n > 0).map(([kind]) => kind)),
    ),
  );
  return [...KINDS.filter((kind) => used.delete(kind)), ...used];
}

const apps = (window: Window) => window.uses.filter((use) => use.role === 'app');
const withKafka = (windows: Window[]) =>
  windows.some((window) =>
    apps(window).some((use) => (use.counters?.produced ?? 0) + (use.counters?.fetched ?? 0) > 0),
  );

/** The apps' counters added up (those whose /metrics did not answer left out). */
export const appTotal = (window: Window): AppCounters =>
  addCounters(apps(window).flatMap(({ counters }) => (counters ? [counters] : [])));

const header = (first: string, kinds: string[], kafka: boolean) => {
  const names = [
    first,
    'CPU ms',
    ...kinds,
    'SQL total',
    'HTTP in',
    ...(kafka ? ['Kafka produced', 'Kafka fetched'] : []),
  ];
  return [`| ${names.join(' | ')} |`, `|${names.map(() => '---').join('|')}|`];
};

/** A row's cells after its name and CPU, per item: statements by kind, their total, HTTP in, Kafka messages. */
function counterCells(
  counters: AppCounters | undefined,
  kinds: string[],
  kafka: boolean,
  items: number,
  missing = '?',
) {
  if (!counters) return [...kinds, 'total', 'http', ...(kafka ? ['p', 'f'] : [])].map(() => missing);
  const per = (n: number) => fig(n / items);
  return [
    ...kinds.map((kind) => per(counters.sql.get(kind) ?? 0)),
    per(sum(counters.sql.values())),
    per(counters.http),
    ...(kafka ? [per(counters.produced), per(counters.fetched)] : []),
  ];
}

const cpuCell = (ticks: number | undefined, items: number) =>
  ticks === undefined ? 'not found' : fig(cpuMs(ticks) / items);

/** The markdown table "cost per item": a row per process, Paygate's total, then the bench. */
export function costTable(window: Window, items: number): string[] {
  if (items === 0) return ['No item completed in the window: no cost per item.'];
  const kinds = kindsUsed([window]);
  const kafka = withKafka([window]);
  const row = (name: string, ticks: number | undefined, cells: string[]) =>
    `| ${name} | ${cpuCell(ticks, items)} | ${cells.join(' | ')} |`;
  const bench = window.uses.find((use) => use.role === 'bench')!;
  return [
    ...header('process', kinds, kafka),
    ...paygate(window).map((use) =>
      row(use.name, use.ticks, counterCells(use.counters, kinds, kafka, items, use.role === 'app' ? '?' : '-')),
    ),
    row(
      '**total (Paygate)**',
      sum(paygate(window).map((use) => use.ticks ?? 0)),
      counterCells(appTotal(window), kinds, kafka, items),
    ),
    row(bench.name, bench.ticks, counterCells(undefined, kinds, kafka, items, '-')),
    ...(window.appBackendTicks === undefined
      ? []
      : [
          '',
          "PostgreSQL is every postgres process on the machine, whatever else uses it; its backends serving this layout's " +
            `apps used ${fig(cpuMs(window.appBackendTicks) / items)} ms per item of it.`,
        ]),
  ];
}

/**
 * The markdown table of a layout's items side by side: a row per kind of item with what Paygate's processes spent
 * on one (their CPU, the apps' statements by kind, HTTP in and Kafka messages), each over its own window.
 */
export function itemsTable(rows: Array<{ item: string; window: Window; items: number }>): string[] {
  const kinds = kindsUsed(rows.map((row) => row.window));
  const kafka = withKafka(rows.map((row) => row.window));
  return [
    ...header('item', kinds, kafka),
    ...rows.map(({ item, window, items }) => {
      if (items === 0) return `| ${item} | none completed |`;
      const { ms, missing } = paygateCpuMs(window, items);
      const cpu = missing.length > 0 ? `${fig(ms)} (${missing.join(', ')} not found)` : fig(ms);
      return `| ${item} | ${cpu} | ${counterCells(appTotal(window), kinds, kafka, items).join(' | ')} |`;
    }),
  ];
}

/** The markdown table "idle": each process's CPU in % of one core and the statements it issued. */
export function idleTable(window: Window): string[] {
  const statements = (use: Use) => {
    if (use.role !== 'app') return '-';
    if (!use.counters) return '?';
    const used = [...use.counters.sql].filter(([, n]) => n > 0);
    const byKind = used.length > 0 ? ` (${used.map(([kind, n]) => `${kind} ${n}`).join(', ')})` : '';
    return `${sum(use.counters.sql.values())}${byKind}`;
  };
  return [
    `| process | CPU % of a core | SQL statements in the ${Math.round(window.seconds)} s |`,
    '|---|---|---|',
    ...window.uses.map(
      (use) =>
        `| ${use.name} | ${use.ticks === undefined ? 'not found' : corePercent(use.ticks, window.seconds).toFixed(2)} | ${statements(use)} |`,
    ),
  ];
}
