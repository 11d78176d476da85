import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
export const CHART_DIR = resolve(ROOT, 'k8s/paygate');
export const PRODUCTION_VALUES = resolve(ROOT, 'k8s/values-production.yaml');
const HELM_SCRIPT = resolve(ROOT, 'scripts/helm.sh');

/** What one scripts/helm.sh run printed, and whether it succeeded. */
export interface HelmRun {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** Runs the real Helm engine through scripts/helm.sh (which fetches it once, then uses the cache). */
function helm(args: string[]): Promise<HelmRun> {
  return new Promise((done) => {
    execFile('bash', [HELM_SCRIPT, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ ok: !error, stdout, stderr }),
    );
  });
}

export function lintChart(): Promise<HelmRun> {
  return helm(['lint', CHART_DIR, '--strict']);
}

/**
 * `helm template` of the chart (k8s/paygate unless `chart`) as release `paygate` in namespace `paygate`, with these
 * values files in order.
 */
export function renderChart(valuesFiles: string[] = [], chart = CHART_DIR): Promise<HelmRun> {
  return helm([
    'template',
    chart,
    '--release',
    'paygate',
    '--namespace',
    'paygate',
    ...valuesFiles.flatMap((file) => ['-f', file]),
  ]);
}
