/**
 * The line-up as every phase of the planner sees it: for each PR, the PRs ahead it depends on, the base its test
 * must have, whether its result still holds, and whether PRs behind it may be tested on top of it.
 *
 * Three kinds of PR are left out of the bases of the PRs behind them (they are "silent", see graph.ts):
 * - a PR in a bisection (it has a `group`): the failed batch left the main line, and only its own group members
 *   see each other;
 * - a doomed PR: one that failed alone on a settled base, with `pendingFailureDepth` 0. It will be kicked;
 * - nothing else. A failure on a base that is not settled yet is not doomed: the PR ahead may be the cause, and
 *   predicting the PRs behind without it would reset them a second time if it is.
 *
 * A base is settled when every PR in it has passed (its result holds) or is being merged: a failure on it can only
 * be the fault of the PRs under test (or a flake).
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
  /** A failure whose PRs behind must not start runs on top of it. */
  readonly blocker: boolean[] = [];
  /** A waiting PR whose base holds a blocker (or a PR held itself): it must not start a run yet. */
  readonly held: boolean[] = [];
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
    /** Per bisection group: the positions of its members so far and of what they depend on. */
    const groups = new Map<string, Set<number>>();
    dependencies(targets, this.parallel, (at, deps) => {
      const pr = lineup[at] as PlanPullRequest;
      let positions: readonly number[] = deps;
      if (pr.group !== null) {
        const seen = groups.get(pr.group) ?? new Set<number>();
        if (seen.size > 0) positions = [...new Set([...deps, ...seen])].sort((a, b) => a - b);
        seen.add(at);
        for (const position of deps) seen.add(position);
        groups.set(pr.group, seen);
      }
      this.expected[at] = toNumbers(positions);
      this.classify(at, deps);
      return this.detached(at) || (this.doomed[at] as boolean);
    });
  }

  private detached(at: number): boolean {
    return (this.input.lineup[at] as PlanPullRequest).group !== null;
  }

  /** Holds, settled, doomed, blocker and held for the PR at `at`, whose graph dependencies are `deps`. */
  private classify(at: number, deps: readonly number[]): void {
    const pr = this.input.lineup[at] as PlanPullRequest;
    const depth = this.input.settings.pendingFailureDepth;
    const holds = pr.testedBase !== null && sameList(this.unmerged(pr.testedBase), this.expected[at] as number[]);
    const settled = deps.every((position) => this.passedAt(position) || (this.input.lineup[position] as PlanPullRequest).mergeRequested);
    const failedAlone = pr.state === 'PENDING_FAILURE' && this.failedSets.get(failedSetOf(pr)) === 1;
    const main = pr.group === null;
    this.holds[at] = holds;
    this.settled[at] = settled;
    this.doomed[at] = main && failedAlone && holds && settled && depth === 0;
    const wantsVouchers = failedAlone && holds && settled && depth > 0 && pr.runsBehindEnded < depth;
    this.blocker[at] = main && pr.state === 'PENDING_FAILURE' && !this.doomed[at] && !wantsVouchers;
    this.held[at] = pr.state === 'PENDING' && deps.some((position) => this.blocker[position] === true || this.held[position] === true);
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
