/**
 * Main-line runs shared by the PRs that passed alone (issue 28, queue policy 4; parallel mode with direct bases and
 * optimistic merge). A PR tested alone first still needs a run on top of its line, and a passing run decides every PR
 * of its base (it vouches for them). The queue spent one main-line run per PR: each started as soon as its PR passed
 * alone, and a later run that held it ended first about as often as not (cancelled, 0.37 runs per merge). So a PR that
 * passed alone does not start a run of its own while another run will decide it:
 * - a PR behind it that passed alone, waiting too, holds it in its base: that one's run covers both (it starts now,
 *   or waits in turn);
 * - a main-line run in progress holds it in its base, on the base expected now;
 * - a partner is on its way: a PR still in its first run alone whose targets overlap its own. It passes alone far
 *   likelier than not, and goes back to the line behind the runs in progress, ahead of the PRs waiting (rescue):
 *   into the base of the PR that waits for it, whose run then covers both.
 * At most PARTNER_CHAIN PRs that passed alone wait in one base for partners: the PR behind them starts the run that
 * covers them all, so a wait ends within a few runs alone of its line, and a hot line does not wait for ever.
 *
 * bench/pressureBound.ts measures what sharing can save at best (a clairvoyant planner, waits of at most 5 minutes:
 * 1.51–1.53 runs per merge against 2.10–2.13); docs/failure-policy.md has the figures of this rule.
 */
import { PR_IS } from '../../machines/index.js';
import { QUEUE_POLICY } from '../model/policy.js';
import type { Targets } from './graph.js';
import { passedAlone } from './lineSpeculation.js';
import type { Decision, PlanPullRequest } from './planner.js';
import type { LineupView } from './view.js';

/**
 * The most PRs that passed alone a base holds waiting for partners. Measured on the busy monorepo (3 h, seed 1, runs
 * per merge): 1 → 2.05, 3 → 1.90, 8 → the lines stalled (70 of 593 merged): the runs alone of a hot line never stop
 * coming, and the waits chained.
 */
export const PARTNER_CHAIN = 3;

/** A PR in its first run alone (not a retest of one that failed). */
const onItsWay = (pr: PlanPullRequest): boolean =>
  pr.speculated === true && pr.group !== null && PR_IS.testing(pr.state) && pr.failureRetests === 0;

/** A PR that passed alone and waits for its run on top of its line. */
const waitingAfterAlone = (pr: PlanPullRequest): boolean => passedAlone(pr) && PR_IS.waiting(pr.state);

/** Whether two PRs' impacted targets overlap (`ALL`, or none known, overlaps every PR with targets). */
function overlap(a: Targets, b: Targets): boolean {
  if (Array.isArray(a) && a.length === 0) return false;
  if (Array.isArray(b) && b.length === 0) return false;
  if (!Array.isArray(a) || !Array.isArray(b)) return true;
  const set = new Set(a);
  return b.some((target) => set.has(target));
}

/**
 * Whether the PR at `at` waits for another run to decide it rather than start its own (see above): a main-line run in
 * progress holds it, or a partner is on its way. (A PR behind it starting now covers it too: `sharedStarts` drops its
 * start then, as only the plan knows which starts it makes.)
 */
export function waitsForPartner(view: LineupView, at: number): boolean {
  const { lineup } = view.input;
  if (!sharing(view)) return false;
  const pr = lineup[at] as PlanPullRequest;
  if (!waitingAfterAlone(pr)) return false;
  // The PRs that passed alone and wait, whose runs would share one with it: ahead of it in its base, or behind it.
  let cluster = 0;
  for (const number of view.expected(at)) {
    const position = view.at(number);
    if (position !== undefined && waitingAfterAlone(lineup[position] as PlanPullRequest)) cluster++;
  }
  for (let behind = at + 1; behind < lineup.length; behind++) {
    const other = lineup[behind] as PlanPullRequest;
    if (other.group !== null || !view.dependsOn(behind, pr.number)) continue;
    if (waitingAfterAlone(other)) cluster++;
    if (PR_IS.testing(other.state) && other.testedBase?.includes(pr.number) === true && view.holdsAt(behind))
      return true;
  }
  if (cluster >= PARTNER_CHAIN) return false;
  // Partners ahead of it only: those are finite (PRs arriving later queue behind it), so its wait ends.
  for (let ahead = 0; ahead < at; ahead++) {
    const other = lineup[ahead] as PlanPullRequest;
    if (onItsWay(other) && overlap(other.targets, pr.targets)) return true;
  }
  return false;
}

/** Whether the queue shares main-line runs so: policy 4, parallel mode with direct bases, optimistic merge. */
function sharing(view: LineupView): boolean {
  const { settings, policy } = view.input;
  return (policy ?? QUEUE_POLICY) >= 4 && view.direct && settings.canOptimisticallyMerge;
}

/**
 * The main-line starts of a plan, less those of PRs that passed alone which another start of the same plan holds in
 * its base: that run decides them too.
 */
export function sharedStarts(view: LineupView, decisions: Decision[]): Decision[] {
  if (!sharing(view)) return decisions;
  const covered = new Set<number>();
  for (const decision of decisions)
    if (decision.kind === 'startRun' && decision.runKind === 'main')
      for (const number of decision.basePrs) covered.add(number);
  return decisions.filter((decision) => {
    if (decision.kind !== 'startRun' || decision.runKind !== 'main' || decision.prs.length !== 1) return true;
    const number = decision.prs[0] as number;
    const at = view.at(number);
    return !covered.has(number) || at === undefined || !waitingAfterAlone(view.input.lineup[at] as PlanPullRequest);
  });
}
