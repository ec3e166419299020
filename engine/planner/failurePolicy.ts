/**
 * The failure policy: the rule for bisecting, kicking and retesting a failure, stated once. Its facts are the PR
 * machine's context (machines/pullRequestContext.ts: the runs behind it that ended and failed, its anti-flake
 * retests), read through the planner's input; the line-up's view (view.ts) and the phase that acts on failures
 * (failures.ts) ask these functions and state none of the rule themselves.
 *
 * A failure is acted on only once its base is settled (every PR under it passed): until then the PR ahead may be its
 * cause. Then a failed set of several PRs is bisected off the main line; a PR that failed alone is kicked, unless
 * anti-flake protection (`pendingFailureDepth` N ≥ 1) gives it more chances. The rule: it is kicked once N + 1
 * further runs that contained it failed, and none passed.
 * - The PRs behind it are tested on top of it until N runs behind it ended; a passing one vouches for it with
 *   `canOptimisticallyMerge` (it merges).
 * - Then, or at once when nothing behind it can vouch for it (the last PR of the queue, the head of a lane, a
 *   culprit found by bisection), it leaves the main line and is retested alone in the bisection pool, until N + 1
 *   further runs failed. The PRs behind it go on without it meanwhile; if a retest passes, it comes back behind the
 *   runs in progress, as a PR a bisection found good. A flake that fails 5% of runs then kicks a good PR about once
 *   in 8,000 of its failures, where one more run would kick one in 20. Without optimistic merge a passing run behind
 *   it cannot vouch for it, but does not count against it either.
 */
import type { QueueSettings } from '../model/queues.js';

/** What the rule reads of a failing PR: its machine's counters. */
export interface FailureFacts {
  runsBehindEnded: number;
  runsBehindFailed: number;
  failureRetests: number;
}

type FailureSettings = Pick<QueueSettings, 'pendingFailureDepth' | 'canOptimisticallyMerge'>;

/** A failed set of several PRs is bisected; a PR that failed alone is judged by the rest of the rule. */
export function bisects(setSize: number): boolean {
  return setSize > 1;
}

/** Whether the runs behind a PR that failed alone are still to vouch for it: fewer than N of them ended. */
export function awaitsRunsBehind(pr: Pick<FailureFacts, 'runsBehindEnded'>, settings: FailureSettings): boolean {
  return settings.pendingFailureDepth > 0 && pr.runsBehindEnded < settings.pendingFailureDepth;
}

/**
 * Whether the PRs behind a PR that failed alone are tested on top of it (else it is doomed: they are predicted
 * without it): while runs behind it are still to vouch for it, or while a pass on top of it may (`vouchable`).
 */
export function testedOnBehind(pr: FailureFacts, settings: FailureSettings, vouchable: () => boolean): boolean {
  if (settings.pendingFailureDepth === 0) return false;
  return awaitsRunsBehind(pr, settings) || (settings.canOptimisticallyMerge && vouchable());
}

/** The further runs that contained it and failed: runs behind it since its last failure, and its retests before. */
export function failuresAgainst(pr: FailureFacts): number {
  return pr.runsBehindFailed + pr.failureRetests;
}

/**
 * A PR that failed alone on a settled base, which nothing behind it vouches for or is still to: tested alone once
 * more while fewer than N + 1 further runs failed, else kicked.
 */
export function retestOrKick(pr: FailureFacts, settings: FailureSettings): 'retest' | 'kick' {
  const depth = settings.pendingFailureDepth;
  return depth > 0 && failuresAgainst(pr) < depth + 1 ? 'retest' : 'kick';
}
