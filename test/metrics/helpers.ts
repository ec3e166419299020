/**
 * Metrics tests' tools: the exposition text read back with a real parser (parse-prometheus-text-format) and checked
 * for what a scraper relies on, and a driver that plays a queue over the HTTP API on the virtual clock.
 */
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { expect } from 'vitest';
import type { Api } from '../api/harness.js';
import { REPO, TOKENS } from '../api/harness.js';

export const MINUTE = 60_000;
export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface HistogramValue {
  buckets: Record<string, number>;
  count: number;
  sum: number;
}

const labelKey = (labels: Record<string, string> | undefined) =>
  JSON.stringify(Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

interface Series {
  labels: Record<string, string>;
  value?: number;
  histogram?: HistogramValue;
}

interface Family {
  name: string;
  help: string;
  type: ParsedFamily['type'];
  series: Series[];
}

/**
 * A scrape, parsed and checked: every family typed and documented, no series twice, histograms consistent.
 *
 * parse-prometheus-text-format reads every line (and throws on one that is not valid exposition format), but it
 * folds a histogram's series into one when they carry labels besides `le`. So histograms are read from a second
 * parse of the same text in which their TYPE says untyped: the parser then gives each `_bucket`, `_sum` and `_count`
 * sample with its labels, and they are grouped here by their labels without `le`.
 */
export class Exposition {
  readonly families = new Map<string, Family>();

  constructor(readonly text: string) {
    expect(text.endsWith('\n')).toBe(true);
    const parsed = parsePrometheusTextFormat(text);
    const flat = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'));
    const samples = new Map<string, { labels: Record<string, string>; value: number }[]>();
    for (const family of flat) {
      const list = samples.get(family.name) ?? [];
      for (const sample of family.metrics) list.push({ labels: sample.labels ?? {}, value: Number(sample.value) });
      samples.set(family.name, list);
    }
    for (const family of parsed) {
      expect(this.families.has(family.name), `family ${family.name} appears twice`).toBe(false);
      expect(family.help, `HELP of ${family.name}`).not.toBe('');
      expect(family.type, `TYPE of ${family.name}`).not.toBe('UNTYPED');
      const series: Series[] =
        family.type === 'HISTOGRAM'
          ? histograms(family.name, samples)
          : family.metrics.map((sample) => ({ labels: sample.labels ?? {}, value: Number(sample.value) }));
      const seen = new Set<string>();
      for (const one of series) {
        const key = labelKey(one.labels);
        expect(seen.has(key), `${family.name} has the series ${key} twice`).toBe(false);
        seen.add(key);
        if (one.value !== undefined) expect(Number.isNaN(one.value), `${family.name} ${key}`).toBe(false);
      }
      this.families.set(family.name, { name: family.name, help: family.help, type: family.type, series });
    }
  }

  family(name: string): Family {
    const family = this.families.get(name);
    if (family === undefined) throw new Error(`no family ${name} in the scrape`);
    return family;
  }

  /** The labels of every series of the family. */
  series(name: string): Record<string, string>[] {
    return this.family(name).series.map((one) => one.labels);
  }

  /** The value of the series with exactly these labels (undefined when there is none). */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    return this.family(name).series.find((one) => labelKey(one.labels) === labelKey(labels))?.value;
  }

  histogram(name: string, labels: Record<string, string>): HistogramValue | undefined {
    return this.family(name).series.find((one) => labelKey(one.labels) === labelKey(labels))?.histogram;
  }
}

/** The series of histogram `name` from its samples, each checked: cumulative buckets ending at +Inf = count. */
function histograms(name: string, samples: Map<string, { labels: Record<string, string>; value: number }[]>): Series[] {
  const byLabels = new Map<string, Series & { histogram: HistogramValue }>();
  const seriesOf = (labels: Record<string, string>) => {
    const key = labelKey(labels);
    let one = byLabels.get(key);
    if (one === undefined) byLabels.set(key, (one = { labels, histogram: { buckets: {}, count: NaN, sum: NaN } }));
    return one.histogram;
  };
  for (const { labels, value } of samples.get(`${name}_bucket`) ?? []) {
    const { le, ...rest } = labels;
    expect(le, `${name}_bucket without le`).toBeDefined();
    const histogram = seriesOf(rest);
    expect(histogram.buckets[le as string], `${name} bucket ${le} twice`).toBeUndefined();
    histogram.buckets[le as string] = value;
  }
  for (const { labels, value } of samples.get(`${name}_sum`) ?? []) seriesOf(labels).sum = value;
  for (const { labels, value } of samples.get(`${name}_count`) ?? []) seriesOf(labels).count = value;
  for (const [key, { histogram }] of byLabels) {
    const counts = Object.entries(histogram.buckets)
      .map(([le, count]) => [le === '+Inf' ? Infinity : Number(le), count] as const)
      .sort(([a], [b]) => a - b);
    counts.forEach(([, count], i) => {
      expect(count, `${name} ${key}`).toBeGreaterThanOrEqual(counts[i - 1]?.[1] ?? 0);
    });
    expect(counts.at(-1)?.[0], `${name} ${key} has a +Inf bucket`).toBe(Infinity);
    expect(counts.at(-1)?.[1], `${name} ${key}: +Inf bucket = count`).toBe(histogram.count);
    expect(Number.isNaN(histogram.sum), `${name} ${key} has a sum`).toBe(false);
  }
  return [...byLabels.values()];
}

/** Cumulative bucket counts of the documented duration histograms for these observations (seconds). */
export function durationBuckets(...seconds: number[]): Record<string, number> {
  const bounds = ['60', '300', '600', '900', '1800', '3600', '5400', '7200', '+Inf'];
  return Object.fromEntries(
    bounds.map((le) => [le, seconds.filter((value) => le === '+Inf' || value <= Number(le)).length]),
  );
}

export function histogramOf(...seconds: number[]): HistogramValue {
  return { buckets: durationBuckets(...seconds), count: seconds.length, sum: seconds.reduce((a, b) => a + b, 0) };
}

/** Plays one queue of `repo` and `branch` over the HTTP API, as `token`'s organization. */
export class Driver {
  constructor(
    readonly api: Api,
    readonly repo = REPO,
    readonly branch = 'main',
    readonly token: string = TOKENS.acme,
  ) {}

  body(extra: Record<string, unknown> = {}) {
    return { repo: this.repo, targetBranch: this.branch, ...extra };
  }

  async ok(path: string, extra: Record<string, unknown> = {}): Promise<unknown> {
    const response = await this.api.post(path, this.body(extra), this.token);
    expect(response.statusCode, `${path}: ${response.body}`).toBe(200);
    await this.api.engine.settle();
    return response.json();
  }

  create(settings: Record<string, unknown> = {}) {
    return this.ok('createQueue', { requiredStatuses: ['ci'], ...settings });
  }

  async submit(...numbers: number[]): Promise<void> {
    for (const number of numbers) await this.ok('submitPullRequest', { pr: { number } });
  }

  restart(number: number) {
    return this.ok('restartTestsOnPullRequest', { pr: { number } });
  }

  cancel(number: number) {
    return this.ok('cancelPullRequest', { pr: { number } });
  }

  async state(number: number): Promise<string> {
    return ((await this.ok('getSubmittedPullRequest', { pr: { number } })) as { state: string }).state;
  }

  /** Reports the required status on the run testing `number` now. */
  async report(number: number, state: 'success' | 'failure'): Promise<void> {
    const pr = (await this.ok('getSubmittedPullRequest', { pr: { number } })) as { state: string; testRunId: string };
    expect(pr.state, `PR #${number}`).toBe('TESTING');
    const run = (await this.ok('getMergeQueueTestingDetails', { testRunId: pr.testRunId })) as {
      testBranchSha: string;
    };
    const response = await this.api.post(
      'setCommitStatus',
      { repo: this.repo, sha: run.testBranchSha, context: 'ci', state },
      this.token,
    );
    expect(response.statusCode, response.body).toBe(200);
    await this.api.engine.settle();
  }

  pass(number: number) {
    return this.report(number, 'success');
  }

  fail(number: number) {
    return this.report(number, 'failure');
  }

  async advance(minutes: number): Promise<void> {
    this.api.clock.advanceBy(minutes * MINUTE);
    await this.api.engine.settle();
  }
}

export async function scrape(api: Api, query = '', token: string = TOKENS.acme): Promise<Exposition> {
  const response = await api.get(`getMergeQueueMetrics${query}`, token);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe(CONTENT_TYPE);
  return new Exposition(response.body);
}
