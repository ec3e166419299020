/**
 * Speculation along the build graph in a coupled line (issue 28; parallel mode with direct bases). A hot target makes
 * one line of the PRs that touch it: each is tested on top of every one ahead of it still testing. Optimistically
 * (everything ahead passes) one broken PR resets every run behind it, so a line of n PRs in flight resolves about
 * 1/q of them per CI round for a failure share q, whatever the concurrency.
 *
 * The outcomes of a PR j ahead are two: j passes, or j fails. A run of a PR k behind it can rest on one of them only:
 * on j (the likely outcome) or without it (the alternative). Both are tested, for one extra run: k is tested without
 * j first (alone, on the target branch, in the bisection pool: a speculation of one), while j's own run says which
 * outcome is true. If j fails, nothing behind it resets: k was tested without it. If j passes, k goes back to the line
 * behind the runs in progress (transaction/bisectionMoves.ts `rescue`) and is tested on top of the PRs ahead of it then; its pass alone
 * merges as it is when nothing it overlaps merged or is left ahead of it meanwhile. Merges are unchanged: each is
 * exactly the tree its deciding run tested, every merge touching a target on top of every earlier merge touching it.
 *
 * j is a suspect of k while its outcome is open: it has neither passed nor passed alone. A PR that passed alone is not
 * certain to pass on top of the others (a conflict with a PR ahead that a run of it alone does not see), but far
 * likelier to: its chance of failing is its likelihood less what the pass says (`failureChance`), and the runs behind
 * it rest on it, started as on any base likely to hold (graphSpeculation.ts). So a line becomes a pipeline of PRs that
 * passed alone, each tested on top of the others, in which a failure resets nothing: the PR at its head runs
 * optimistically, the PRs arriving while its outcome is open are tested alone first.
 *
 * Measured against other rules on the busy monorepo (bench/pressureProfile.ts, 3 h, seed 1, runs per merge and P50):
 * a PR tested alone first when its likelihood p times its line's depth n outweighs the run, p · n > (1 − p) · c, with
 * c = 1: 3.14 and 100 min; c = 0.5: 2.70 and 79; c = 0.25: 2.32 and 62; c = 0 (any PR with a PR ahead not passed):
 * 2.14 and 52; with two or three suspects allowed in a base: 2.28 and 2.27; this rule (one): 2.07 and 48. A PR left
 * on a suspect's outcome is reset with the suspect's chance, and so are the PRs that then rest on it: the cost grows
 * with every open outcome a base holds, not with one PR's.
 */
import { hasQueueTag, PR_IS } from '../../machines/index.js';
import type { Decision, PlanPullRequest } from './planner.js';
import type { LineupView } from './view.js';

/** A PR's chance of failing for want of a better estimate: the failure share the likelihood model starts from. */
export const PRIOR_FAILURE = 0.05;

/**
 * The chance that a run passes with a change that fails on top of the PRs ahead (a conflict a run of it alone does
 * not see). A pass alone multiplies the odds that a PR fails in its line by it.
 */
export const PASS_ALONE_MISS = 0.1;

/** Whether the PR passed a run of its own, alone on the target branch, and is back in its line. */
export const passedAlone = (pr: PlanPullRequest): boolean => pr.speculated === true && pr.group === null;

/** The chance that the PR fails in its line: its likelihood, less what a pass alone says of it. */
export function failureChance(pr: PlanPullRequest): number {
  const p = pr.likelihood ?? PRIOR_FAILURE;
  if (!passedAlone(pr)) return p;
  const odds = (p / (1 - p)) * PASS_ALONE_MISS;
  return odds / (1 + odds);
}

/**
 * The PRs to test alone first: those waiting whose base holds a suspect, a PR ahead it depends on whose outcome is
 * still open (it has neither passed nor passed alone). Its order in the line-up is kept, so the most likely outcome
 * (every PR ahead passes) is still tested first by the runs of the PRs that have none.
 */
export function lineSpeculations(view: LineupView): Decision[] {
  const { lineup, state } = view.input;
  if (!view.direct || !hasQueueTag(state, 'startsWork')) return [];
  for (let at = 0; at < lineup.length; at++) {
    const pr = lineup[at] as PlanPullRequest;
    if (!PR_IS.waiting(pr.state) || pr.group !== null || pr.mergeRequested || pr.speculated === true) continue;
    const suspects = view.unsettledAhead(at, isSuspect);
    // One at a time: the PRs behind an isolated PR are then predicted without it, and may have no suspect left.
    if (suspects > 0)
      return [{ kind: 'isolate', pr: pr.number, likelihood: failureChance(pr), behind: suspects, line: true }];
  }
  return [];
}

/** An unsettled PR (not passed) whose outcome is open: it has not passed alone either. */
const isSuspect = (pr: PlanPullRequest): boolean => !passedAlone(pr);
