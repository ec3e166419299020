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
 * and a PR that failed alone is kicked or, with anti-flake protection, retested off the main line (the rule:
 * failurePolicy.ts; acted on in failures.ts).
 */
import { PR_IS } from '../../machines/index.js';
import { BitSet, DependencyGraph } from './graph.js';
import { likelierItsOwn } from './baseChances.js';
import { failureChance } from './lineSpeculation.js';
import type { PlanInput, PlanPullRequest } from './planner.js';
import { lacksOnlyTesting } from './waitingPass.js';
import { testedOnBehind } from './failurePolicy.js';

export function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** The PRs that failed together in one run (or alone, without a run): key of the set. */
export function failedSetOf(pr: PlanPullRequest): string {
  return pr.runId === null ? `#${pr.number}` : pr.runId;
}

/**
 * A PR isolated by speculation by likelihood (engine/planner/speculation.ts): alone in its group, it is tested on
 * the target branch only, so that the PRs ahead of it leaving or merging do not restart its run; a failure there is
 * its own, and a pass sends it back to the main line, where it is tested on top of what is ahead of it.
 */
const isolated = (pr: PlanPullRequest): boolean => pr.speculated === true && pr.group !== null;

/** Silent PRs that still see each other: the members of a bisection group, or of a failed set on the main line. */
function circleOf(pr: PlanPullRequest): string | null {
  if (pr.group !== null) return `group ${pr.group}`;
  return PR_IS.failing(pr.state) ? `failed ${failedSetOf(pr)}` : null;
}

export class LineupView {
  readonly parallel: boolean;
  /** Parallel mode with direct bases: a PR depends only on the PRs ahead it overlaps itself. */
  readonly direct: boolean;
  /** Each PR's position (made when first asked). */
  private index: Map<number, number> | undefined;
  /** The size of each failed set (see failedSetOf). */
  readonly failedSets = new Map<string, number>();
  /** Per position, filled in line-up order as far as asked (see holdsAt, settledAt, doomedAt). */
  private readonly holds: boolean[] = [];
  private readonly settled: boolean[] = [];
  private readonly doomed: boolean[] = [];
  /** Per position: a pass that does not hold yet, but will if the runs it lacks fail (see waitsAt). */
  private readonly waits: boolean[] = [];
  /** The first doomed position found so far, if any. */
  private firstDoomed = Number.POSITIVE_INFINITY;
  /** What a PR's test must have in its base, silent PRs left out. */
  private readonly baseGraph: DependencyGraph;
  /** What a PR depends on, bisections left out (made once a doomed PR is met: until then the base graph says it). */
  private aheadOnly: DependencyGraph | undefined;
  /** Per position: the positions of its circle's members ahead of it (silent, yet in its base). */
  private readonly circleAhead: (number[] | undefined)[] = [];
  private readonly expectedLists: (number[] | undefined)[] = [];
  /** Heard PRs that have not passed and are not being merged (filled in line-up order, as far as asked). */
  private readonly unsettled: BitSet;
  /** PRs that a passing PR behind them was tested on top of (made when asked). */
  private vouchable: Set<number> | undefined;

  constructor(readonly input: PlanInput) {
    const { lineup, settings } = input;
    this.parallel = settings.mode === 'parallel';
    this.direct = this.parallel && settings.parallelBases === 'direct';
    for (const pr of lineup) {
      if (PR_IS.failing(pr.state))
        this.failedSets.set(failedSetOf(pr), (this.failedSets.get(failedSetOf(pr)) ?? 0) + 1);
    }
    const circles = new Map<string, number[]>();
    /** Heard PRs that have not passed and are not being merged: a base holding one is not settled. */
    const unsettled = new BitSet(lineup.length);
    this.unsettled = unsettled;
    // Lazy: a position is classified (and its dependencies known) once a phase asks about it or a PR behind it.
    this.baseGraph = new DependencyGraph(
      lineup.length,
      this.targetsAt,
      this.parallel,
      (at, graph) => {
        const pr = lineup[at] as PlanPullRequest;
        const circle = circleOf(pr);
        if (circle !== null) {
          const members = circles.get(circle) ?? [];
          if (members.length > 0) this.circleAhead[at] = [...members];
          members.push(at);
          circles.set(circle, members);
        }
        const silent = this.classify(at, graph, unsettled);
        if (!silent && !(this.passedAt(at) || pr.mergeRequested)) unsettled.set(at);
        if (this.doomed[at] === true) this.firstDoomed = Math.min(this.firstDoomed, at);
        return silent;
      },
      this.direct,
    );
  }

  /**
   * Whether a passing PR was tested on top of it: only then may optimistic merge vouch for it (a necessary
   * condition; `vouchedFor` says which run does).
   */
  canBeVouched(number: number): boolean {
    this.vouchable ??= new Set(
      this.input.lineup.flatMap((pr) => (PR_IS.passed(pr.state) ? (pr.testedBase ?? []) : [])),
    );
    return this.vouchable.has(number);
  }

  /** Whether the result of the PR at `at` still holds: its tested base is the base expected now. */
  holdsAt(at: number): boolean {
    this.baseGraph.ensure(at);
    return this.holds[at] === true;
  }

  /** Whether its pass waits for the runs ahead of it that its tested base lacks (waitingPass.ts). */
  waitsAt(at: number): boolean {
    this.baseGraph.ensure(at);
    return this.waits[at] === true;
  }

  /** Whether every PR of its base (its circle aside) passed or is being merged. */
  settledAt(at: number): boolean {
    this.baseGraph.ensure(at);
    return this.settled[at] === true;
  }

  /** Whether it failed for certain: the PRs behind it are predicted without it. */
  doomedAt(at: number): boolean {
    this.baseGraph.ensure(at);
    return this.doomed[at] === true;
  }

  /** The graph that says what `at` depends on for merging: the base graph unless a doomed PR is ahead of it. */
  private aheadGraph(at: number): DependencyGraph {
    this.baseGraph.ensure(at);
    if (this.firstDoomed >= at) return this.baseGraph;
    this.aheadOnly ??= new DependencyGraph(
      this.input.lineup.length,
      this.targetsAt,
      this.parallel,
      (position) => (this.input.lineup[position] as PlanPullRequest).group !== null,
      this.direct,
    );
    return this.aheadOnly;
  }

  /** Holds, settled and doomed for the PR at `at`; whether it is silent. */
  private classify(at: number, graph: DependencyGraph, unsettled: BitSet): boolean {
    const pr = this.input.lineup[at] as PlanPullRequest;
    const holds =
      pr.testedBase !== null &&
      (isolated(pr)
        ? pr.testedBase.every((number) => this.input.merged.has(number))
        : this.sameBase(at, graph, pr.testedBase));
    const failed = PR_IS.failing(pr.state) && pr.group === null && holds;
    const alone = this.failedSets.get(failedSetOf(pr)) === 1;
    this.holds[at] = holds;
    this.waits[at] =
      !holds &&
      pr.testedBase !== null &&
      PR_IS.passed(pr.state) &&
      pr.group === null &&
      pr.speculated !== true &&
      lacksOnlyTesting(this.input, this.expectedFrom(at, graph), pr.testedBase, (number) => this.at(number));
    // A PR isolated is tested on the target branch alone: what fails there is its own, whatever is still testing ahead.
    this.settled[at] = isolated(pr) || !graph.dependsOnAny(at, unsettled);
    this.doomed[at] =
      failed &&
      (!alone || !testedOnBehind(pr, this.input.settings, () => this.canBeVouched(pr.number))) &&
      (!this.direct || this.settled[at] === true || likelierItsOwn(pr, this.input.lineup, graph.deps(at), unsettled));
    return pr.group !== null || this.doomed[at] === true;
  }

  /** Whether `testedBase`, merged PRs aside, is the base expected at `at` now. */
  private sameBase(at: number, graph: DependencyGraph, testedBase: readonly number[]): boolean {
    const { merged, lineup } = this.input;
    // One pass: each PR of the tested base is the next one expected, or merged (a PR in the line-up is never merged,
    // so the set is asked only on a mismatch).
    let k = 0;
    if ((this.circleAhead[at]?.length ?? 0) === 0 && !this.parallel) {
      // The PRs ahead it depends on, read in place: most plans ask this of every PR with a result.
      const count = graph.count(at);
      for (const number of testedBase) {
        if (k < count && (lineup[graph.nthDep(at, k)] as PlanPullRequest).number === number) k++;
        else if (!merged.has(number)) return false;
      }
      return k === count;
    }
    const expected = this.expectedFrom(at, graph);
    for (const number of testedBase) {
      if (k < expected.length && expected[k] === number) k++;
      else if (!merged.has(number)) return false;
    }
    return k === expected.length;
  }

  private expectedFrom(at: number, graph: DependencyGraph): number[] {
    let list = this.expectedLists[at];
    if (list !== undefined) return list;
    const { lineup } = this.input;
    if (isolated(lineup[at] as PlanPullRequest)) return (this.expectedLists[at] = []);
    let positions: readonly number[] = graph.deps(at);
    const circle = this.circleAhead[at];
    if (circle !== undefined) {
      // Its circle's members ahead, and what they depend on, are in its base too.
      const all = new Set(positions);
      for (const member of circle) {
        all.add(member);
        for (const position of graph.deps(member)) all.add(position);
      }
      positions = [...all].sort((a, b) => a - b);
    }
    list = positions.map((position) => (lineup[position] as PlanPullRequest).number);
    this.expectedLists[at] = list;
    return list;
  }

  /** The base the PR at `at` must be tested on now: the PRs ahead it depends on that are not silent (and its circle). */
  expected(at: number): readonly number[] {
    return this.expectedFrom(at, this.baseGraph);
  }

  /**
   * The chance that a run of the PR at `at` started now on its expected base holds: every PR of the base not yet
   * passed passes (each with one less its likelihood). A PR of the base that failed and is not doomed is left out: it
   * waits for a run behind it to vouch for it, or for its base to settle (counting it would hold back the very runs it
   * waits for).
   */
  holdChance(at: number): number {
    this.baseGraph.ensure(at);
    const { lineup } = this.input;
    let chance = 1;
    for (const position of this.baseGraph.deps(at)) {
      if (!this.unsettled.has(position)) continue;
      const dep = lineup[position] as PlanPullRequest;
      if (!PR_IS.failing(dep.state)) chance *= 1 - failureChance(dep);
    }
    return chance;
  }

  /** How many PRs ahead it depends on have not passed: the depth of its line (lineSpeculation.ts). */
  unsettledAhead(at: number, only: (pr: PlanPullRequest) => boolean = () => true): number {
    this.baseGraph.ensure(at);
    let count = 0;
    for (const position of this.baseGraph.deps(at))
      if (this.unsettled.has(position) && only(this.input.lineup[position] as PlanPullRequest)) count++;
    return count;
  }

  /** How many PRs ahead it depends on, bisections left out: it merges once none is left. */
  aheadCount(at: number): number {
    return this.aheadGraph(at).count(at);
  }

  private passedAt(at: number): boolean {
    return this.passed(this.input.lineup[at] as PlanPullRequest, at);
  }

  /** The position of a PR in the line-up. */
  at(number: number): number | undefined {
    if (this.index === undefined) {
      this.index = new Map();
      this.input.lineup.forEach((pr, at) => {
        this.index?.set(pr.number, at);
      });
    }
    return this.index.get(number);
  }

  private readonly targetsAt = (at: number) => (this.input.lineup[at] as PlanPullRequest).targets;

  dependsOn(at: number, number: number): boolean {
    const position = this.at(number);
    return position !== undefined && position < at && this.aheadGraph(at).dependsOn(at, position);
  }

  unmerged(prs: readonly number[]): number[] {
    return prs.filter((number) => !this.input.merged.has(number));
  }

  passed(pr: PlanPullRequest, at: number): boolean {
    return PR_IS.passed(pr.state) && this.holdsAt(at);
  }
}
