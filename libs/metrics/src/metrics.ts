/**
 * The port through which libraries record metrics. The platform implements it once per process
 * with prom-client and serves it on GET /metrics; libraries see only this interface, so no
 * library outside the platform depends on a metrics client.
 */

/** One series' label values; the names are fixed when the instrument is declared. */
export type LabelValues<Name extends string> = { readonly [K in Name]: string };

export interface Counter<Name extends string> {
  inc(labels: LabelValues<Name>, by?: number): void;
}

export interface Histogram<Name extends string> {
  /** Records one observation, in the unit the name says (seconds). */
  observe(labels: LabelValues<Name>, value: number): void;
}

export interface InstrumentSpec<Name extends string> {
  /** `paygate_…`, with the unit and `_total` for counters, as Prometheus names go. */
  name: string;
  help: string;
  labelNames: readonly Name[];
}

export interface CounterSpec<Name extends string> extends InstrumentSpec<Name> {
  /**
   * Label values reported at 0 from the start. Prometheus's increase() and rate() see no increment in a series'
   * first sample, so a rare outcome whose series is born at 1 (the first abandoned callback) would never move an alert.
   */
  reportedFromStart?: readonly LabelValues<Name>[];
}

export interface HistogramSpec<Name extends string> extends InstrumentSpec<Name> {
  buckets?: readonly number[];
}

export interface GaugeSample<Name extends string> {
  labels: LabelValues<Name>;
  value: number;
}

/** A gauge read when scraped (queue depth, lag): nothing is computed on the hot path. */
export interface GaugeSpec<Name extends string> extends InstrumentSpec<Name> {
  read(): Promise<GaugeSample<Name>[]> | GaugeSample<Name>[];
}

export interface Metrics {
  /** Declaring a name twice returns the same instrument. */
  counter<Name extends string>(spec: CounterSpec<Name>): Counter<Name>;
  histogram<Name extends string>(spec: HistogramSpec<Name>): Histogram<Name>;
  /**
   * Adds a source of samples to the gauge `spec.name` (declared on first use); a scrape reports
   * every source's samples. Returns a function that removes this source.
   */
  gauge<Name extends string>(spec: GaugeSpec<Name>): () => void;
}

/** Latency buckets in seconds, from a fast SQL statement to a slow provider. */
export const LATENCY_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Seconds since `start` (a `performance.now()` reading). */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}

const noCounter: Counter<never> = { inc: () => undefined };
const noHistogram: Histogram<never> = { observe: () => undefined };

/** Records nothing: for code run outside an app (unit tests, tools). */
export const NO_METRICS: Metrics = {
  counter: () => noCounter,
  histogram: () => noHistogram,
  gauge: () => () => undefined,
};
