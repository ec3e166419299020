/**
 * Speculation by likelihood (`optimizationMode: speculate_by_likelihood`, issue 22). A PR likely to fail is tested
 * alone off the main line (a bisection of one, in the bisection pool, on the target branch) before its main-line
 * run starts, and the PRs behind it are predicted without it at once: if it fails, its failure resets nothing; if it
 * passes, it comes back to the main line as a PR a bisection found good (tested again on top of what is ahead of it
 * then, unless its pass still stands).
 *
 * It is worth it when the expected saving is larger than the cost. With likelihood p and n PRs behind it in the
 * window: without it, a failure resets n runs (p · n expected); with it, a pass costs one more run (1 − p). So a PR
 * is isolated when p · n > 1 − p, its likelihood is at least 1.5× the queue's failure share (the model must single
 * it out), and the CI budget (`speculationRunsPercent` of the PRs submitted so far, plus one) has room.
 */
import type { Decision, PlanPullRequest } from './planner.js';
import { hasQueueTag } from '../../machines/index.js';
import { prIs, type LineupView } from './view.js';

export function speculations(view: LineupView): Decision[] {
  const { settings, lineup, state, speculation } = view.input;
  if (settings.optimizationMode !== 'speculate_by_likelihood' || !hasQueueTag(state, 'startsWork') || speculation === undefined) return [];
  let allowance = speculation.allowance;
  if (allowance <= 0) return [];
  const runs = Math.min(settings.concurrency, view.input.window ?? settings.concurrency);
  const window = runs * (settings.batch ? settings.batchingMinSize : 1);
  // The main line as it will run: PRs not in a bisection, in order; the window holds the PRs of its first runs.
  const main: number[] = [];
  for (let at = 0; at < lineup.length && main.length < window; at++) {
    const pr = lineup[at] as PlanPullRequest;
    if (pr.group === null && !prIs(pr, 'failing')) main.push(at);
  }
  const decisions: Decision[] = [];
  main.forEach((at, index) => {
    const pr = lineup[at] as PlanPullRequest;
    const p = pr.likelihood ?? null;
    if (allowance <= 0 || p === null || pr.speculated === true || !prIs(pr, 'waiting') || pr.mergeRequested) return;
    const behind = main.length - index - 1;
    if (p * behind <= 1 - p || p < 1.5 * speculation.failureShare) return;
    decisions.push({ kind: 'isolate', pr: pr.number, likelihood: p, behind });
    allowance--;
  });
  return decisions;
}
