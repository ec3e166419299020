/**
 * Speculation along the build graph (issue 28), with direct bases in parallel mode: a main-line run starts only on a
 * base that is likely to hold. Its chance of holding is the chance that every PR of its base not yet passed passes
 * (view.ts `holdChance`: each with one less its failure likelihood). A run that holds with chance h costs 1 / h runs
 * for each result that stands, so a run is started only when h ≥ 1 / RUNS_PER_RESULT: the runs spent per result stay
 * within RUNS_PER_RESULT, and the CI goes to the runs likeliest to stand first (the head of each chain, the PRs on
 * few unsettled PRs), not to runs deep behind a hot target that one failure among dozens would reset. A PR held back
 * starts once enough of its base has passed; nothing else changes (bases, merges, failures).
 */
import { PR_IS } from '../../machines/index.js';
import type { BitSet } from './graph.js';
import type { Decision, Plan, PlanPullRequest } from './planner.js';
import type { LineupView } from './view.js';

/** The most runs a result may cost on average: a run starts when its base holds with at least the inverse. */
export const RUNS_PER_RESULT = 2;

export function gateStarts(view: LineupView, plan: Plan): Plan {
  if (!view.direct) return plan;
  const decisions = plan.decisions.filter((decision: Decision) => {
    if (decision.kind !== 'startRun' || decision.runKind !== 'main') return true;
    const at = view.at(decision.prs[0] as number);
    return at === undefined || view.holdChance(at) >= 1 / RUNS_PER_RESULT;
  });
  return { ...plan, decisions };
}

/** A PR's chance of failing for want of a better estimate: the failure share the likelihood model starts from. */
export const PRIOR_FAILURE = 0.05;

/**
 * Direct bases: whether a failure on an unsettled base is likelier the failed PR's own than that of the unsettled PRs
 * under it. Each PR of the base fails with its likelihood (one that failed already: for certain); the failed PR's own
 * chance is its likelihood. In a graph where a PR sits on top of many PRs still testing, the base is the likelier
 * cause: the PR stays in the bases of the PRs behind it (the likely outcome) until its base settles, instead of
 * resetting them now and again when the PR ahead fails.
 */
export function likelierItsOwn(pr: PlanPullRequest, lineup: readonly PlanPullRequest[], deps: readonly number[], unsettled: BitSet): boolean {
  const own = pr.likelihood ?? PRIOR_FAILURE;
  let basePasses = 1;
  for (const position of deps) {
    if (!unsettled.has(position)) continue;
    const dep = lineup[position] as PlanPullRequest;
    basePasses *= PR_IS.failing(dep.state) ? 0 : 1 - (dep.likelihood ?? PRIOR_FAILURE);
    if (1 - basePasses > own) return false;
  }
  return true;
}
