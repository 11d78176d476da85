import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

const ROOT = resolve(__dirname, '../..');
export const ALERT_RULES = join(ROOT, 'k8s/paygate/files/paygate-alerts.yaml');
export const ALERT_TESTS = join(ROOT, 'tools/prometheus/alerts.test.yaml');
export const OPERATIONS_DOC = join(ROOT, 'docs/operations.md');

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

/** The `paygate_…` families an expression reads (a histogram's _bucket, _count and _sum are its family's). */
export function familiesIn(expr: string): string[] {
  return [
    ...new Set([...expr.matchAll(/\bpaygate_[a-z_]+/g)].map(([name]) => name.replace(/_(bucket|count|sum)$/, ''))),
  ];
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
