/** The chart's Prometheus alert rules and Grafana dashboards as files: what the promtool, chart and scrape suites check. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

/** The repository, from libs/testing/src. */
const ROOT = resolve(__dirname, '../../..');
export const ALERT_RULES = join(ROOT, 'k8s/paygate/files/paygate-alerts.yaml');
export const ALERT_TESTS = join(ROOT, 'tools/prometheus/alerts.test.yaml');
export const OPERATIONS_DOC = join(ROOT, 'docs/operations.md');
export const DASHBOARDS = join(ROOT, 'k8s/paygate/files/dashboards');

export interface AlertRule {
  alert: string;
  expr: string;
  annotations: { summary: string; description: string; runbook_url: string };
  labels: { severity: string };
}

/** Every alerting rule of the chart's rules file. */
export function alertRules(): AlertRule[] {
  const file = parse(readFileSync(ALERT_RULES, 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

/** Per alert, the counts of promtool test evaluations expecting it to fire and expecting it not to. */
export function testedOutcomes(): Map<string, { firing: number; quiet: number }> {
  const file = parse(readFileSync(ALERT_TESTS, 'utf8')) as {
    tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
  };
  const outcomes = new Map<string, { firing: number; quiet: number }>();
  for (const test of file.tests)
    for (const { alertname, exp_alerts } of test.alert_rule_test ?? []) {
      const counts = outcomes.get(alertname) ?? { firing: 0, quiet: 0 };
      if (exp_alerts.length > 0) counts.firing += 1;
      else counts.quiet += 1;
      outcomes.set(alertname, counts);
    }
  return outcomes;
}

/** The anchors of docs/operations.md's headings, as GitHub makes them (lower case, punctuation dropped, dashes). */
export function documentAnchors(path = OPERATIONS_DOC): Set<string> {
  return new Set(
    [...readFileSync(path, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );
}

/**
 * The metric families an expression reads, Paygate's own (`paygate_…`) and prom-client's process ones (`process_…`,
 * `nodejs_…`): a histogram's _bucket, _count and _sum are its family's.
 */
export function familiesIn(expr: string): string[] {
  return [
    ...new Set(
      [...expr.matchAll(/\b(?:paygate|process|nodejs)_[a-z0-9_]+/g)].map(([name]) =>
        name.replace(/_(bucket|count|sum)$/, ''),
      ),
    ),
  ];
}

export interface DashboardQuery {
  dashboard: string;
  panel: string;
  expr: string;
}

/** Every query of every panel of the chart's Grafana dashboards. */
export function dashboardQueries(): DashboardQuery[] {
  return readdirSync(DASHBOARDS)
    .filter((file) => file.endsWith('.json'))
    .flatMap((file) => {
      const board = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as {
        title: string;
        panels: { title: string; targets: { expr: string }[] }[];
      };
      return board.panels.flatMap((panel) =>
        panel.targets.map((target) => ({ dashboard: board.title, panel: panel.title, expr: target.expr })),
      );
    });
}

/** A query as Prometheus evaluates it: Grafana's `$__rate_interval` given a value. */
export function evaluable(expr: string, rateInterval = '5m'): string {
  return expr.replaceAll('$__rate_interval', rateInterval);
}

/** The text of every non-spec TypeScript source under `dir`. */
export function sourcesUnder(dir: string): string {
  return readdirSync(dir)
    .map((entry) => join(dir, entry))
    .map((path) =>
      statSync(path).isDirectory()
        ? sourcesUnder(path)
        : path.endsWith('.ts') && !path.endsWith('.spec.ts')
          ? readFileSync(path, 'utf8')
          : '',
    )
    .join('\n');
}
