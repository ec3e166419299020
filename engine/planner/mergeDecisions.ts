/**
 * One merge at a time (each moves the target branch the next one builds on), of the first PR with nothing it
 * depends on left ahead of it: the head of the main line in single mode, the head of any lane in parallel mode. PRs
 * in a bisection never merge from there: a group that passes returns to the main line first.
 */
import type { Decision, PlanPullRequest } from './planner.js';
import { hasQueueTag, PR_IS } from '../../machines/index.js';
import type { LineupView } from './view.js';

export function merges(view: LineupView): Decision[] {
  const { lineup, state, settings } = view.input;
  if (!hasQueueTag(state, 'merges') || lineup.some((pr) => pr.mergeRequested)) return [];
  // Only a passed PR merges, unless optimistic merge (a PR vouched for) or direct merge (a PR waiting) may.
  const direct = settings.directMergeMode === 'always' && hasQueueTag(state, 'startsWork');
  const mayMerge = (pr: PlanPullRequest) =>
    PR_IS.passed(pr.state) ||
    (settings.canOptimisticallyMerge && view.canBeVouched(pr.number)) ||
    (direct && PR_IS.waiting(pr.state) && pr.upToDate);
  for (let at = 0; at < lineup.length; at++) {
    const pr = lineup[at] as PlanPullRequest;
    if (pr.group !== null || !mayMerge(pr) || view.aheadCount(at) > 0) continue;
    const decision = mergeOf(view, pr, at);
    if (decision !== undefined) return [decision];
  }
  return [];
}

function mergeOf(view: LineupView, head: PlanPullRequest, at: number): Decision | undefined {
  const { settings, state, activeRuns } = view.input;
  if (view.passed(head, at)) return { kind: 'merge', pr: head.number };
  const voucher = settings.canOptimisticallyMerge ? vouchedFor(view, head.number) : undefined;
  if (voucher !== undefined) return { kind: 'merge', pr: head.number, vouchedBy: voucher.runId ?? undefined };
  const testing = activeRuns.some((run) => run.prs.includes(head.number));
  if (
    settings.directMergeMode === 'always' &&
    hasQueueTag(state, 'startsWork') &&
    PR_IS.waiting(head.state) &&
    head.upToDate &&
    !testing
  ) {
    return { kind: 'merge', pr: head.number, direct: true };
  }
  return undefined;
}

/** The run of a passing PR behind `number` whose tested base contains it, if optimistic merge may use one. */
export function vouchedFor(view: LineupView, number: number): PlanPullRequest | undefined {
  const { lineup } = view.input;
  const at = view.at(number) ?? 0;
  for (let behindAt = at + 1; behindAt < lineup.length; behindAt++) {
    const behind = lineup[behindAt] as PlanPullRequest;
    if (view.passed(behind, behindAt) && view.unmerged(behind.testedBase ?? []).includes(number)) return behind;
  }
  return undefined;
}
