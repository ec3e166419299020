/**
 * When each PR in a queue will merge: a pure Monte Carlo forecast from the queue's own state and history. Each trial
 * draws, for every PR, whether its run will fail (its failure likelihood) and, for every run, how long CI takes (from
 * the log-normal fitted to the durations this queue has seen, durations.ts, itself drawn within the fit's own
 * uncertainty once per trial, durationsDraw.ts; a run under way lasts at least what it has run so far), then plays
 * the queue forward as the engine runs it:
 *
 * - single mode: the PRs in queue order, in runs of `batchSize` (with `batching`, as the planner forms batches: up
 *   to its least size, and a batch short of it starts once its oldest PR has waited the longest wait), up to
 *   `concurrency` runs at once, each tested on top of those ahead. The head run's end decides: passing, its PRs
 *   merge; failing, a PR alone leaves, and a batch is bisected (bisectionEstimate.ts: halves tested on the target, a half that
 *   passes merges, one that fails is halved again), while every run behind it, tested on top of a PR that failed,
 *   starts again and merges after the bisection is over;
 * - parallel mode: runs do not wait for one another (their lanes are independent); a failing batch is bisected the
 *   same way.
 *
 * A PR's estimate is the median and the 90th percentile of its merge time over the trials in which it merges.
 * Deterministic: the trials' random numbers come from a seed derived from the input.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { fitDurations, normalCdf, normalQuantile } from './durations.js';
import { drawFit } from './durationsDraw.js';
import { type Draw, type Group, playParallel, playSingle } from './play.js';

export interface EstimatePr {
  number: number;
  /** The chance its run fails because of it (its failure likelihood, or the queue's failure rate). */
  failureP: number;
  /**
   * The run testing it and when that run started (ms), when it is being tested; `endedAt` when that run passed
   * already and the PR waits for those ahead (it merges with them, or is tested again if one of them fails).
   */
  run?: { id: string; startedAt: number; endedAt?: number };
  /** When it became ready (ms): a batch short of its least size waits from its oldest PR's. */
  readyAt?: number;
  /** In a bisection (off the main line): once its group passes there, it is tested again on the main line. */
  bisecting?: true;
}

export interface EstimateInput {
  now: number;
  parallel: boolean;
  /** How many runs of the main line test at once. */
  concurrency: number;
  /** PRs per run, as this queue's runs have held (1 without batching). */
  batchSize: number;
  /** The PRs ready in the queue, in queue order (the head first). */
  lineup: EstimatePr[];
  /** Durations of CI runs this queue has seen finish (ms); with none (and no `allTime`) there is no estimate. */
  runDurationsMs: number[];
  /** Runs cancelled before they finished: each lasted at least this (ms). */
  cancelledDurationsMs?: number[];
  /** Every run finished since the queue began: their mean and count. */
  allTime?: { meanMs: number; runs: number };
  /** The queue batches: a batch takes up to `minSize` PRs, and one short of it waits up to `maxWaitMs`. */
  batching?: { minSize: number; maxWaitMs: number };
  /** Trials (default 400). */
  trials?: number;
}

export interface MergeEstimate {
  /** Median and 90th percentile of when it merges (ms since the epoch). */
  at: number;
  p90: number;
}

/** A seeded uniform draw in [0, 1) (pure-rand, as the simulator's workloads use). */
function generator(seed: number): () => number {
  const source = xoroshiro128plus(seed | 0);
  return () => uniformFloat64(source);
}

function seedOf(input: EstimateInput): number {
  let hash = 2166136261;
  const mix = (value: number) => {
    hash = Math.imul(hash ^ (value & 0xffffffff), 16777619) >>> 0;
  };
  mix(input.now % 4294967296);
  for (const pr of input.lineup) mix(pr.number);
  return hash;
}

function quantile(sorted: number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

export function estimateMerges(input: EstimateInput): Map<number, MergeEstimate> {
  const estimates = new Map<number, MergeEstimate>();
  const fit = fitDurations({
    finishedMs: input.runDurationsMs,
    cancelledMs: input.cancelledDurationsMs ?? [],
    ...(input.allTime === undefined ? {} : { allTime: input.allTime }),
  });
  if (fit === undefined || input.lineup.length === 0) return estimates;
  const random = generator(seedOf(input));
  const concurrency = Math.max(1, Math.floor(input.concurrency));
  const batching = input.batching ?? { minSize: Math.max(1, Math.round(input.batchSize)), maxWaitMs: 0 };
  // A run's duration: log-normal as fitted to those seen (each trial drawing the fit's own uncertainty:
  // durationsDraw.ts); a run under way lasts at least what it has run so far.
  let trialFit = fit;
  const draw = (atLeast: number) => {
    const { mu, sigma } = trialFit;
    const from = atLeast <= 0 ? 0 : normalCdf((Math.log(atLeast) - mu) / sigma);
    const u = Math.min(1 - 1e-9, from + random() * (1 - from));
    return Math.max(atLeast, Math.exp(mu + sigma * normalQuantile(Math.max(1e-9, u))));
  };
  const merges = new Map<number, number[]>(input.lineup.map((pr) => [pr.number, []]));
  const trials = input.trials ?? 400;
  for (let trial = 0; trial < trials; trial++) {
    trialFit = drawFit(fit, random);
    // A PR whose run passed already fails only if tested again (a PR ahead failed): its draw stands for that retest.
    const bad = new Set(input.lineup.filter((pr) => random() < pr.failureP).map((pr) => pr.number));
    const groups = groupsOf(input.lineup, batching, input.now, draw);
    const record = (prs: EstimatePr[], at: number) => {
      for (const pr of prs) merges.get(pr.number)!.push(at);
    };
    if (input.parallel) playParallel(groups, bad, concurrency, input.now, draw, record);
    else playSingle(groups, bad, concurrency, input.now, draw, record);
  }
  for (const [number, times] of merges) {
    if (times.length === 0) continue;
    times.sort((a, b) => a - b);
    estimates.set(number, { at: quantile(times, 0.5), p90: quantile(times, 0.9) });
  }
  return estimates;
}

/**
 * Runs under way keep their PRs; the rest go in batches as the planner forms them (engine/planner/starts.ts): up to
 * the least size, and one short of it waits until its oldest PR has waited `maxWaitMs`.
 */
function groupsOf(
  lineup: EstimatePr[],
  batching: { minSize: number; maxWaitMs: number },
  now: number,
  draw: Draw,
): Group[] {
  const groups: Group[] = [];
  const byRun = new Map<string, Group>();
  let open: Group | undefined;
  for (const pr of lineup) {
    if (pr.run !== undefined) {
      let group = byRun.get(pr.run.id);
      if (group === undefined) {
        const { startedAt, endedAt } = pr.run;
        group = {
          prs: [],
          startedAt,
          durationMs: endedAt === undefined ? draw(Math.max(0, now - startedAt)) : endedAt - startedAt,
          notBefore: now,
        };
        if (endedAt !== undefined) group.passed = true;
        byRun.set(pr.run.id, group);
        groups.push(group);
      }
      group.prs.push(pr);
      if (pr.bisecting === true) group.retest = true;
      continue;
    }
    if (pr.bisecting === true) {
      // Waiting for its bisection run: tested there, then again on the main line.
      groups.push({ prs: [pr], startedAt: null, durationMs: 0, notBefore: now, retest: true });
      open = undefined;
      continue;
    }
    if (open === undefined || open.prs.length >= batching.minSize) {
      open = { prs: [], startedAt: null, durationMs: 0, notBefore: now };
      groups.push(open);
    }
    open.prs.push(pr);
  }
  for (const group of groups) {
    if (group.startedAt !== null || group.prs.length >= batching.minSize) continue;
    const oldest = Math.min(...group.prs.map((pr) => pr.readyAt ?? now));
    group.notBefore = Math.max(now, oldest + batching.maxWaitMs);
  }
  return groups;
}
