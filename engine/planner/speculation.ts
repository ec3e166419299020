/**
 * Speculation by likelihood (`optimizationMode: speculate_by_likelihood`, issue 22). A PR likely to fail is tested
 * alone off the main line (a bisection of one, in the bisection pool, on the target branch) before its main-line
 * run starts, and the PRs behind it are predicted without it at once: if it fails, its failure resets nothing; if it
 * passes, it comes back to the main line as a PR a bisection found good (tested again on top of what is ahead of it
 * then, unless its pass still stands).
 *
 * It is worth it when the expected saving is larger than the cost. With likelihood p and n PRs behind it in the
 * window: without it, a failure resets n runs (p · n expected); with it, a pass costs one more run (1 − p). So a PR
 * is isolated when p · n > 1 − p, its likelihood is at least the queue's failure share (the model says it is likelier
 * to fail than the queue's average PR), and the CI budget (`speculationRunsPercent` of the PRs submitted so far, plus
 * one) has room. In a deep window p · n > 1 − p holds for nearly every PR, so the budget goes to the PRs the model
 * singles out. The bar was 1.5× the failure share: on the speculation bench (seed 1) it left most broken PRs in the
 * main line (c20 batches of 4, budget 25 %: 29.9 merged/h; at 1×, 49.5; at 2.5×, 30.4; with no bar, 40.4, the budget
 * spent on PRs likelier to pass).
 */
import type { Decision, PlanPullRequest } from './planner.js';
import { hasQueueTag, PR_IS } from '../../machines/index.js';
import type { LineupView } from './view.js';

export function speculations(view: LineupView): Decision[] {
  const { settings, lineup, state, speculation } = view.input;
  if (
    settings.optimizationMode !== 'speculate_by_likelihood' ||
    !hasQueueTag(state, 'startsWork') ||
    speculation === undefined
  )
    return [];
  let allowance = speculation.allowance;
  if (allowance <= 0) return [];
  const runs = Math.min(settings.concurrency, view.input.window ?? settings.concurrency);
  const window = runs * (settings.batch ? settings.batchingMinSize : 1);
  // The main line as it will run: PRs not in a bisection, in order; the window holds the PRs of its first runs.
  const main: number[] = [];
  for (let at = 0; at < lineup.length && main.length < window; at++) {
    const pr = lineup[at] as PlanPullRequest;
    if (pr.group === null && !PR_IS.failing(pr.state)) main.push(at);
  }
  const decisions: Decision[] = [];
  main.forEach((at, index) => {
    const pr = lineup[at] as PlanPullRequest;
    const p = pr.likelihood ?? null;
    if (allowance <= 0 || p === null || pr.speculated === true || !PR_IS.waiting(pr.state) || pr.mergeRequested) return;
    const behind = main.length - index - 1;
    if (p * behind <= 1 - p || p < speculation.failureShare) return;
    decisions.push({ kind: 'isolate', pr: pr.number, likelihood: p, behind });
    allowance--;
  });
  return decisions;
}
