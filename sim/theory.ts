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
 * The same for any batch size, splitting a group of n in halves of ⌈n/2⌉ and ⌊n/2⌋: every group is tested when its
 * parent failed, so the expected runs are 1 plus, over every group below the batch, the chance its parent fails.
 */
export function halvingRunsPerChange(p: number, batchSize: number): number {
  const below = (n: number): number => {
    if (n <= 1) return 0;
    const first = Math.ceil(n / 2);
    return 2 * (1 - (1 - p) ** n) + below(first) + below(n - first);
  };
  return (1 + below(batchSize)) / batchSize;
}

/**
 * Expected runs per change of bisection with `bisection_skip_redundant_tests`: the first half of a failed group is
 * tested first; if it passes, the second half is known to fail without a run (and a single PR known to fail is the
 * culprit); if it fails too, the second half is tested as a group of its own.
 *   U(n) = 1 + (1 − (1−p)^n) F(n)       (an untested group)
 *   F(n) = 1 + P_a (F(a) + U(c)) + (1 − P_a) F(c),  F(1) = 0     (a group known to fail, halves a and c)
 * where P_a = (1 − (1−p)^a) / (1 − (1−p)^n) is the chance the first half fails given that the group does.
 */
export function skipRedundantRunsPerChange(p: number, batchSize: number): number {
  const untested = (n: number): number => 1 + (1 - (1 - p) ** n) * knownFailing(n);
  const knownFailing = (n: number): number => {
    if (n <= 1) return 0;
    const a = Math.ceil(n / 2);
    const c = n - a;
    const firstFails = (1 - (1 - p) ** a) / (1 - (1 - p) ** n);
    return 1 + firstFails * (knownFailing(a) + untested(c)) + (1 - firstFails) * knownFailing(c);
  };
  return untested(batchSize) / batchSize;
}

/**
 * Runs per PR resolved of predictive testing with window w and full reset, when every PR fails with probability q
 * (a broken PR, or a flaky run): each round costs w runs and resolves (1 − (1−q)^w)/q PRs.
 */
export function fullResetRunsPerResolved(q: number, window: number): number {
  return window / predictiveResolvedPerRound(q, window);
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
