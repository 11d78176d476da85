import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '@paygate/logging';
import type {
  Counter as CounterPort,
  GaugeSpec,
  Histogram as HistogramPort,
  HistogramSpec,
  InstrumentSpec,
  Metrics,
} from '@paygate/metrics';

type GaugeSource = GaugeSpec<string>['read'];

/**
 * The process's one metrics registry (prom-client), behind the Metrics port the libraries
 * record through. Made once per app by the platform; GET /metrics serves `exposition()`.
 */
export class PrometheusMetrics implements Metrics {
  private readonly registry = new Registry();
  private readonly gaugeSources = new Map<string, Set<GaugeSource>>();

  constructor(private readonly log: Logger) {
    // Process metrics: CPU, memory, event loop lag, handles, GC. The lag histogram samples every 100 ms, not every
    // 10: at 10 its timer alone woke an idle app 100 times a second, about 1% of a core.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
  }

  readonly contentType = this.registry.contentType;

  /** Every metric, or only the families named (no other gauge is read: a cheap, side-effect-free look at counters). */
  async exposition(names?: readonly string[]): Promise<string> {
    if (names === undefined) return this.registry.metrics();
    const known = [...new Set(names)].filter((name) => this.registry.getSingleMetric(name) !== undefined);
    return (await Promise.all(known.map((name) => this.registry.getSingleMetricAsString(name))))
      .map((text) => `${text}\n`)
      .join('');
  }

  counter<Name extends string>(spec: InstrumentSpec<Name>): CounterPort<Name> {
    return this.declared(
      spec.name,
      () => new Counter({ name: spec.name, help: spec.help, labelNames: spec.labelNames, registers: [this.registry] }),
    );
  }

  histogram<Name extends string>(spec: HistogramSpec<Name>): HistogramPort<Name> {
    return this.declared(
      spec.name,
      () =>
        new Histogram({
          name: spec.name,
          help: spec.help,
          labelNames: spec.labelNames,
          buckets: spec.buckets ? [...spec.buckets] : undefined,
          registers: [this.registry],
        }),
    );
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
