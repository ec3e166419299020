/**
 * What queueing theory predicts for the simplest queues; the simulator's tests check the engine against these
 * (test/sim/theory.test.ts, and sim/README.md for the derivations).
 */

/** Merges per hour of a single queue (one run at a time) that always has work, with every run taking T minutes. */
export function singleQueueMergesPerHour(ciMinutes: number): number {
  return 60 / ciMinutes;
}

/**
 * Expected runs per change of batching with bisection in halves: a batch of b = 2^k changes, each failing
 * independently with probability p, is tested once; every group that fails is split in two halves, each tested.
 *   c = [1 + Σ_{d=1..k} 2^d (1 − (1−p)^{b/2^(d−1)})] / b
 * (2^d groups at depth d, each tested when its parent, of b/2^(d−1) changes, failed).
 */
export function bisectionRunsPerChange(p: number, batchSize: number): number {
  const depth = Math.log2(batchSize);
  if (!Number.isInteger(depth) || depth < 0) throw new Error(`the batch size must be a power of two, not ${batchSize}`);
  let runs = 1;
  for (let d = 1; d <= depth; d++) runs += 2 ** d * (1 - (1 - p) ** (batchSize / 2 ** (d - 1)));
  return runs / batchSize;
}

/**
 * Expected PRs resolved (merged or kicked) per round of predictive testing with window w and full reset: the w PRs at
 * the head are tested at once, each on top of those ahead; the first failing one (at position J, geometric with
 * parameter p) is kicked, those before it merge, those after it are retested in the next round.
 *   E[min(J, w)] = Σ_{i=0..w−1} (1−p)^i = (1 − (1−p)^w) / p
 */
export function predictiveResolvedPerRound(p: number, window: number): number {
  return p === 0 ? window : (1 - (1 - p) ** window) / p;
}

/** The standard deviation of min(J, w) above, for a statistical tolerance. */
export function predictiveResolvedStdDev(p: number, window: number): number {
  let mean = 0;
  let square = 0;
  for (let j = 1; j <= window; j++) {
    const probability = j < window ? (1 - p) ** (j - 1) * p : (1 - p) ** (window - 1);
    mean += j * probability;
    square += j * j * probability;
  }
  return Math.sqrt(Math.max(0, square - mean * mean));
}
