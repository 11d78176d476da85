import type { Metrics } from '@paygate/metrics';

export const READY_METRIC = 'paygate_ready';
const HELP = 'Whether this app is ready (1) or waits for a dependency (0), as GET /health/ready answers.';

/** Reports at every scrape whether the process waits for anything, as /health/ready does. */
export function reportReadiness(metrics: Metrics, waitingFor: () => string[]): () => void {
  return metrics.gauge({
    name: READY_METRIC,
    help: HELP,
    labelNames: [],
    read: () => [{ labels: {}, value: waitingFor().length === 0 ? 1 : 0 }],
  });
}

/**
 * What GET /metrics answers while the app starts and waits for its dependencies, before its registry exists: not
 * ready, so an alert on `paygate_ready == 0` covers a pod that never got ready as well as one that stopped being.
 */
export const STARTING_EXPOSITION = `# HELP ${READY_METRIC} ${HELP}\n# TYPE ${READY_METRIC} gauge\n${READY_METRIC} 0\n`;
