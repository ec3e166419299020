/**
 * When each PR in a queue will merge: a pure Monte Carlo forecast from the queue's own state and history. Each trial
 * draws, for every PR, whether its run will fail (its failure likelihood) and, for every run, how long CI takes (a
 * duration this queue has seen, drawn at random; a run under way lasts at least what it has run so far), then plays
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
import { bisect } from './bisectionEstimate.js';
import { fitDurations, normalCdf } from './durations.js';

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

interface Group {
  prs: EstimatePr[];
  startedAt: number | null;
  durationMs: number;
  /** A batch short of its least size starts no sooner than this (ms). */
  notBefore: number;
  /** Its PRs are in a bisection: passing, they are tested again on the main line before they merge. */
  retest?: true;
  /** Its run passed already: it merges once those ahead have, unless one of them fails and it is tested again. */
  passed?: true;
}

/** Φ⁻¹, by Acklam's rational approximation (relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

function quantile(sorted: number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

export function estimateMerges(input: EstimateInput): Map<number, MergeEstimate> {
  const estimates = new Map<number, MergeEstimate>();
  const fit = fitDurations({ finishedMs: input.runDurationsMs, cancelledMs: input.cancelledDurationsMs ?? [], ...(input.allTime === undefined ? {} : { allTime: input.allTime }) });
  if (fit === undefined || input.lineup.length === 0) return estimates;
  const random = generator(seedOf(input));
  const concurrency = Math.max(1, Math.floor(input.concurrency));
  const batching = input.batching ?? { minSize: Math.max(1, Math.round(input.batchSize)), maxWaitMs: 0 };
  // A run's duration: log-normal as fitted to those seen; a run under way lasts at least what it has run so far.
  const draw = (atLeast: number) => {
    const from = atLeast <= 0 ? 0 : normalCdf((Math.log(atLeast) - fit.mu) / fit.sigma);
    const u = Math.min(1 - 1e-9, from + random() * (1 - from));
    return Math.max(atLeast, Math.exp(fit.mu + fit.sigma * normalQuantile(Math.max(1e-9, u))));
  };
  const merges = new Map<number, number[]>(input.lineup.map((pr) => [pr.number, []]));
  const trials = input.trials ?? 400;
  for (let trial = 0; trial < trials; trial++) {
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
function groupsOf(lineup: EstimatePr[], batching: { minSize: number; maxWaitMs: number }, now: number, draw: Draw): Group[] {
  const groups: Group[] = [];
  const byRun = new Map<string, Group>();
  let open: Group | undefined;
  for (const pr of lineup) {
    if (pr.run !== undefined) {
      let group = byRun.get(pr.run.id);
      if (group === undefined) {
        const { startedAt, endedAt } = pr.run;
        group = { prs: [], startedAt, durationMs: endedAt === undefined ? draw(Math.max(0, now - startedAt)) : endedAt - startedAt, notBefore: now };
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

type Draw = (atLeast: number) => number;
type Record = (prs: EstimatePr[], at: number) => void;

function start(group: Group, at: number, draw: Draw): void {
  group.startedAt = Math.max(at, group.notBefore);
  group.durationMs = draw(0);
}

const endOf = (group: Group) => group.startedAt! + group.durationMs;

/**
 * Single mode: the main line's runs start in order while fewer than `concurrency` are under way (a run that ended
 * frees its place at once, its PRs waiting for those ahead, as the planner counts only runs in progress), and a batch
 * still waiting holds back those behind it. The head's end decides: passing, its PRs merge, and so do those behind
 * whose runs ended already; failing, a PR alone leaves, a batch leaves the main line for its bisection, and every run
 * behind, tested on top of a PR that failed, starts again. Off the main line (the bisection pool) each group is
 * tested at once: a group that fails is halved again (a PR alone leaves), one that passes returns to the main line
 * behind the runs started there, to be tested again (in the simulator the PRs the main line took meanwhile stay
 * ahead of it).
 */
function playSingle(groups: Group[], bad: Set<number>, concurrency: number, now: number, draw: Draw, record: Record): void {
  let t = now;
  const line = groups.filter((group) => group.retest !== true);
  const offLine = groups.filter((group) => group.retest === true);
  const isGood = (group: Group) => group.passed === true || group.prs.every((pr) => !bad.has(pr.number));
  const bisected = (prs: EstimatePr[]) => {
    if (prs.length <= 1) return;
    const half = Math.ceil(prs.length / 2);
    for (const part of [prs.slice(0, half), prs.slice(half)]) offLine.push({ prs: part, startedAt: t, durationMs: draw(0), notBefore: t, retest: true });
  };
  for (const group of offLine) if (group.startedAt === null) start(group, t, draw);
  const running = (group: Group) => group.startedAt !== null && endOf(group) > t;
  const fill = () => {
    let slots = concurrency - line.filter(running).length;
    for (const group of line) {
      if (slots <= 0) break;
      if (group.startedAt !== null) continue;
      start(group, t, draw);
      slots--;
      if (group.startedAt! > t) break;
    }
  };
  while (line.length > 0 || offLine.length > 0) {
    for (const group of offLine.filter((candidate) => endOf(candidate) <= t)) {
      offLine.splice(offLine.indexOf(group), 1);
      if (!isGood(group)) bisected(group.prs);
      else {
        group.retest = undefined;
        group.startedAt = null;
        const at = line.findIndex((other) => other.startedAt === null);
        line.splice(at === -1 ? line.length : at, 0, group);
      }
    }
    fill();
    const head = line[0];
    if (head?.startedAt != null && endOf(head) <= t) {
      line.shift();
      if (isGood(head)) record(head.prs, t);
      else {
        bisected(head.prs);
        for (const group of line) {
          group.startedAt = null;
          group.passed = undefined;
        }
      }
      continue;
    }
    // The next run to end: the head's, one behind it (which frees its place), or one off the main line.
    const ends = [...line.filter(running), ...offLine].map(endOf).filter((end) => end > t);
    if (ends.length === 0) break;
    t = Math.min(...ends);
  }
}

/** Parallel mode: lanes are independent; each run's end decides for its PRs, a failed batch is bisected. */
function playParallel(groups: Group[], bad: Set<number>, concurrency: number, now: number, draw: Draw, record: Record): void {
  let t = now;
  const running = () => groups.filter((group) => group.startedAt !== null);
  const fill = () => {
    let slots = concurrency - running().length;
    for (const group of groups) {
      if (slots <= 0) break;
      if (group.startedAt === null) {
        start(group, t, draw);
        slots--;
      }
    }
  };
  fill();
  while (groups.length > 0) {
    const next = running().reduce((first, group) => (endOf(group) < endOf(first) ? group : first));
    t = Math.max(t, endOf(next));
    const passed = next.passed === true || next.prs.every((pr) => !bad.has(pr.number));
    if (passed && next.retest === true) {
      next.retest = undefined;
      start(next, t, draw);
      continue;
    }
    groups.splice(groups.indexOf(next), 1);
    if (passed) record(next.prs, t);
    else bisect(next.prs, bad, t, draw, record);
    fill();
  }
}
