/**
 * The planner: pure policy. Given the queue's line-up (in order), its active runs and its settings, it says what to
 * do next. The engine applies the decisions through the machines and asks again until the planner has nothing more
 * to say.
 *
 * The one rule behind every decision: a result (a run in progress, a pass, a failure) holds only while the PRs it
 * was tested on top of are still the PRs expected ahead of it. The PRs expected ahead of a PR are those before it in
 * the line-up that it depends on (see graph.ts: all of them in single mode; in parallel mode those whose impacted
 * targets overlap, with what they depend on) and that are not doomed; with `pendingFailureDepth` 0 a failed PR is
 * doomed (it will be kicked or retested, and PRs behind it are predicted without it). Merged PRs are part of the
 * target branch and drop out of every base. A PR merges once nothing it depends on is left ahead of it, so in
 * parallel mode independent lanes test and merge without waiting for each other.
 */
import type { PullRequestState, QueueState } from '../../machines/vocabulary.js';
import type { QueueSettings } from '../queues.js';
import { dependencies, type Targets } from './graph.js';

export type { Targets } from './graph.js';

export interface PlanPullRequest {
  number: number;
  state: PullRequestState;
  noBatch: boolean;
  readyAt: number | null;
  testedBase: readonly number[] | null;
  runId: string | null;
  bisectionId: string | null;
  group: string | null;
  mergeRequested: boolean;
  runsBehindEnded: number;
  upToDate: boolean;
  /** Impacted targets for its head SHA (parallel mode; ignored in single mode). */
  targets: Targets;
}

export interface PlanRun {
  id: string;
  kind: 'main' | 'bisection';
  prs: readonly number[];
}

export interface PlanInput {
  state: QueueState;
  settings: QueueSettings;
  bisectionConcurrency: number;
  /** Enqueued and ready PRs, in queue order. */
  lineup: readonly PlanPullRequest[];
  activeRuns: readonly PlanRun[];
  /** PRs merged into the target branch that results may still mention. */
  merged: ReadonlySet<number>;
  /** Per bisection: the PR sets (see `setKey`) that failed in it, and the PRs merged since it began. */
  bisections: Readonly<Record<string, BisectionMemory>>;
  now: number;
}

export type Decision =
  | { kind: 'cancelRun'; runId: string; reason: string }
  | { kind: 'requeue'; pr: number; reason: string }
  | { kind: 'kick'; pr: number }
  | { kind: 'merge'; pr: number; vouchedBy?: string; direct?: boolean }
  | { kind: 'startRun'; runKind: 'main' | 'bisection'; prs: number[]; basePrs: number[]; bisectionId: string | null }
  | { kind: 'split'; prs: number[]; bisectionId: string }
  | { kind: 'failAtOnce'; pr: number; basePrs: number[]; bisectionId: string }
  | { kind: 'settle' };

export interface Plan {
  decisions: Decision[];
  /** When to plan again although nothing happened (a batch's longest wait ends). */
  wakeAt: number | null;
}

export interface BisectionMemory {
  failed: readonly string[];
  merged: readonly number[];
}

/**
 * Identifies a tree within one bisection: the target as it was when the bisection began plus a set of PRs. PRs
 * merged since then are part of the target now, so they count as part of every set.
 */
export function setKey(memory: BisectionMemory | undefined, basePrs: readonly number[], prs: readonly number[]): string {
  const all = new Set([...(memory?.merged ?? []), ...basePrs, ...prs]);
  return [...all].sort((a, b) => a - b).join(',');
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

const HAS_RESULT: readonly PullRequestState[] = ['TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'];

export function plan(input: PlanInput): Plan {
  const view = new LineupView(input);
  for (const phase of [invalidations, kicks, merges]) {
    const decisions = phase(view);
    if (decisions.length > 0) return { decisions, wakeAt: null };
  }
  const starts = startRuns(view);
  if (starts.decisions.length > 0) return starts;
  return { decisions: settle(view), wakeAt: starts.wakeAt };
}

/** The line-up with what every phase asks of it: dependencies, expected bases and whether results still hold. */
class LineupView {
  /** Per position: the PRs ahead it depends on, in line-up order (a PR merges once none is left). */
  readonly ahead: number[][];
  /** Per position: the base its test must have: the same, in the graph without the doomed PRs. */
  readonly expected: number[][];
  readonly index = new Map<number, number>();
  readonly parallel: boolean;

  constructor(readonly input: PlanInput) {
    const { lineup } = input;
    this.parallel = input.settings.mode === 'parallel';
    lineup.forEach((pr, i) => this.index.set(pr.number, i));
    const targets = lineup.map((pr) => pr.targets);
    const doomed = lineup.map((pr) => this.doomed(pr));
    const positionsToNumbers = (positions: number[]) => positions.map((at) => (lineup[at] as PlanPullRequest).number);
    this.ahead = dependencies(targets, this.parallel).map(positionsToNumbers);
    this.expected = dependencies(targets, this.parallel, doomed).map(positionsToNumbers);
  }

  dependsOn(at: number, number: number): boolean {
    return (this.ahead[at] ?? []).includes(number);
  }

  doomed(pr: PlanPullRequest): boolean {
    return pr.state === 'PENDING_FAILURE' && this.input.settings.pendingFailureDepth === 0;
  }

  unmerged(prs: readonly number[]): number[] {
    return prs.filter((number) => !this.input.merged.has(number));
  }

  /** Whether the PR's test result (or test in progress) was on top of what is expected ahead of it now. */
  holds(pr: PlanPullRequest, at: number): boolean {
    return pr.testedBase !== null && sameList(this.unmerged(pr.testedBase), this.expected[at] ?? []);
  }

  passed(pr: PlanPullRequest, at: number): boolean {
    return pr.state === 'TESTS_PASSED' && this.holds(pr, at);
  }
}

function invalidations(view: LineupView): Decision[] {
  const decisions: Decision[] = [];
  const cancelled = new Set<string>();
  const cancel = (runId: string, reason: string) => {
    if (cancelled.has(runId)) return;
    cancelled.add(runId);
    decisions.push({ kind: 'cancelRun', runId, reason });
  };
  view.input.lineup.forEach((pr, at) => {
    if (!HAS_RESULT.includes(pr.state) || view.holds(pr, at)) return;
    const reason = 'the pull requests ahead of it changed';
    if (pr.state === 'TESTING' && pr.runId !== null) cancel(pr.runId, reason);
    else decisions.push({ kind: 'requeue', pr: pr.number, reason: `retesting: ${reason}` });
  });
  for (const run of view.input.activeRuns) {
    const orphaned = run.prs.some((number) => {
      const at = view.index.get(number);
      const pr = at === undefined ? undefined : view.input.lineup[at];
      return pr === undefined || pr.state !== 'TESTING' || pr.runId !== run.id;
    });
    if (orphaned) cancel(run.id, 'a pull request it tested left the queue');
  }
  return decisions;
}

function kicks(view: LineupView): Decision[] {
  const { settings, lineup, activeRuns, state } = view.input;
  const depth = settings.pendingFailureDepth;
  const decisions: Decision[] = [];
  lineup.forEach((pr, at) => {
    if (pr.state !== 'PENDING_FAILURE' || !view.holds(pr, at)) return;
    // Its failure is its own only once nothing it was tested on top of can still fail.
    if ((view.expected[at] ?? []).length > 0) return;
    // A passing run behind it that contained it vouches for it: the merge phase takes it.
    if (settings.canOptimisticallyMerge && vouchedFor(view, pr.number)) return;
    if (depth > 0 && pr.runsBehindEnded < depth) {
      const runBehindContainsIt = activeRuns.some((run) =>
        run.prs.some((number) => {
          const behind = lineup[view.index.get(number) ?? -1];
          return behind?.testedBase?.includes(pr.number) === true;
        }),
      );
      const moreCanStart =
        state === 'running' && lineup.some((behind, behindAt) => behindAt > at && behind.state === 'PENDING' && view.dependsOn(behindAt, pr.number));
      if (runBehindContainsIt || moreCanStart) return;
    }
    decisions.push({ kind: 'kick', pr: pr.number });
  });
  return decisions;
}

/** The run of a passing PR behind `number` whose tested base contains it, if optimistic merge may use one. */
function vouchedFor(view: LineupView, number: number): PlanPullRequest | undefined {
  const { lineup } = view.input;
  const at = view.index.get(number) ?? 0;
  for (let behindAt = at + 1; behindAt < lineup.length; behindAt++) {
    const behind = lineup[behindAt];
    if (behind !== undefined && view.passed(behind, behindAt) && view.unmerged(behind.testedBase ?? []).includes(number)) return behind;
  }
  return undefined;
}

/**
 * One merge at a time (each moves the target branch the next one builds on), of the first PR with nothing it
 * depends on left ahead of it: the head of the line-up in single mode, the head of any lane in parallel mode.
 */
function merges(view: LineupView): Decision[] {
  const { lineup, state } = view.input;
  if (state === 'paused' || lineup.some((pr) => pr.mergeRequested)) return [];
  for (let at = 0; at < lineup.length; at++) {
    if ((view.ahead[at] ?? []).length > 0) continue;
    const decision = mergeOf(view, lineup[at] as PlanPullRequest, at);
    if (decision !== undefined) return [decision];
  }
  return [];
}

function mergeOf(view: LineupView, head: PlanPullRequest, at: number): Decision | undefined {
  const { settings, state, activeRuns } = view.input;
  if (view.passed(head, at)) return { kind: 'merge', pr: head.number };
  const voucher = settings.canOptimisticallyMerge ? vouchedFor(view, head.number) : undefined;
  if (voucher !== undefined) return { kind: 'merge', pr: head.number, vouchedBy: voucher.runId ?? undefined };
  const testing = activeRuns.some((run) => run.prs.includes(head.number));
  if (
    settings.directMergeMode === 'always' &&
    state === 'running' &&
    head.state === 'PENDING' &&
    head.group === null &&
    head.upToDate &&
    !testing
  ) {
    return { kind: 'merge', pr: head.number, direct: true };
  }
  return undefined;
}

function startRuns(view: LineupView): Plan {
  const { input } = view;
  if (input.state !== 'running') return { decisions: [], wakeAt: null };
  const main = mainRuns(view);
  return { decisions: [...main.decisions, ...bisectionRuns(view)], wakeAt: main.wakeAt };
}

const isReady = (pr: PlanPullRequest | undefined): pr is PlanPullRequest =>
  pr !== undefined && pr.state === 'PENDING' && pr.group === null && !pr.mergeRequested;

/**
 * New runs, in line-up order, up to `concurrency` across all lanes. With batching, a batch is a chain of one lane:
 * each member is expected on top of the base and the members before it. A batch that must still wait holds back
 * the PRs that depend on it (in single mode, every PR behind it).
 */
function mainRuns(view: LineupView): Plan {
  const { lineup, settings, activeRuns, now } = view.input;
  const decisions: Decision[] = [];
  let wakeAt: number | null = null;
  let running = activeRuns.filter((run) => run.kind === 'main').length;
  const taken = new Set<number>();
  const held = new Set<number>();
  for (let at = 0; at < lineup.length && running < settings.concurrency; at++) {
    const pr = lineup[at];
    if (!isReady(pr) || taken.has(pr.number)) continue;
    const basePrs = view.expected[at] ?? [];
    if (basePrs.some((number) => held.has(number))) {
      held.add(pr.number);
      continue;
    }
    let prs = [pr.number];
    if (settings.batch && !pr.noBatch) {
      const segment = batchFrom(view, at);
      const oldest = Math.min(...segment.map((member) => member.readyAt ?? now));
      const deadline = oldest + settings.batchingMaxWaitTimeMinutes * 60_000;
      if (segment.length < settings.batchingMinSize && now < deadline) {
        wakeAt = wakeAt === null ? deadline : Math.min(wakeAt, deadline);
        if (!view.parallel) break;
        for (const member of segment) held.add(member.number);
        continue;
      }
      prs = segment.map((member) => member.number);
    }
    for (const number of prs) taken.add(number);
    decisions.push({ kind: 'startRun', runKind: 'main', prs, basePrs, bisectionId: null });
    running++;
  }
  return { decisions, wakeAt };
}

/** The batch starting at `at`: ready PRs behind it that extend its chain, up to batchingMinSize. */
function batchFrom(view: LineupView, at: number): PlanPullRequest[] {
  const { lineup, settings } = view.input;
  const first = lineup[at] as PlanPullRequest;
  const segment = [first];
  const chain = [...(view.expected[at] ?? []), first.number];
  for (let next = at + 1; next < lineup.length && segment.length < settings.batchingMinSize; next++) {
    const candidate = lineup[next] as PlanPullRequest;
    if (!sameList(view.expected[next] ?? [], chain)) {
      if (view.parallel) continue; // another lane, or one that needs more than this chain
      break;
    }
    if (!isReady(candidate) || candidate.noBatch) break;
    segment.push(candidate);
    chain.push(candidate.number);
  }
  return segment;
}

/** Runs for bisection groups, in their own pool. A group is a chain of one lane; one that is not is split further. */
function bisectionRuns(view: LineupView): Decision[] {
  const { lineup, settings } = view.input;
  const decisions: Decision[] = [];
  let running = view.input.activeRuns.filter((run) => run.kind === 'bisection').length;
  const skipRedundant = settings.optimizationMode === 'bisection_skip_redundant_tests';
  const groups = new Map<string, { bisectionId: string; members: PlanPullRequest[] }>();
  for (const pr of lineup) {
    if (pr.group === null || pr.bisectionId === null) continue;
    const group = groups.get(pr.group) ?? { bisectionId: pr.bisectionId, members: [] };
    group.members.push(pr);
    groups.set(pr.group, group);
  }
  for (const { bisectionId, members } of groups.values()) {
    if (!members.every((member) => member.state === 'PENDING' && !member.mergeRequested)) continue;
    const first = members[0] as PlanPullRequest;
    const basePrs = view.expected[view.index.get(first.number) ?? 0] ?? [];
    const prs = members.map((member) => member.number);
    const chained = members.every((member, k) => sameList(view.expected[view.index.get(member.number) ?? 0] ?? [], [...basePrs, ...prs.slice(0, k)]));
    if (!chained) {
      decisions.push({ kind: 'split', prs, bisectionId });
      continue;
    }
    const memory = view.input.bisections[bisectionId];
    if (skipRedundant && (memory?.failed ?? []).includes(setKey(memory, view.unmerged(basePrs), prs))) {
      decisions.push(
        prs.length > 1
          ? { kind: 'split', prs, bisectionId }
          : { kind: 'failAtOnce', pr: first.number, basePrs, bisectionId },
      );
      continue;
    }
    if (running >= view.input.bisectionConcurrency) continue;
    decisions.push({ kind: 'startRun', runKind: 'bisection', prs, basePrs, bisectionId });
    running++;
  }
  return decisions;
}

function settle(view: LineupView): Decision[] {
  const { state, activeRuns, lineup } = view.input;
  if (state !== 'draining' && state !== 'switching_modes') return [];
  if (activeRuns.length > 0 || lineup.some((pr) => pr.mergeRequested)) return [];
  return [{ kind: 'settle' }];
}
