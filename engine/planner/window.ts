/**
 * The adaptive window's rule (issue 22), pure: how many main-line runs may be in flight after a main-line run's
 * verdict. As Zuul's window it grows by one on each pass and shrinks on a failure that resets the runs behind it,
 * between the floor and `concurrency`; unlike Zuul's, a failure never shrinks it below the depth that the queue's own
 * failure rate still makes useful.
 *
 * Why: in predictive testing the run at depth k of the window is on top of the k − 1 runs ahead of it, and its result
 * is kept only if none of them fails, with chance (1 − q)^(k − 1) for a failure rate q per main-line run. A deeper
 * run adds throughput in that proportion, so shrinking the window below the depth where that chance is still large
 * costs time to merge (the halving rule lost 1.44× P50 in a 100-deep window), while the runs beyond it are nearly all
 * wasted. The useful depth is the deepest k whose chance of being kept is at least KEPT_CHANCE:
 * ln KEPT_CHANCE / ln(1 − q), at most `concurrency`. It does not cap growth: on passes the window grows to
 * `concurrency` as before.
 *
 * q is the share of failed main-line verdicts (every failure, reset or not) with a prior of one failure in twenty
 * runs, over about the last few hundred verdicts (both counts are halved past MEMORY). Until the queue has seen
 * EVIDENCE verdicts it knows nothing of its failure rate, and the window halves as Zuul's does.
 */

/** Main-line verdicts seen (decayed) and, of them, failures. */
export type VerdictCounts = [ended: number, failed: number];

/** A run's result must be kept with at least this chance for its depth to be worth keeping through a failure. */
export const KEPT_CHANCE = 1e-4;
/** Verdicts before the failure rate is trusted. */
export const EVIDENCE = 20;
/** Past this many verdicts both counts are halved, so the rate follows the queue as it changes. */
export const MEMORY = 256;
const PRIOR_RUNS = 20;
const PRIOR_FAILED = 1;

export interface WindowBounds {
  floor: number;
  concurrency: number;
}

/** The share of main-line verdicts that failed, smoothed by the prior. */
export function failureShareOf(counts: VerdictCounts | undefined): number {
  const [ended, failed] = counts ?? [0, 0];
  return (failed + PRIOR_FAILED) / (ended + PRIOR_RUNS);
}

/** The deepest window whose last run is kept with at least KEPT_CHANCE, for a failure rate q per run. */
export function usefulDepth(q: number): number {
  if (q <= 0) return Number.POSITIVE_INFINITY;
  if (q >= 1) return 1;
  return Math.max(1, Math.floor(1 + Math.log(KEPT_CHANCE) / Math.log(1 - q)));
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
 * are the verdicts before this one.
 */
export function nextWindow(current: number, bounds: WindowBounds, passed: boolean, resets: boolean, counts: VerdictCounts | undefined): number {
  const known = (counts?.[0] ?? 0) >= EVIDENCE;
  const useful = known ? usefulDepth(failureShareOf(counts)) : 0;
  let next = current;
  if (passed) next = Math.max(current + 1, useful);
  else if (resets) next = Math.max(Math.floor(current / 2), Math.min(current, useful));
  return Math.max(bounds.floor, Math.min(next, bounds.concurrency));
}
