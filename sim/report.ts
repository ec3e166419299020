/**
 * The figures of one configuration or baseline, from what became of its PRs and runs, and the report as a table.
 *
 * Counting: every PR that arrived is exactly one of merged, failed (kicked), cancelled (a run timed out) or
 * unfinished (still in the queue when the simulation ended: the drain period ran out, or the queue was saturated).
 * Time-to-merge is over every good PR that arrived, not only the merged ones (an overloaded queue must not look fast
 * for merging few): a merged PR counts its time from arrival to merge; one still queued at the end is censored (its
 * time to merge is at least its time in the queue, `endAt − arrivedAt`); one the queue kicked or cancelled never
 * merges (+∞). A percentile is exact when no censored time ranks at or below it; otherwise it is a lower bound, and
 * `censored` names it. CI cost counts every run started, cancelled ones included (a cancelled run used CI until it
 * was cancelled; a run still going at the end, until the end), and tells apart what cancelled runs cost (a run
 * cancelled because the PRs ahead of it changed, for instance). Runs per change are over the PRs resolved (merged,
 * failed or cancelled); for a batching configuration the report puts beside them the closed form of bisection in
 * halves at the scenario's broken rate (sim/theory.ts): what a batch of the configuration's size costs alone.
 */
import { DEFAULT_SETTINGS, type QueuePatch } from '../engine/model/queues.js';
import type { PrOutcome, QueueOutcome } from './queueRun.js';
import type { Scenario } from './scenario.js';
import { halvingRunsPerChange, skipRedundantRunsPerChange } from './theory.js';
import { hasPullRequestTag, hasTestRunTag } from '../machines/index.js';
import { isEnqueued } from '../machines/vocabulary.js';

export const PERCENTILES = ['p50', 'p90', 'p99'] as const;
export type PercentileName = (typeof PERCENTILES)[number];
const RANKS: Record<PercentileName, number> = { p50: 50, p90: 90, p99: 99 };

export interface Percentiles {
  /** Minutes; null when the PR at this rank never merged (kicked or cancelled), or when no good PR arrived. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
  /** The percentiles that are lower bounds: a PR still queued at the end ranks at or below them. */
  censored: PercentileName[];
}

export interface ConfigReport {
  name: string;
  /** The updateQueue settings the queue ran with (absent for the oracle, which is no queue). */
  settings?: QueuePatch;
  submitted: number;
  merged: number;
  failed: number;
  cancelled: number;
  unfinished: number;
  /** The queue grew past the scenario's saturationDepth and its simulation stopped there (`simulatedHours`). */
  saturated: boolean;
  mergedPerHour: number;
  /** Minutes from arrival to merge, over every good PR that arrived. */
  timeToMerge: Percentiles;
  ciRuns: number;
  ciMinutes: number;
  ciRunsPerMerged: number | null;
  /** Runs per PR resolved (merged, failed or cancelled). */
  ciRunsPerChange: number | null;
  /** Runs cancelled before their verdict, counted in ciRuns, and the CI minutes they used. */
  cancelledRuns: number;
  cancelledRunMinutes: number;
  /** A batching configuration: the expected runs per change of bisection in halves (closed form), else null. */
  closedFormRunsPerChange: number | null;
  /** Good PRs that were kicked (by flaky runs). */
  goodKicked: number;
  /** Broken PRs that reached the target branch. */
  brokenMerged: number;
  /** The most PRs in the queue at once. */
  maxDepth: number;
  /** From the start until the queue emptied after the last arrival, the end of the drain period, or saturation. */
  simulatedHours: number;
  /** Inputs the engine processed (0 for the oracle). */
  events: number;
}

export interface SimulationReport {
  scenario: Scenario;
  configs: ConfigReport[];
  oracle: ConfigReport;
  singleQueue: ConfigReport;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** One good PR's time to merge (minutes): exact, censored (a lower bound), or +∞ (it never merged). */
export interface MergeTime {
  number: number;
  minutes: number;
  censored: boolean;
}

/**
 * The time to merge of every good PR, in increasing order (at equal times exact ones first): exact when it merged;
 * censored when it was still queued at the end (at `endAt − arrivedAt`), or when it could merge no sooner than
 * `mergesNotBefore` (the oracle); +∞ when it was kicked or cancelled.
 */
export function mergeTimes(outcome: QueueOutcome): MergeTime[] {
  const times = outcome.prs
    .filter((pr) => !pr.broken)
    .map((pr): MergeTime => {
      const since = (at: number) => Math.max(0, at - pr.arrivedAt) / MINUTE_MS;
      if (hasPullRequestTag(pr.state, 'merged') && pr.leftAt !== null)
        return { number: pr.number, minutes: since(pr.leftAt), censored: false };
      if (pr.mergesNotBefore !== undefined)
        return { number: pr.number, minutes: since(Math.min(pr.mergesNotBefore, outcome.endAt)), censored: true };
      if (pr.leftAt === null) return { number: pr.number, minutes: since(outcome.endAt), censored: true };
      return { number: pr.number, minutes: Infinity, censored: false };
    });
  return times.sort((a, b) => a.minutes - b.minutes || Number(a.censored) - Number(b.censored) || a.number - b.number);
}

/**
 * Nearest-rank percentile of sorted times, and whether it is a lower bound (a censored time ranks at or below it: its
 * true value may be higher and push the rank to a later time). null: the rank falls on a PR that never merged, or
 * there is no time at all.
 */
export function percentileOf(sorted: readonly MergeTime[], p: number): { minutes: number | null; censored: boolean } {
  if (sorted.length === 0) return { minutes: null, censored: false };
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  const at = sorted[rank - 1] as MergeTime;
  if (at.minutes === Infinity) return { minutes: null, censored: false };
  return { minutes: at.minutes, censored: sorted.slice(0, rank).some((time) => time.censored) };
}

/** The report's percentiles of sorted times (rounded to 0.1 minute). */
export function percentilesOf(sorted: readonly MergeTime[]): Percentiles {
  const result: Percentiles = { p50: null, p90: null, p99: null, censored: [] };
  for (const name of PERCENTILES) {
    const { minutes, censored } = percentileOf(sorted, RANKS[name]);
    result[name] = minutes === null ? null : round(minutes, 1);
    if (censored) result.censored.push(name);
  }
  return result;
}

/**
 * Depth changes in time order: +1 at each arrival, −1 when a PR leaves (leaving first at equal times); PRs that
 * arrived after `until` (a saturated queue's end) are left out: the queue never held them.
 */
export function depthSteps(prs: readonly PrOutcome[], until = Infinity): { at: number; delta: number }[] {
  const steps: { at: number; delta: number }[] = [];
  for (const pr of prs) {
    if (pr.arrivedAt > until) continue;
    steps.push({ at: pr.arrivedAt, delta: 1 });
    if (pr.leftAt !== null) steps.push({ at: pr.leftAt, delta: -1 });
  }
  return steps.sort((a, b) => a.at - b.at || a.delta - b.delta);
}

export function maxDepthOf(prs: readonly PrOutcome[], until = Infinity): number {
  let depth = 0;
  let max = 0;
  for (const step of depthSteps(prs, until)) {
    depth += step.delta;
    max = Math.max(max, depth);
  }
  return max;
}

/**
 * The closed form of bisection in halves for a batching configuration, at the scenario's broken rate: plain halving,
 * or the first half first with `bisection_skip_redundant_tests`. Null for a configuration that does not batch.
 */
export function closedFormOf(scenario: Pick<Scenario, 'brokenRate'>, settings: QueuePatch | undefined): number | null {
  if (settings?.batch !== true) return null;
  const size = settings.batchingMinSize ?? DEFAULT_SETTINGS.batchingMinSize;
  const skip = settings.optimizationMode === 'bisection_skip_redundant_tests';
  return round((skip ? skipRedundantRunsPerChange : halvingRunsPerChange)(scenario.brokenRate, size), 4);
}

export function summarise(
  name: string,
  outcome: QueueOutcome,
  settings?: QueuePatch,
  scenario?: Pick<Scenario, 'brokenRate'>,
): ConfigReport {
  const { prs, runs } = outcome;
  const count = (predicate: (pr: PrOutcome) => boolean) => prs.filter(predicate).length;
  const merged = count((pr) => hasPullRequestTag(pr.state, 'merged'));
  const resolved = count((pr) => !isEnqueued(pr.state));
  const simulatedHours = outcome.endAt / HOUR_MS;
  const minutesOf = (list: typeof runs) =>
    list.reduce((sum, run) => sum + (run.endedAt - run.startedAt), 0) / MINUTE_MS;
  const ciMinutes = minutesOf(runs);
  const cancelledRuns = runs.filter((run) => hasTestRunTag(run.status, 'cancelled'));
  return {
    name,
    ...(settings === undefined ? {} : { settings }),
    submitted: prs.length,
    merged,
    failed: count((pr) => hasPullRequestTag(pr.state, 'kicked')),
    cancelled: count((pr) => hasPullRequestTag(pr.state, 'cancelled')),
    unfinished: count((pr) => pr.leftAt === null),
    saturated: outcome.saturated,
    mergedPerHour: simulatedHours > 0 ? round(merged / simulatedHours, 3) : 0,
    timeToMerge: percentilesOf(mergeTimes(outcome)),
    ciRuns: runs.length,
    ciMinutes: round(ciMinutes, 1),
    ciRunsPerMerged: merged > 0 ? round(runs.length / merged, 3) : null,
    ciRunsPerChange: resolved > 0 ? round(runs.length / resolved, 3) : null,
    cancelledRuns: cancelledRuns.length,
    cancelledRunMinutes: round(minutesOf(cancelledRuns), 1),
    closedFormRunsPerChange: scenario === undefined ? null : closedFormOf(scenario, settings),
    goodKicked: count((pr) => !pr.broken && hasPullRequestTag(pr.state, 'kicked')),
    brokenMerged: count((pr) => pr.broken && hasPullRequestTag(pr.state, 'merged')),
    maxDepth: maxDepthOf(prs, outcome.endAt),
    simulatedHours: round(simulatedHours, 3),
    events: outcome.events,
  };
}
