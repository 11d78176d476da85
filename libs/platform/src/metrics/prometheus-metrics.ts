import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type RegistryContentType } from 'prom-client';
import type { Logger } from '@paygate/logging';
import { currentSpanIds } from '@paygate/tracing';
import type {
  Counter as CounterPort,
  CounterSpec,
  GaugeSpec,
  Histogram as HistogramPort,
  HistogramSpec,
  Metrics,
} from '@paygate/metrics';

type GaugeSource = GaugeSpec<string>['read'];

/**
 * The process's one metrics registry (prom-client), behind the Metrics port the libraries
 * record through. Made once per app by the platform; GET /metrics serves `exposition()`.
 */
export class PrometheusMetrics implements Metrics {
  private readonly registry = new Registry<RegistryContentType>();
  private readonly gaugeSources = new Map<string, Set<GaugeSource>>();

  /**
   * `exemplars` (tracing on): the registry speaks OpenMetrics, and each latency histogram's buckets carry an exemplar
   * naming the trace of an observation in them, so a slow bucket leads to a trace.
   */
  constructor(
    private readonly log: Logger,
    private readonly exemplars = false,
  ) {
    if (exemplars) this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    // Process metrics: CPU, memory, event loop lag, handles, GC. The lag histogram samples every 100 ms, not every
    // 10: at 10 its timer alone woke an idle app 100 times a second, about 1% of a core.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric, or only the families named (no other gauge is read: a cheap, side-effect-free look at counters). */
  async exposition(names?: readonly string[]): Promise<string> {
    if (names === undefined) return this.registry.metrics();
    const known = [...new Set(names)].filter((name) => this.registry.getSingleMetric(name) !== undefined);
    if (this.exemplars) {
      // OpenMetrics names a counter's family without _total and ends with # EOF: a registry of the families asked for
      // prints them as a whole scrape would (getSingleMetricAsString alone prints `…_total_total`).
      const asked = new Registry<RegistryContentType>();
      asked.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
      for (const name of known) asked.registerMetric(this.registry.getSingleMetric(name)!);
      return asked.metrics();
    }
    return (await Promise.all(known.map((name) => this.registry.getSingleMetricAsString(name))))
      .map((family) => `${family}\n`)
      .join('');
  }

  counter<Name extends string>(spec: CounterSpec<Name>): CounterPort<Name> {
    const counter = this.declared(
      spec.name,
      () => new Counter({ name: spec.name, help: spec.help, labelNames: spec.labelNames, registers: [this.registry] }),
    );
    for (const labels of spec.reportedFromStart ?? []) counter.inc(labels, 0);
    return counter;
  }

  histogram<Name extends string>(spec: HistogramSpec<Name>): HistogramPort<Name> {
    const histogram = this.declared(
      spec.name,
      () =>
        new Histogram<string>({
          name: spec.name,
          help: spec.help,
          labelNames: spec.labelNames,
          buckets: spec.buckets ? [...spec.buckets] : undefined,
          registers: [this.registry],
          enableExemplars: this.exemplars,
        }),
    );
    if (!this.exemplars) return histogram;
    return {
      // With exemplars enabled, prom-client takes an observation in its object form only.
      observe: (labels, value) => {
        const ids = currentSpanIds();
        histogram.observe({ labels, value, ...(ids && { exemplarLabels: ids }) });
      },
    };
  }

  gauge<Name extends string>(spec: GaugeSpec<Name>): () => void {
    let sources = this.gaugeSources.get(spec.name);
    if (!sources) {
      const known = new Set<GaugeSource>();
      sources = known;
      this.gaugeSources.set(spec.name, known);
      const log = this.log;
      new Gauge<string>({
        name: spec.name,
        help: spec.help,
        labelNames: spec.labelNames,
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const read of known) {
            try {
              for (const sample of await read()) this.set(sample.labels, sample.value);
            } catch (error) {
              // A source that cannot answer (store down) leaves its series out; the scrape still succeeds.
              log.warn('metric source failed', { metric: spec.name, error });
            }
          }
        },
      });
    }
    const source = spec.read as GaugeSource;
    sources.add(source);
    return () => sources.delete(source);
  }

  private declared<T>(name: string, make: () => T): T {
    return (this.registry.getSingleMetric(name) as T | undefined) ?? make();
  }
}
