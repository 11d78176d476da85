import type { GaugeSample, GaugeSpec, LabelValues, Metrics } from '@paygate/metrics';

/** One recorded observation or increment, with its instrument's name and labels. */
export interface Recorded {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A Metrics port that keeps what is recorded, for specs of code that reports through it: counter increments and
 * histogram observations as they happen, gauges read on demand (as a scrape would).
 */
export class RecordingMetrics implements Metrics {
  readonly recorded: Recorded[] = [];
  private readonly gauges = new Map<string, Set<GaugeSpec<string>['read']>>();

  counter<Name extends string>(spec: { name: string }) {
    return { inc: (labels: LabelValues<Name>, by = 1) => this.record(spec.name, labels, by) };
  }

  histogram<Name extends string>(spec: { name: string }) {
    return { observe: (labels: LabelValues<Name>, value: number) => this.record(spec.name, labels, value) };
  }

  gauge<Name extends string>(spec: GaugeSpec<Name>): () => void {
    const sources = this.gauges.get(spec.name) ?? new Set();
    this.gauges.set(spec.name, sources);
    const read = spec.read as GaugeSpec<string>['read'];
    sources.add(read);
    return () => sources.delete(read);
  }

  /** What `name`'s reporting sources answer now (none: an empty list). */
  async read(name: string): Promise<GaugeSample<string>[]> {
    const samples: GaugeSample<string>[] = [];
    for (const read of this.gauges.get(name) ?? []) samples.push(...(await read()));
    return samples;
  }

  /** The observations or increments recorded under `name`. */
  of(name: string): Recorded[] {
    return this.recorded.filter((entry) => entry.name === name);
  }

  private record(name: string, labels: Record<string, string>, value: number): void {
    this.recorded.push({ name, labels: { ...labels }, value });
  }
}
