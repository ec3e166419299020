/**
 * The planner: pure policy for a single-mode queue. Given the queue's line-up (in order), its active runs and its
 * settings, it says what to do next. The engine applies the decisions through the machines and asks again until the
 * planner has nothing more to say.
 *
 * The one rule behind every decision: a result (a run in progress, a pass, a failure) holds only while the PRs it
 * was tested on top of are still the PRs expected ahead of it. The PRs expected ahead of a PR are those before it in
 * the line-up that are not doomed; with `pendingFailureDepth` 0 a failed PR is doomed (it will be kicked or retested,
 * and PRs behind it are predicted without it). Merged PRs are part of the target branch and drop out of every base.
 */
import type { PullRequestState, QueueState } from '../../machines/vocabulary.js';
import type { QueueSettings } from '../queues.js';

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

/** The line-up with what every phase asks of it: expected bases and whether results still hold. */
class LineupView {
  readonly expected: number[][] = [];
  readonly index = new Map<number, number>();

  constructor(readonly input: PlanInput) {
    const ahead: number[] = [];
    input.lineup.forEach((pr, i) => {
      this.index.set(pr.number, i);
      this.expected.push([...ahead]);
      if (!this.doomed(pr)) ahead.push(pr.number);
    });
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
      const moreCanStart = state === 'running' && lineup.slice(at + 1).some((behind) => behind.state === 'PENDING');
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

function merges(view: LineupView): Decision[] {
  const { lineup, settings, state, activeRuns } = view.input;
  const head = lineup[0];
  if (state === 'paused' || head === undefined || head.mergeRequested) return [];
  if (view.passed(head, 0)) return [{ kind: 'merge', pr: head.number }];
  const voucher = settings.canOptimisticallyMerge ? vouchedFor(view, head.number) : undefined;
  if (voucher !== undefined) return [{ kind: 'merge', pr: head.number, vouchedBy: voucher.runId ?? undefined }];
  const testing = activeRuns.some((run) => run.prs.includes(head.number));
  if (
    settings.directMergeMode === 'always' &&
    state === 'running' &&
    head.state === 'PENDING' &&
    head.group === null &&
    head.upToDate &&
    !testing
  ) {
    return [{ kind: 'merge', pr: head.number, direct: true }];
  }
  return [];
}

function startRuns(view: LineupView): Plan {
  const { lineup, settings, state, activeRuns, now } = view.input;
  const decisions: Decision[] = [];
  let wakeAt: number | null = null;
  if (state !== 'running') return { decisions, wakeAt };

  let mainRuns = activeRuns.filter((run) => run.kind === 'main').length;
  const ready = (pr: PlanPullRequest | undefined): pr is PlanPullRequest =>
    pr !== undefined && pr.state === 'PENDING' && pr.group === null && !pr.mergeRequested;
  for (let at = 0; at < lineup.length && mainRuns < settings.concurrency; at++) {
    const pr = lineup[at];
    if (!ready(pr)) continue;
    let prs = [pr.number];
    if (settings.batch && !pr.noBatch) {
      const segment: PlanPullRequest[] = [];
      for (let next = at; segment.length < settings.batchingMinSize; next++) {
        const candidate = lineup[next];
        if (!ready(candidate) || candidate.noBatch) break;
        segment.push(candidate);
      }
      const oldest = Math.min(...segment.map((member) => member.readyAt ?? now));
      const deadline = oldest + settings.batchingMaxWaitTimeMinutes * 60_000;
      if (segment.length < settings.batchingMinSize && now < deadline) {
        wakeAt = deadline;
        break;
      }
      prs = segment.map((member) => member.number);
      at += segment.length - 1;
    }
    decisions.push({ kind: 'startRun', runKind: 'main', prs, basePrs: view.expected[view.index.get(pr.number) ?? 0] ?? [], bisectionId: null });
    mainRuns++;
  }

  let bisectionRuns = activeRuns.filter((run) => run.kind === 'bisection').length;
  const skipRedundant = settings.optimizationMode === 'bisection_skip_redundant_tests';
  for (let at = 0; at < lineup.length; at++) {
    const first = lineup[at];
    if (first === undefined || first.group === null || first.bisectionId === null) continue;
    const members: PlanPullRequest[] = [];
    while (lineup[at + members.length]?.group === first.group) members.push(lineup[at + members.length] as PlanPullRequest);
    at += members.length - 1;
    if (!members.every((member) => member.state === 'PENDING' && !member.mergeRequested)) continue;
    const basePrs = view.expected[view.index.get(first.number) ?? 0] ?? [];
    const prs = members.map((member) => member.number);
    const memory = view.input.bisections[first.bisectionId];
    if (skipRedundant && (memory?.failed ?? []).includes(setKey(memory, view.unmerged(basePrs), prs))) {
      decisions.push(
        prs.length > 1
          ? { kind: 'split', prs, bisectionId: first.bisectionId }
          : { kind: 'failAtOnce', pr: first.number, basePrs, bisectionId: first.bisectionId },
      );
      continue;
    }
    if (bisectionRuns >= view.input.bisectionConcurrency) continue;
    decisions.push({ kind: 'startRun', runKind: 'bisection', prs, basePrs, bisectionId: first.bisectionId });
    bisectionRuns++;
  }
  return { decisions, wakeAt };
}

function settle(view: LineupView): Decision[] {
  const { state, activeRuns, lineup } = view.input;
  if (state !== 'draining' && state !== 'switching_modes') return [];
  if (activeRuns.length > 0 || lineup.some((pr) => pr.mergeRequested)) return [];
  return [{ kind: 'settle' }];
}
