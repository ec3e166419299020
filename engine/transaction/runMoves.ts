/**
 * A test run's moves inside a queue's transaction, through the run's machine and its PRs': start one, cancel one
 * (both return what to write: writes.ts), and conclude one that reached its verdict (or timed out), moving its PRs as
 * the verdict says.
 */
import { hasPullRequestTag, hasTestRunTag } from '../../machines/index.js';
import { adaptWindow, effectiveRequiredStatuses } from '../model/queues.js';
import { awaitsRunsBehind } from '../planner/failurePolicy.js';
import { testBranchName, type TestRunRecord } from '../model/testRuns.js';
import { rescue } from './bisectionMoves.js';
import { fail, requeue } from './moves.js';
import type { QueueTx } from './queueTx.js';
import type { MoveScope, Write } from './writes.js';

/** A new run of the PRs on their base: its record and machine, then its timer, its PRs' START_TEST, its branch. */
export function startRun(
  q: MoveScope,
  decision: { runKind: 'main' | 'bisection'; prs: number[]; basePrs: number[]; bisectionId: string | null },
): Write[] {
  const queue = q.queue;
  const id = `tr_${queue.id.slice(2)}_${q.runtime.counters.run++}`;
  const required = effectiveRequiredStatuses(queue);
  const record: TestRunRecord = {
    id,
    queueId: queue.id,
    org: queue.org,
    kind: decision.runKind,
    prs: decision.prs,
    basePrs: decision.basePrs,
    mode: queue.settings.mode,
    baseSha: q.runtime.targetHead,
    testBranch: testBranchName(queue.branch, id),
    testBranchSha: '',
    requiredStatuses: required.statuses,
    requiredStatusesSource: required.source,
    statusChecks: [],
    status: 'in_progress',
    reason: null,
    bisectionId: decision.bisectionId,
    createdAt: q.isoNow,
    endedAt: null,
  };
  const memory = decision.bisectionId === null ? undefined : q.runtime.bisections[decision.bisectionId];
  if (memory !== undefined) record.bisectionMark = memory.merged.length;
  const deadlineAt = q.now + queue.settings.testingTimeoutMinutes * 60_000;
  q.runs.create(record, deadlineAt);
  q.runtime.activeRuns.push(id);
  const writes: Write[] = [{ to: 'timer', name: `run:${id}`, dueAt: deadlineAt }];
  const tested: number[] = [];
  for (const number of decision.prs) {
    // START_TEST names its move: reportTesting.
    const event = { type: 'START_TEST', runId: id, testedBase: [...decision.basePrs, ...tested] } as const;
    writes.push({ to: 'pr', number, event });
    tested.push(number);
  }
  const shas = [...decision.basePrs, ...decision.prs].map((number) => ({ number, sha: q.prs.require(number).sha }));
  const effect = {
    kind: 'buildTestBranch',
    request: {
      repo: queue.repo,
      targetBranch: queue.branch,
      runId: id,
      baseSha: q.runtime.targetHead,
      pullRequests: shas,
      mergeMethod: queue.settings.mergeMethod,
      ...(queue.settings.createPrsForTestingBranches ? { openPullRequest: true as const } : {}),
    },
  } as const;
  writes.push({ to: 'effect', effect });
  return writes;
}

/** What becomes of the PRs a run was testing when it ends without a verdict of its own. */
export type Aftermath = 'requeue' | 'cancel';

/**
 * Cancels a run in progress (restart, a changed base, a PR leaving) and moves the PRs it was testing: CANCEL to the
 * run (its bookkeeping follows if that ends it), then each PR it was testing requeued or cancelled.
 */
export function cancelRun(q: MoveScope, runId: string, reason: string, aftermath: Aftermath): Write[] {
  const writes: Write[] = [{ to: 'run', runId, event: { type: 'CANCEL', reason } }];
  for (const number of testingPrs(q, runId))
    writes.push(aftermath === 'requeue' ? requeue(number, reason) : { to: 'cancelPr', number, reason });
  return writes;
}

/** Whether the PR is enqueued and waits with a failure (PENDING_FAILURE). */
function failing(q: MoveScope, number: number): boolean {
  const pr = q.prs.enqueued(number);
  return pr !== undefined && hasPullRequestTag(pr.state, 'failing');
}

/** Whether the run's verdict moves the adaptive window: a main-line run's, with the window on. */
function adaptive(q: MoveScope, run: TestRunRecord): boolean {
  return run.kind === 'main' && q.queue.settings.adaptiveWindow === true;
}

/** The window shrinks on a failure that costs a reset: a main-line run in progress on top of its PRs. */
function resetsRunsBehind(q: MoveScope, run: TestRunRecord): boolean {
  return q.runtime.activeRuns.some((id) => {
    const other = q.runs.require(id);
    return other.kind === 'main' && other.basePrs.some((number) => run.prs.includes(number));
  });
}

/** Every PR the run was tested on top of passed, is being merged or has merged: its verdict is its own PRs'. */
function settledBase(q: MoveScope, run: TestRunRecord): boolean {
  return run.basePrs.every((number) => {
    const pr = q.prs.enqueued(number);
    return (
      pr === undefined ||
      pr.mergeRequested ||
      hasPullRequestTag(pr.state, 'passed') ||
      hasPullRequestTag(pr.state, 'merged')
    );
  });
}

function testingPrs(q: MoveScope, runId: string): number[] {
  return q.runs.require(runId).prs.filter((number) => {
    const pr = q.prs.get(number);
    return pr !== undefined && hasPullRequestTag(pr.state, 'testing') && pr.runId === runId;
  });
}

/** Bookkeeping when a run reaches a final status, whatever the status: out of the active runs, and what to write. */
export function runEnded(q: MoveScope, runId: string): Write[] {
  const run = q.runs.require(runId);
  q.runtime.activeRuns = q.runtime.activeRuns.filter((id) => id !== runId);
  const writes: Write[] = [
    { to: 'timer', name: `run:${runId}`, dueAt: null },
    { to: 'effect', effect: { kind: 'endRun', repo: q.queue.repo, runId, branch: run.testBranch } },
  ];
  if (hasTestRunTag(run.status, 'cancelled')) return writes;
  // A run that contained a PR waiting in PENDING_FAILURE counts toward that PR's pendingFailureDepth (its machine
  // counts it: RUN_BEHIND_ENDED is taken only there), and says whether the failure policy still awaits runs behind it.
  for (const number of run.basePrs) {
    if (!failing(q, number)) continue;
    const runsBehindEnded = q.prs.require(number).runsBehindEnded + 1;
    const awaitsMore = awaitsRunsBehind({ runsBehindEnded }, q.queue.settings);
    const failed = hasTestRunTag(run.status, 'failed');
    writes.push({
      to: 'pr',
      number,
      event: { type: 'RUN_BEHIND_ENDED', failed, ...(awaitsMore ? { awaitsMore } : {}) },
    });
  }
  return writes;
}

/**
 * A run reached its verdict (or timed out): move its PRs as the verdict says. A failure is not blamed on the PRs
 * under test while a PR of its base had failed first (it is the likely cause): they wait and are tested again once
 * that failure is settled. A bisection group that passed goes back to the main line.
 */
export function concludeRun(q: QueueTx, runId: string): void {
  const testing = testingPrs(q, runId);
  q.write(runEnded(q, runId));
  const run = q.runs.require(runId);
  if (hasTestRunTag(run.status, 'succeeded')) {
    if (adaptive(q, run)) adaptWindow(q.queue.settings, q.runtime, true, { settled: settledBase(q, run) });
    // PASS names reportPassed (the timeline line); a pass also ends the anti-flake retests (the machine's).
    q.write(testing.map((number) => ({ to: 'pr', number, event: { type: 'PASS' } })));
    if (run.bisectionId !== null && testing.length > 0) rescue(q, run, testing);
  } else if (hasTestRunTag(run.status, 'failed')) {
    const failedFirst = run.basePrs.find((number) => failing(q, number));
    if (failedFirst !== undefined) {
      const why = `run ${runId} failed with #${failedFirst} in its base, which had failed first: tested again once that failure is settled`;
      q.write(testing.map((number) => requeue(number, why, failedFirst)));
      return;
    }
    if (adaptive(q, run))
      adaptWindow(q.queue.settings, q.runtime, false, {
        resets: resetsRunsBehind(q, run),
        settled: settledBase(q, run),
      });
    const reason = `run ${runId} failed: ${run.reason ?? 'a required status failed'}`;
    q.write(testing.map((number) => fail(number, runId, reason)));
  } else {
    const reason = run.reason ?? 'the run was cancelled';
    q.write(testing.map((number) => ({ to: 'cancelPr', number, reason })));
  }
}
