import { silentLogger } from '@paygate/testing';
import { PrometheusMetrics } from './prometheus-metrics';

/** What GET /metrics serves: Prometheus text by default, OpenMetrics (exemplars) with tracing on. */
describe('the metrics exposition', () => {
  const counted = (metrics: PrometheusMetrics) => {
    metrics.counter({ name: 'paygate_things_total', help: 'Things.', labelNames: ['kind'] }).inc({ kind: 'a' }, 2);
    metrics
      .histogram({ name: 'paygate_wait_seconds', help: 'Waits.', labelNames: ['kind'], buckets: [0.1, 1] })
      .observe({ kind: 'a' }, 0.05);
    return metrics;
  };

  it('is Prometheus text without tracing: whole, and only the families asked for', async () => {
    const metrics = counted(new PrometheusMetrics(silentLogger));
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await metrics.exposition()).toContain('paygate_things_total{kind="a"} 2\n');
    const asked = await metrics.exposition(['paygate_things_total', 'no_such_metric']);
    expect(asked).toBe(
      '# HELP paygate_things_total Things.\n# TYPE paygate_things_total counter\npaygate_things_total{kind="a"} 2\n',
    );
  });

  it('is OpenMetrics with exemplars on: counters keep one _total, the families asked for end with # EOF', async () => {
    const metrics = counted(new PrometheusMetrics(silentLogger, true));
    expect(metrics.contentType).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    for (const text of [await metrics.exposition(['paygate_things_total']), await metrics.exposition()]) {
      expect(text).toContain('# TYPE paygate_things counter\npaygate_things_total{kind="a"} 2\n');
      expect(text).not.toContain('_total_total');
      expect(text.endsWith('# EOF\n')).toBe(true);
    }
    // Asked for again after a whole scrape renamed the family, it is found by the name it was declared with.
    expect(await metrics.exposition(['paygate_things_total'])).toContain('paygate_things_total{kind="a"} 2\n');
  });

  it("reports a counter's rare label values at 0 from the start, so the first increment is a rise a rate can see", async () => {
    const metrics = new PrometheusMetrics(silentLogger);
    const attempts = metrics.counter({
      name: 'paygate_tries_total',
      help: 'Tries.',
      labelNames: ['outcome'],
      reportedFromStart: [{ outcome: 'ok' }, { outcome: 'abandoned' }],
    });
    expect(await metrics.exposition(['paygate_tries_total'])).toContain(
      'paygate_tries_total{outcome="ok"} 0\npaygate_tries_total{outcome="abandoned"} 0\n',
    );
    attempts.inc({ outcome: 'abandoned' });
    expect(await metrics.exposition(['paygate_tries_total'])).toContain('paygate_tries_total{outcome="abandoned"} 1\n');
  });

  it('leaves a bucket without an exemplar when the observation was made outside any trace', async () => {
    const text = await counted(new PrometheusMetrics(silentLogger, true)).exposition(['paygate_wait_seconds']);
    expect(text).toContain('paygate_wait_seconds_bucket{le="0.1",kind="a"} 1\n');
    expect(text).not.toContain(' # {');
  });
});
