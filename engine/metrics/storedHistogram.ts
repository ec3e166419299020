/**
 * A histogram whose buckets come from the store rather than from observations made in this process: prom-client's
 * Histogram only takes observe(), which cannot restore a stored sum exactly. It renders as prom-client renders a
 * histogram (`_bucket` with `le`, cumulative; `_sum`; `_count`), through the registry's own exposition.
 */
import type { Registry } from 'prom-client';
import type { Family } from './families.js';
import type { HistogramTotals } from './records.js';

type Labels = Record<string, string>;

interface Sample {
  labels: Labels;
  metricName: string;
  value: number;
}

export class StoredHistogram {
  readonly type = 'histogram';
  readonly name: string;
  readonly help: string;
  private readonly bounds: readonly number[];
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number }>();

  constructor(family: Family, registry: Registry) {
    this.name = family.name;
    this.help = family.help;
    this.bounds = family.buckets ?? [];
    registry.registerMetric(this as never);
  }

  /** Adds stored totals to the series of `labels` (series with equal labels add up). */
  add(labels: Labels, totals: HistogramTotals): void {
    const key = JSON.stringify(labels);
    const series = this.series.get(key) ?? {
      labels,
      counts: new Array<number>(this.bounds.length + 1).fill(0),
      sum: 0,
    };
    totals.counts.forEach((count, index) => {
      series.counts[index]! += count;
    });
    series.sum += totals.sum;
    this.series.set(key, series);
  }

  async get() {
    const values: Sample[] = [];
    for (const { labels, counts, sum } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += counts[index]!;
        values.push({ labels: { ...labels, le: String(bound) }, metricName: `${this.name}_bucket`, value: cumulative });
      });
      cumulative += counts[this.bounds.length]!;
      values.push({ labels: { ...labels, le: '+Inf' }, metricName: `${this.name}_bucket`, value: cumulative });
      values.push({ labels, metricName: `${this.name}_sum`, value: sum });
      values.push({ labels, metricName: `${this.name}_count`, value: cumulative });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }

  // The registry's other entry points; a scrape's registry never calls them.
  reset(): void {
    this.series.clear();
  }
}
