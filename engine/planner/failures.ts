/**
 * Results that no longer hold, and failures that are ready to be acted on, as the failure policy says
 * (failurePolicy.ts: the rule for bisecting, kicking and retesting, stated there once).
 */
import { vouchedFor } from './mergeDecisions.js';
import type { Decision } from './planner.js';
import { hasQueueTag, PR_IS } from '../../machines/index.js';
import { failedSetOf, type LineupView } from './view.js';
import { awaitsRunsBehind, bisects, retestOrKick } from './failurePolicy.js';

export function invalidations(view: LineupView): Decision[] {
  const decisions: Decision[] = [];
  const cancelled = new Set<string>();
  const cancel = (runId: string, reason: string) => {
    if (cancelled.has(runId)) return;
    cancelled.add(runId);
    decisions.push({ kind: 'cancelRun', runId, reason });
  };
  /** The run each PR in the line-up is being tested by, as the line-up says (a PR is in the line-up once). */
  const testedBy = new Map<number, string>();
  view.input.lineup.forEach((pr, at) => {
    if (PR_IS.testing(pr.state) && pr.runId !== null) testedBy.set(pr.number, pr.runId);
    if (!PR_IS.hasResult(pr.state) || view.holdsAt(at) || view.waitsAt(at)) return;
    const reason = 'the pull requests ahead of it changed';
    if (PR_IS.testing(pr.state) && pr.runId !== null) cancel(pr.runId, reason);
    else decisions.push({ kind: 'requeue', pr: pr.number, reason: `retesting: ${reason}` });
  });
  for (const run of view.input.activeRuns) {
    const orphaned = run.prs.some((number) => testedBy.get(number) !== run.id);
    if (orphaned) cancel(run.id, 'a pull request it tested left the queue');
  }
  return decisions;
}

export function resolutions(view: LineupView): Decision[] {
  const { lineup } = view.input;
  const decisions: Decision[] = [];
  const seen = new Set<string>();
  lineup.forEach((pr, at) => {
    if (!PR_IS.failing(pr.state) || !view.holdsAt(at)) return;
    const set = failedSetOf(pr);
    if (seen.has(set)) return;
    seen.add(set);
    // Its failure is its own only once nothing it was tested on top of can still fail.
    if (!view.settledAt(at)) return;
    if (bisects(view.failedSets.get(set) ?? 1)) {
      const prs = lineup
        .filter((other) => PR_IS.failing(other.state) && failedSetOf(other) === set)
        .map((other) => other.number);
      decisions.push({ kind: 'bisect', prs, basePrs: [...view.expected(at)], bisectionId: pr.bisectionId });
      return;
    }
    const decision = failedAlone(view, at);
    if (decision !== undefined) decisions.push(decision);
  });
  return decisions;
}

/** A PR that failed alone on a settled base: kicked, retested once, or left to wait for what is still to come. */
function failedAlone(view: LineupView, at: number): Decision | undefined {
  const { settings, lineup, activeRuns, state } = view.input;
  const pr = lineup[at]!;
  // The PRs ahead of it merge first.
  if (view.expected(at).length > 0) return undefined;
  // A passing run behind it that contained it vouches for it: the merge phase takes it.
  if (settings.canOptimisticallyMerge && vouchedFor(view, pr.number) !== undefined) return undefined;
  if (awaitsRunsBehind(pr, settings) && pr.group === null) {
    const runBehindContainsIt = activeRuns.some((run) =>
      run.prs.some((number) => lineup[view.at(number) ?? -1]?.testedBase?.includes(pr.number) === true),
    );
    const moreCanStart =
      hasQueueTag(state, 'startsWork') &&
      lineup.some(
        (behind, behindAt) =>
          behindAt > at && PR_IS.waiting(behind.state) && behind.group === null && view.dependsOn(behindAt, pr.number),
      );
    if (runBehindContainsIt || moreCanStart) return undefined;
  }
  return { kind: retestOrKick(pr, settings), pr: pr.number };
}
