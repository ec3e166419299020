/**
 * When each PR in a queue will merge: a pure Monte Carlo forecast from the queue's own state and history. Each trial
 * draws, for every PR, whether its run will fail (its failure likelihood) and, for every run, how long CI takes (a
 * duration this queue has seen, drawn at random; a run under way lasts at least what it has run so far), then plays
 * the queue forward as the engine runs it:
 *
 * - single mode: the PRs in queue order, in runs of `batchSize`, up to `concurrency` runs at once, each tested on top
 *   of those ahead. The head run's end decides: passing, its PRs merge; failing, its failing PRs leave, the others of
 *   its batch are tested again (bisection), and every run behind it, tested on top of a PR that failed, starts again;
 * - parallel mode: runs do not wait for one another (their lanes are independent); a failing PR leaves, the others
 *   of its run are tested again.
 *
 * A PR's estimate is the median and the 90th percentile of its merge time over the trials in which it merges.
 * Deterministic: the trials' random numbers come from a seed derived from the input.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export interface EstimatePr {
  number: number;
  /** The chance its run fails because of it (its failure likelihood, or the queue's failure rate). */
  failureP: number;
  /** The run testing it now and when that run started (ms), when it is being tested. */
  run?: { id: string; startedAt: number };
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
  /** Durations of CI runs this queue has seen (ms); with none there is no estimate. */
  runDurationsMs: number[];
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
}

/** The log-normal fitted to durations (mean and deviation of their logs; the deviation at least 0.15, 0.4 from one). */
function logNormalOf(durations: number[]): { mu: number; sigma: number } {
  const logs = durations.map((ms) => Math.log(Math.max(1, ms)));
  const mu = logs.reduce((sum, value) => sum + value, 0) / logs.length;
  if (logs.length < 2) return { mu, sigma: 0.4 };
  const variance = logs.reduce((sum, value) => sum + (value - mu) ** 2, 0) / (logs.length - 1);
  return { mu, sigma: Math.max(0.15, Math.sqrt(variance)) };
}

/** Φ, by Abramowitz and Stegun 7.1.26 (error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Φ⁻¹, by Acklam's rational approximation (relative error below 1.2e-9). */
function normalQuantile(p: number): number {
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
  const durations = input.runDurationsMs.filter((ms) => Number.isFinite(ms) && ms >= 0).sort((a, b) => a - b);
  if (durations.length === 0 || input.lineup.length === 0) return estimates;
  const random = generator(seedOf(input));
  const concurrency = Math.max(1, Math.floor(input.concurrency));
  const batchSize = Math.max(1, Math.round(input.batchSize));
  const fit = logNormalOf(durations);
  // A run's duration: log-normal as fitted to those seen; a run under way lasts at least what it has run so far.
  const draw = (atLeast: number) => {
    const from = atLeast <= 0 ? 0 : normalCdf((Math.log(atLeast) - fit.mu) / fit.sigma);
    const u = Math.min(1 - 1e-9, from + random() * (1 - from));
    return Math.max(atLeast, Math.exp(fit.mu + fit.sigma * normalQuantile(Math.max(1e-9, u))));
  };
  const merges = new Map<number, number[]>(input.lineup.map((pr) => [pr.number, []]));
  const trials = input.trials ?? 400;
  for (let trial = 0; trial < trials; trial++) {
    const bad = new Set(input.lineup.filter((pr) => random() < pr.failureP).map((pr) => pr.number));
    const groups = groupsOf(input.lineup, batchSize, input.now, draw);
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

/** Runs under way keep their PRs; the rest go in runs of `batchSize`, in order. */
function groupsOf(lineup: EstimatePr[], batchSize: number, now: number, draw: (atLeast: number) => number): Group[] {
  const groups: Group[] = [];
  const byRun = new Map<string, Group>();
  let open: Group | undefined;
  for (const pr of lineup) {
    if (pr.run !== undefined) {
      let group = byRun.get(pr.run.id);
      if (group === undefined) {
        group = { prs: [], startedAt: pr.run.startedAt, durationMs: draw(Math.max(0, now - pr.run.startedAt)) };
        byRun.set(pr.run.id, group);
        groups.push(group);
      }
      group.prs.push(pr);
      continue;
    }
    if (open === undefined || open.prs.length >= batchSize) {
      open = { prs: [], startedAt: null, durationMs: 0 };
      groups.push(open);
    }
    open.prs.push(pr);
  }
  return groups;
}

type Record = (prs: EstimatePr[], at: number) => void;

function start(group: Group, at: number, draw: (atLeast: number) => number): void {
  group.startedAt = at;
  group.durationMs = draw(0);
}

function playSingle(groups: Group[], bad: Set<number>, concurrency: number, now: number, draw: (atLeast: number) => number, record: Record): void {
  let t = now;
  const fill = () => {
    for (const group of groups.slice(0, concurrency)) if (group.startedAt === null) start(group, t, draw);
  };
  fill();
  while (groups.length > 0) {
    const head = groups[0]!;
    t = Math.max(t, head.startedAt! + head.durationMs);
    const good = head.prs.filter((pr) => !bad.has(pr.number));
    if (good.length === head.prs.length) {
      record(head.prs, t);
      groups.shift();
    } else {
      // The failing PRs leave; the rest of the batch is tested again, and so is every run behind (it had them under it).
      if (good.length === 0) groups.shift();
      else {
        // Bisection: the failed batch is halved until the failing PRs are found, a run per halving.
        const rounds = Math.max(1, Math.ceil(Math.log2(head.prs.length)));
        head.prs = good;
        start(head, t, draw);
        for (let round = 1; round < rounds; round++) head.durationMs += draw(0);
      }
      for (const group of groups) if (group !== head && group.startedAt !== null) group.startedAt = null;
    }
    fill();
  }
}

function playParallel(groups: Group[], bad: Set<number>, concurrency: number, now: number, draw: (atLeast: number) => number, record: Record): void {
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
    const next = running().reduce((first, group) => (group.startedAt! + group.durationMs < first.startedAt! + first.durationMs ? group : first));
    t = Math.max(t, next.startedAt! + next.durationMs);
    const good = next.prs.filter((pr) => !bad.has(pr.number));
    if (good.length === next.prs.length) {
      record(next.prs, t);
      groups.splice(groups.indexOf(next), 1);
    } else if (good.length === 0) groups.splice(groups.indexOf(next), 1);
    else {
      next.prs = good;
      start(next, t, draw);
    }
    fill();
  }
}
