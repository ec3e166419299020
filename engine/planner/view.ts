/**
 * The line-up as every phase of the planner sees it: for each PR, the PRs ahead it depends on, the base its test
 * must have, whether its result still holds, and whether PRs behind it may be tested on top of it.
 *
 * Two kinds of PR are left out of the bases of the PRs behind them (they are "silent", see graph.ts):
 * - a PR in a bisection (it has a `group`): the failed batch left the main line, and only its own group members
 *   see each other;
 * - a doomed PR: a failed batch, or a PR that failed alone with `pendingFailureDepth` 0. The PRs behind it are
 *   predicted without it at once, even while a PR ahead of it is still testing: it is far likelier to be the cause
 *   than the PR ahead (and if the PR ahead fails too, that failure resets them anyway). With
 *   `pendingFailureDepth` N ≥ 1 a PR that failed alone is tested on by the PRs behind it, which may vouch for it,
 *   until N runs behind it ended; then it is doomed too.
 *
 * What becomes of a failure waits for its base to be settled: every PR in it passed (its result holds) or is being
 * merged, so the failure can only be the fault of the PRs under test (or a flake). Then a failed batch is bisected
 * and a PR that failed alone is kicked or, with anti-flake protection, retested off the main line (failures.ts).
 */
import type { PullRequestState } from '../../machines/vocabulary.js';
import { dependencies } from './graph.js';
import type { PlanInput, PlanPullRequest } from './planner.js';

export function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

export const HAS_RESULT: readonly PullRequestState[] = ['TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'];

/** The PRs that failed together in one run (or alone, without a run): key of the set. */
export function failedSetOf(pr: PlanPullRequest): string {
  return pr.runId === null ? `#${pr.number}` : pr.runId;
}

/** Silent PRs that still see each other: the members of a bisection group, or of a failed set on the main line. */
function circleOf(pr: PlanPullRequest): string | null {
  if (pr.group !== null) return `group ${pr.group}`;
  return pr.state === 'PENDING_FAILURE' ? `failed ${failedSetOf(pr)}` : null;
}

export class LineupView {
  readonly parallel: boolean;
  readonly index = new Map<number, number>();
  /** Per position: the PRs ahead it depends on, bisections left out (a PR merges once none is left). */
  readonly ahead: number[][];
  /** Per position: the base its test must have (its group members ahead too, for a PR in a bisection). */
  readonly expected: number[][] = [];
  readonly holds: boolean[] = [];
  /** Every PR of its base (its group members aside) passed or is being merged. */
  readonly settled: boolean[] = [];
  readonly doomed: boolean[] = [];
  /** The size of each failed set (see failedSetOf). */
  readonly failedSets = new Map<string, number>();

  constructor(readonly input: PlanInput) {
    const { lineup, settings } = input;
    this.parallel = settings.mode === 'parallel';
    lineup.forEach((pr, at) => this.index.set(pr.number, at));
    for (const pr of lineup) {
      if (pr.state === 'PENDING_FAILURE') this.failedSets.set(failedSetOf(pr), (this.failedSets.get(failedSetOf(pr)) ?? 0) + 1);
    }
    const targets = lineup.map((pr) => pr.targets);
    const toNumbers = (positions: readonly number[]) => positions.map((at) => (lineup[at] as PlanPullRequest).number);
    this.ahead = dependencies(targets, this.parallel, (at) => this.detached(at)).map(toNumbers);
    /** Per circle (circleOf): the positions of its members so far and of what they depend on. */
    const circles = new Map<string, Set<number>>();
    /** PRs that a passing PR behind them was tested on top of: optimistic merge may vouch for them. */
    const vouchable = new Set(lineup.flatMap((pr) => (pr.state === 'TESTS_PASSED' ? (pr.testedBase ?? []) : [])));
    dependencies(targets, this.parallel, (at, deps) => {
      const pr = lineup[at] as PlanPullRequest;
      let positions: readonly number[] = deps;
      const circle = circleOf(pr);
      if (circle !== null) {
        const seen = circles.get(circle) ?? new Set<number>();
        if (seen.size > 0) positions = [...new Set([...deps, ...seen])].sort((a, b) => a - b);
        seen.add(at);
        for (const position of deps) seen.add(position);
        circles.set(circle, seen);
      }
      this.expected[at] = toNumbers(positions);
      this.classify(at, deps, input.settings.canOptimisticallyMerge && vouchable.has(pr.number));
      return this.detached(at) || (this.doomed[at] as boolean);
    });
  }

  private detached(at: number): boolean {
    return (this.input.lineup[at] as PlanPullRequest).group !== null;
  }

  /** Holds, settled and doomed for the PR at `at`, whose graph dependencies are `deps`. */
  private classify(at: number, deps: readonly number[], vouchable: boolean): void {
    const pr = this.input.lineup[at] as PlanPullRequest;
    const depth = this.input.settings.pendingFailureDepth;
    const holds = pr.testedBase !== null && sameList(this.unmerged(pr.testedBase), this.expected[at] as number[]);
    const settled = deps.every((position) => this.passedAt(position) || (this.input.lineup[position] as PlanPullRequest).mergeRequested);
    const failed = pr.state === 'PENDING_FAILURE' && pr.group === null && holds;
    const alone = this.failedSets.get(failedSetOf(pr)) === 1;
    this.holds[at] = holds;
    this.settled[at] = settled;
    this.doomed[at] = failed && (!alone || depth === 0 || (pr.runsBehindEnded >= depth && !vouchable));
  }

  private passedAt(at: number): boolean {
    return (this.input.lineup[at] as PlanPullRequest).state === 'TESTS_PASSED' && this.holds[at] === true;
  }

  at(number: number): number | undefined {
    return this.index.get(number);
  }

  dependsOn(at: number, number: number): boolean {
    return (this.ahead[at] ?? []).includes(number);
  }

  unmerged(prs: readonly number[]): number[] {
    return prs.filter((number) => !this.input.merged.has(number));
  }

  passed(pr: PlanPullRequest, at: number): boolean {
    return pr.state === 'TESTS_PASSED' && this.holds[at] === true;
  }
}
