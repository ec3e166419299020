/**
 * What the line-up's view (view.ts) and the graph's speculation (graphSpeculation.ts) both ask of a failure on an
 * unsettled base: here, below both, so that neither imports the other.
 */
import { PR_IS } from '../../machines/index.js';
import type { BitSet } from './graph.js';
import { failureChance } from './lineSpeculation.js';
import type { PlanPullRequest } from './planner.js';

/**
 * Direct bases: whether a failure on an unsettled base is likelier the failed PR's own than that of the unsettled PRs
 * under it. Each PR of the base fails with its likelihood (one that failed already: for certain); the failed PR's own
 * chance is its likelihood. In a graph where a PR sits on top of many PRs still testing, the base is the likelier
 * cause: the PR stays in the bases of the PRs behind it (the likely outcome) until its base settles, instead of
 * resetting them now and again when the PR ahead fails.
 */
export function likelierItsOwn(
  pr: PlanPullRequest,
  lineup: readonly PlanPullRequest[],
  deps: readonly number[],
  unsettled: BitSet,
): boolean {
  const own = failureChance(pr);
  let basePasses = 1;
  for (const position of deps) {
    if (!unsettled.has(position)) continue;
    const dep = lineup[position] as PlanPullRequest;
    basePasses *= PR_IS.failing(dep.state) ? 0 : 1 - failureChance(dep);
    if (1 - basePasses > own) return false;
  }
  return true;
}
