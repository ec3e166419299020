/**
 * The adaptive window's rule (issue 22), pure: how many main-line runs may be in flight after a main-line run's
 * verdict. As Zuul's window it grows by one on each pass and halves on a failure that resets the runs behind it,
 * between the floor and `concurrency`; unlike Zuul's, a failure never shrinks it below the depth that what the queue
 * has seen so far still makes useful.
 *
 * Why: in predictive testing the run at depth k of the window is on top of the k − 1 runs ahead of it, and its result
 * is kept only if none of them fails: with chance (1 − q)^(k − 1) for a failure rate q per main-line run. With a
 * window cut at depth d the queue resolves Σ_{k ≤ d} (1 − q)^(k − 1) per CI round instead of 1/q: it gives up the
 * share (1 − q)^d of its throughput, which is the chance that the run at depth d + 1 is kept. The runs beyond the
 * useful depth, the deepest whose chance of being kept is at least KEPT_CHANCE, are then nearly all wasted, and
 * cutting them costs at most that share of throughput (1e-4: a queue loaded to within 1% of its capacity loses no
 * more than 1% of its time to merge). Above the useful depth the window saves runs freely; below it, it never goes.
 *
 * q is not known, only estimated from the queue's main-line verdicts, so the chance of being kept is taken over what
 * q may be given them (a Beta posterior: the prior of one failure in twenty runs plus the verdicts seen), not at a
 * point estimate: E[(1 − q)^(k − 1)] = B(α, β + k − 1) / B(α, β). With few verdicts the posterior leaves much weight on
 * low failure rates and the useful depth is large (the window does not shrink on the first failures, which cost a
 * 1.56× P50 to the halving rule in an overloaded queue); as verdicts accumulate it tends to the point estimate's.
 * Both counts are halved past MEMORY verdicts, so that the estimate follows the queue as it changes (and its
 * evidence weighs no more than MEMORY verdicts). The engine counts only verdicts on a settled base (adaptWindow in
 * engine/model/queues.ts): a run failing on top of a PR still testing may fail because of that PR.
 */
import { gammaln } from 'simple-statistics';

/** Main-line verdicts seen (decayed) and, of them, failures. */
export type VerdictCounts = [ended: number, failed: number];

/** A run's result must be kept with at least this chance for its depth to be worth keeping through a failure. */
export const KEPT_CHANCE = 1e-4;
/** Past this many verdicts both counts are halved, so the rate follows the queue as it changes. */
export const MEMORY = 256;
/** The prior on a run's failure rate: one failure in twenty runs, weighing as much as twenty verdicts. */
export const PRIOR_RUNS = 20;
export const PRIOR_FAILED = 1;

export interface WindowBounds {
  floor: number;
  concurrency: number;
}

/** The posterior's parameters: failures (α) and passes (β), prior included. */
function posteriorOf(counts: VerdictCounts | undefined): { alpha: number; beta: number } {
  const [ended, failed] = counts ?? [0, 0];
  return { alpha: failed + PRIOR_FAILED, beta: ended - failed + PRIOR_RUNS - PRIOR_FAILED };
}

/** The share of main-line verdicts that failed, smoothed by the prior (the posterior mean). */
export function failureShareOf(counts: VerdictCounts | undefined): number {
  const { alpha, beta } = posteriorOf(counts);
  return alpha / (alpha + beta);
}

/** ln of the chance, given the verdicts seen, that the run at `depth` is kept: the depth − 1 runs ahead all pass. */
export function logKeptChance(counts: VerdictCounts | undefined, depth: number): number {
  const { alpha, beta } = posteriorOf(counts);
  const ahead = depth - 1;
  if (ahead <= 0) return 0;
  return gammaln(beta + ahead) - gammaln(beta) + gammaln(alpha + beta) - gammaln(alpha + beta + ahead);
}

/**
 * The deepest window, up to `limit`, whose last run is kept with at least KEPT_CHANCE given the verdicts seen (the
 * chance falls with depth: a binary search).
 */
export function usefulDepth(counts: VerdictCounts | undefined, limit: number): number {
  const bound = Math.log(KEPT_CHANCE);
  if (logKeptChance(counts, limit) >= bound) return limit;
  let low = 1;
  let high = limit;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (logKeptChance(counts, middle) >= bound) low = middle;
    else high = middle;
  }
  return low;
}

/** The counts after one more verdict. */
export function countVerdict(counts: VerdictCounts | undefined, passed: boolean): VerdictCounts {
  let [ended, failed] = counts ?? [0, 0];
  ended++;
  if (!passed) failed++;
  if (ended > MEMORY) {
    ended /= 2;
    failed /= 2;
  }
  return [ended, failed];
}

/**
 * The window after a verdict. `resets`: a failure that reset main-line runs behind it (only those shrink it); `counts`
 * are the verdicts seen, this one included.
 */
export function nextWindow(
  current: number,
  bounds: WindowBounds,
  passed: boolean,
  resets: boolean,
  counts: VerdictCounts | undefined,
): number {
  const useful = usefulDepth(counts, Math.max(1, bounds.concurrency));
  let next = current;
  if (passed) next = Math.max(current + 1, useful);
  else if (resets) next = Math.max(Math.floor(current / 2), Math.min(current, useful));
  return Math.max(bounds.floor, Math.min(next, bounds.concurrency));
}
