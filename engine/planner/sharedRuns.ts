/**
 * One main-line run for the PRs of a line that passed alone (queue policy 3; parallel mode with direct bases and
 * optimistic merge). In a coupled line (lineSpeculation.ts) nearly every PR is tested alone first, then once more on
 * top of its line: two runs per merge. The second run of a PR that passed alone says little of it (a pass alone
 * leaves it a chance of failing in its line of its likelihood's odds times PASS_ALONE_MISS) and much of the PRs it
 * rests on; and a passing run vouches for every PR of its base. So the runs on top of the line are shared:
 *
 * - **A run covers the PRs of its base that wait.** A PR that passed alone does not start a run of its own while a
 *   main-line run that has it in its base is in progress or starts in the same plan: that run's pass merges it
 *   (optimistic merge), and if that run fails, it is no longer covered and starts its own (the failure waits for it,
 *   on a base not settled).
 * - **A PR that passed alone waits for a partner.** While it covers no PR and a PR it overlaps is in its first run
 *   alone, it does not start: that PR, once it passed alone, comes back ahead of it (bisection.ts `rescue`: ahead of
 *   the PRs still waiting), and one run on top of both covers both. It waits at most for that run (a PR that failed
 *   alone and is retested is no partner); it starts once it covers a PR. So a line's passed-alone PRs go to the main
 *   line in pairs or more, one run each: about half a run per merge fewer, for the time a partner's run alone takes.
 *
 * Without optimistic merge a pass behind a PR cannot merge it: nothing is shared. Merges are unchanged: each is
 * vouched for by a passing run whose base holds it, as any optimistic merge.
 */
import { QUEUE_POLICY } from '../model/policy.js';
import { PR_IS } from '../../machines/index.js';
import { overlaps } from './graph.js';
import { passedAlone } from './lineSpeculation.js';
import type { Decision, PlanPullRequest } from './planner.js';
import type { LineupView } from './view.js';

type Start = Extract<Decision, { kind: 'startRun' }>;

/** The queue policy from which main-line runs are shared (model/policy.ts). */
export const SHARED_RUNS_POLICY = 3;

/** Whether the queue shares the main-line runs of PRs that passed alone. */
export function sharesRuns(view: LineupView): boolean {
  const { input } = view;
  return view.direct && input.settings.canOptimisticallyMerge && (input.policy ?? QUEUE_POLICY) >= SHARED_RUNS_POLICY;
}

/** The starts, less the main-line runs of PRs that passed alone that another run covers or that wait for a partner. */
export function shareRuns(view: LineupView, decisions: readonly Decision[]): Decision[] {
  if (!sharesRuns(view)) return [...decisions];
  const { lineup } = view.input;
  const prOf = (number: number) => {
    const at = view.at(number);
    return at === undefined ? undefined : (lineup[at] as PlanPullRequest);
  };
  // A base that holds a PR that failed (waiting for a run behind it to vouch for it, or for its base to settle) is
  // likely to fail: a run on it covers nothing, and the runs it waits for start at once.
  const healthy = (base: readonly number[]) =>
    !base.some((number) => {
      const pr = prOf(number);
      return pr !== undefined && PR_IS.failing(pr.state);
    });
  // PRs in the base of a main-line run in progress, or of one that passed (and holds: it vouches for them).
  const covered = new Set<number>();
  lineup.forEach((pr, at) => {
    if (pr.group !== null || pr.testedBase === null || !healthy(pr.testedBase)) return;
    if ((PR_IS.testing(pr.state) && pr.runId !== null) || view.passed(pr, at)) for (const number of pr.testedBase) covered.add(number);
  });
  const sharable = (decision: Decision): decision is Start =>
    decision.kind === 'startRun' &&
    decision.runKind === 'main' &&
    decision.prs.length === 1 &&
    prOf(decision.prs[0] as number) !== undefined &&
    passedAlone(prOf(decision.prs[0] as number) as PlanPullRequest);
  const kept: Decision[] = [];
  // From the back: a run kept covers the PRs of its base ahead of it.
  for (let i = decisions.length - 1; i >= 0; i--) {
    const decision = decisions[i] as Decision;
    if (decision.kind === 'startRun' && decision.runKind === 'main') {
      if (sharable(decision) && healthy(decision.basePrs)) {
        const number = decision.prs[0] as number;
        if (covered.has(number)) continue;
        const waitingAhead = decision.basePrs.some((base) => {
          const pr = prOf(base);
          return pr !== undefined && PR_IS.waiting(pr.state) && pr.group === null && !covered.has(base);
        });
        if (!waitingAhead && partnerAlone(lineup, prOf(number) as PlanPullRequest)) continue;
      }
      if (healthy(decision.basePrs)) for (const base of decision.basePrs) covered.add(base);
    }
    kept.push(decision);
  }
  return kept.reverse();
}

/** Whether a PR it overlaps is in its first run alone (isolated, testing, not a retest after a failure). */
function partnerAlone(lineup: readonly PlanPullRequest[], pr: PlanPullRequest): boolean {
  return lineup.some(
    (other) =>
      other !== pr &&
      other.speculated === true &&
      other.group !== null &&
      PR_IS.testing(other.state) &&
      other.failureRetests === 0 &&
      other.runsBehindFailed === 0 &&
      overlaps(other.targets, pr.targets),
  );
}
