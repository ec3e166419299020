/**
 * What the engine keeps for metrics, written in the same store transaction as the state change it describes (so it
 * survives a crash or a restart exactly as the queue does):
 *
 * - `metricsLog` — one entry per observation (a PR concluded, a wait ended, a restart, a run started or finished),
 *   keyed by time: `[queueId, atMs, eventSeq, index]`. A scrape reads only the last hour by key range; every commit
 *   of the queue prunes entries older than the window, so the log holds about one hour of a queue's activity.
 * - `metricsPrs` — per enqueued PR, the clock of its current queue entry (time spent ready, time spent testing):
 *   `[queueId, prNumber]`, removed when the PR leaves the queue.
 * - `metricsTotals` — per queue, cumulative counters and histograms (the `greenline_*_total` families and the
 *   cumulative twins of the one-hour histograms): `[queueId]`. A record written before a counter or histogram
 *   existed reads it as 0 (so they count from the first transaction of a build that has them).
 */
import type { PullRequestState, TestRunStatus } from '../../machines/vocabulary.js';
import { BATCH_SIZE_BUCKETS, DURATION_BUCKETS } from './families.js';

/** The rolling window of the `_1h` families. An observation made exactly one hour ago is already out. */
export const WINDOW_MS = 3_600_000;

export const QUEUE_TYPES = ['main', 'bisection'] as const;
/** `bisection`: a PR or run in the bisection of a failed batch; `main`: everything else. */
export type QueueType = (typeof QUEUE_TYPES)[number];

export const CONCLUSIONS = ['merged', 'failed', 'cancelled'] as const;
export type Conclusion = (typeof CONCLUSIONS)[number];

export const RUN_ENDINGS = ['succeeded', 'failed', 'cancelled'] as const;
export type RunEnding = Exclude<TestRunStatus, 'in_progress'>;

export const RESCUES = ['retested', 'merged'] as const;
export type Rescue = (typeof RESCUES)[number];

/** One observation in the time-keyed log. Durations are milliseconds of the engine's clock. */
export type MetricsLogEntry =
  /**
   * A PR left the queue. `inQueueMs`: time spent in the queue in any state but NOT_READY (null when it never became
   * ready, or when its entry began before metrics were recorded); `testMs`: time spent TESTING (null when it never
   * tested, or unknown).
   */
  | { kind: 'concluded'; type: QueueType; conclusion: Conclusion; inQueueMs: number | null; testMs: number | null }
  /** A PR's wait ended: it started testing for the first time, or left the queue without ever testing. */
  | { kind: 'waited'; type: QueueType; waitMs: number }
  /** A PR went from TESTING back to PENDING. `type`: the kind of the run it was testing in. */
  | { kind: 'restarted'; type: QueueType }
  /** A test run started, testing `size` PRs. */
  | { kind: 'runStarted'; type: QueueType; size: number }
  /** A test run ended; `runMs` from its creation to its end. */
  | { kind: 'runFinished'; type: QueueType; status: RunEnding; runMs: number };

/** The clock of one PR's current queue entry. */
export interface PrClock {
  /** The queue entry (PullRequestRecord.id) this clock belongs to. */
  entryId: string;
  /** The state the PR has been in since `since` (ms). */
  state: PullRequestState;
  since: number;
  /** Time spent so far in the queue in any state but NOT_READY. */
  readyMs: number;
  /** Time spent so far in TESTING. */
  testMs: number;
  becameReady: boolean;
  tested: boolean;
  waitObserved: boolean;
  /**
   * False when the entry was already past NOT_READY when its clock started (it was submitted before this build
   * recorded metrics): its durations are unknown and not observed; its conclusion still counts.
   */
  complete: boolean;
}

type PerType<T> = Record<QueueType, T>;

/**
 * A cumulative histogram: observations per bucket (not cumulative: `counts[i]` holds the observations in bucket i,
 * the last one those above the largest bound) and their sum. It only grows, so rate() and increase() read it right.
 */
export interface HistogramTotals {
  counts: number[];
  sum: number;
}

const emptyHistogram = (bounds: readonly number[]): HistogramTotals => ({
  counts: new Array<number>(bounds.length + 1).fill(0),
  sum: 0,
});

/** Adds one observation. */
export function observeInto(histogram: HistogramTotals, bounds: readonly number[], value: number): void {
  const index = bounds.findIndex((bound) => value <= bound);
  histogram.counts[index < 0 ? bounds.length : index]! += 1;
  histogram.sum += value;
}

/** The same facts as the one-hour histograms (seconds) and the batch sizes (PRs per run), since the queue began. */
export interface HistogramSet {
  waitSeconds: HistogramTotals;
  testSeconds: HistogramTotals;
  timeInQueueSeconds: HistogramTotals;
  batchSize: HistogramTotals;
}

/** Cumulative counters of one queue, since it was created (or since metrics were first recorded for it). */
export interface MetricsTotals {
  runsStarted: PerType<number>;
  runsFinished: PerType<Record<RunEnding, number>>;
  runMs: PerType<Record<RunEnding, number>>;
  bisections: number;
  conclusions: PerType<Record<Conclusion, number>>;
  restarts: PerType<number>;
  optimisticMerges: number;
  directMerges: number;
  rescues: Record<Rescue, number>;
  quarantinedFailures: PerType<number>;
  histograms: PerType<HistogramSet>;
}

const perType = <T>(make: () => T): PerType<T> => ({ main: make(), bisection: make() });
const zeros = <K extends string>(keys: readonly K[]): Record<K, number> =>
  Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;

export function emptyTotals(): MetricsTotals {
  return {
    runsStarted: perType(() => 0),
    runsFinished: perType(() => zeros(RUN_ENDINGS)),
    runMs: perType(() => zeros(RUN_ENDINGS)),
    bisections: 0,
    conclusions: perType(() => zeros(CONCLUSIONS)),
    restarts: perType(() => 0),
    optimisticMerges: 0,
    directMerges: 0,
    rescues: zeros(RESCUES),
    quarantinedFailures: perType(() => 0),
    histograms: perType(() => ({
      waitSeconds: emptyHistogram(DURATION_BUCKETS),
      testSeconds: emptyHistogram(DURATION_BUCKETS),
      timeInQueueSeconds: emptyHistogram(DURATION_BUCKETS),
      batchSize: emptyHistogram(BATCH_SIZE_BUCKETS),
    })),
  };
}

/**
 * A stored totals record over the empty one: a record written by an older build lacks the counters added since,
 * and they read as 0. Every leaf that is not a finite number reads as 0.
 */
export function readTotals(stored: unknown): MetricsTotals {
  const fill = (template: unknown, value: unknown): unknown => {
    if (typeof template === 'number') return typeof value === 'number' && Number.isFinite(value) ? value : 0;
    if (Array.isArray(template))
      return template.map((inner, index) => fill(inner, Array.isArray(value) ? value[index] : undefined));
    const source = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    return Object.fromEntries(
      Object.entries(template as Record<string, unknown>).map(([key, inner]) => [key, fill(inner, source[key])]),
    );
  };
  return fill(emptyTotals(), stored) as MetricsTotals;
}
