/**
 * The moves the engine makes on a queue inside a transaction, each through the machines: start, end and cancel a
 * run, requeue, kick, merge, and keep the line-up in order. Handlers (inputs from outside) and the reconciler
 * (the planner's decisions) both use these.
 */
import { isEnqueued } from '../../machines/vocabulary.js';
import { halves, knownToFail, newBisection, rememberFailure } from '../planner/bisection.js';
import { adaptWindow, effectiveRequiredStatuses } from '../model/queues.js';
import { estimate, learn } from './likelihood.js';
import type { QueueTx } from './queueTx.js';
import { testBranchName, type TestRunRecord } from '../model/runs.js';
import type { BisectionMemory } from '../planner/bisection.js';

export const PRIORITIES: Record<string, number> = { urgent: 0, high: 10, medium: 100, low: 200 };
export const DEFAULT_PRIORITY = 'medium';

/** A sort value for the line-up: skipTheLine first, then priority value (0 highest). */
function rank(q: QueueTx, number: number): number {
  const pr = q.enqueuedPr(number) ?? q.requirePr(number);
  return pr.skipTheLine ? -1 : pr.priorityValue;
}

function interrupts(q: QueueTx, number: number): boolean {
  const pr = q.requirePr(number);
  return pr.skipTheLine || pr.priorityValue === 0;
}

/**
 * Puts a ready PR in its place. `urgent` and skipTheLine go to the front (behind others like them and behind a merge
 * under way), interrupting runs in progress; other PRs go behind every PR already testing, before waiting PRs of a
 * lower priority.
 */
export function insertIntoLineup(q: QueueTx, number: number): void {
  const lineup = q.runtime.lineup;
  let at = 0;
  if (interrupts(q, number)) {
    while (at < lineup.length) {
      const other = q.requirePr(lineup[at] as number);
      if (!other.mergeRequested && !interrupts(q, other.number)) break;
      at++;
    }
  } else {
    at = afterResults(q);
    while (at < lineup.length && rank(q, lineup[at] as number) <= rank(q, number)) at++;
  }
  lineup.splice(at, 0, number);
  q.touchQueue();
}

/** The place right behind every PR of the line-up that is testing, has a result, is being merged or bisected. */
function afterResults(q: QueueTx): number {
  let at = 0;
  q.runtime.lineup.forEach((other, index) => {
    const pr = q.enqueuedPr(other) ?? q.requirePr(other);
    if (pr.state !== 'PENDING' || pr.group !== null || pr.mergeRequested) at = index + 1;
  });
  return at;
}

/** What readiness says of impacted targets: required in parallel mode, present for the PR's head SHA or not. */
export function targetReadiness(q: QueueTx, number: number): { requiresImpactedTargets: boolean; hasImpactedTargets: boolean } {
  return { requiresImpactedTargets: q.queue.settings.mode === 'parallel', hasImpactedTargets: q.targetsOf(number) !== undefined };
}

/**
 * A NOT_READY PR whose git facts are good enters the line-up, unless the queue is parallel and its impacted targets
 * for its head SHA are missing. Returns whether it did.
 */
export function becomeReady(q: QueueTx, number: number): boolean {
  const pr = q.requirePr(number);
  const { readiness } = pr;
  if (pr.state !== 'NOT_READY' || readiness.gitHubMergeability !== 'mergeable' || !readiness.doesBaseBranchMatch) return false;
  if (q.queue.settings.mode === 'parallel' && q.targetsOf(number) === undefined) return false;
  const record = q.sendPr(number, { type: 'READY' });
  record.readyAt = q.now;
  q.runtime.waiting = q.runtime.waiting.filter((other) => other !== number);
  insertIntoLineup(q, number);
  q.timeline(number, 'ready', `ready: ${record.title} by ${record.author} at ${record.sha}; ${estimate(q, number)}`, { sha: record.sha });
  record.readyLikelihood = record.likelihood;
  return true;
}

/** A new mode applied: every queued PR's readiness says what the mode asks, and PRs it no longer holds back enter. */
export function modeApplied(q: QueueTx): void {
  for (const number of [...q.runtime.lineup, ...q.runtime.waiting]) {
    const pr = q.requirePr(number);
    const targets = targetReadiness(q, number);
    if (pr.readiness.requiresImpactedTargets !== targets.requiresImpactedTargets || pr.readiness.hasImpactedTargets !== targets.hasImpactedTargets) {
      q.markPr(number).readiness = { ...pr.readiness, ...targets };
    }
  }
  for (const number of [...q.runtime.waiting]) becomeReady(q, number);
}

export function removeFromLineup(q: QueueTx, number: number): void {
  const runtime = q.runtime;
  runtime.lineup = runtime.lineup.filter((other) => other !== number);
  runtime.waiting = runtime.waiting.filter((other) => other !== number);
}

export function startRun(
  q: QueueTx,
  decision: { runKind: 'main' | 'bisection'; prs: number[]; basePrs: number[]; bisectionId: string | null },
): TestRunRecord {
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
  q.createRun(record, deadlineAt);
  q.setTimer(`run:${id}`, deadlineAt);
  q.runtime.activeRuns.push(id);
  const tested: number[] = [];
  const onTop = decision.basePrs.length === 0 ? 'the target branch' : `the target branch + #${decision.basePrs.join(', #')}`;
  for (const number of decision.prs) {
    const pr = q.sendPr(number, { type: 'START_TEST', runId: id });
    pr.testedBase = [...decision.basePrs, ...tested];
    tested.push(number);
    const batch = decision.prs.length > 1 ? ` with #${decision.prs.filter((n) => n !== number).join(', #')}` : '';
    q.timeline(number, 'testing', `testing in run ${id} on top of ${onTop}${batch}`, { runId: id });
    statusCheck(q, number, 'pending', `testing in ${id}`);
  }
  const shas = [...decision.basePrs, ...decision.prs].map((number) => ({ number, sha: q.requirePr(number).sha }));
  q.effect({
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
  });
  return record;
}

/** What becomes of the PRs a run was testing when it ends without a verdict of its own. */
export type Aftermath = 'requeue' | 'cancel';

/** Cancels a run in progress (restart, a changed base, a PR leaving) and moves the PRs it was testing. */
export function cancelRun(q: QueueTx, runId: string, reason: string, aftermath: Aftermath): void {
  const testing = testingPrs(q, runId);
  if (q.sendRun(runId, { type: 'CANCEL', reason })) runEnded(q, runId);
  for (const number of testing) {
    if (aftermath === 'requeue') requeue(q, number, reason);
    else cancelPr(q, number, reason);
  }
}

function testingPrs(q: QueueTx, runId: string): number[] {
  return q.requireRun(runId).prs.filter((number) => {
    const pr = q.pr(number);
    return pr !== undefined && pr.state === 'TESTING' && pr.runId === runId;
  });
}

/** Bookkeeping when a run reaches a final status, whatever the status. */
function runEnded(q: QueueTx, runId: string): void {
  const run = q.requireRun(runId);
  q.runtime.activeRuns = q.runtime.activeRuns.filter((id) => id !== runId);
  q.clearTimer(`run:${runId}`);
  q.effect({ kind: 'endRun', repo: q.queue.repo, runId, branch: run.testBranch });
  if (run.status === 'cancelled') return;
  // A run that contained a PR waiting in PENDING_FAILURE counts toward that PR's pendingFailureDepth.
  for (const number of run.basePrs) {
    if (q.enqueuedPr(number)?.state !== 'PENDING_FAILURE') continue;
    const record = q.markPr(number);
    record.runsBehindEnded++;
    if (run.status === 'failed') record.runsBehindFailed = (record.runsBehindFailed ?? 0) + 1;
  }
}

/**
 * A run reached its verdict (or timed out): move its PRs as the verdict says. A failure is not blamed on the PRs
 * under test while a PR of its base had failed first (it is the likely cause): they wait and are tested again once
 * that failure is settled. A bisection group that passed goes back to the main line.
 */
export function concludeRun(q: QueueTx, runId: string): void {
  const testing = testingPrs(q, runId);
  runEnded(q, runId);
  const run = q.requireRun(runId);
  if (run.status === 'succeeded') {
    if (run.kind === 'main') adaptWindow(q.queue.settings, q.runtime, true);
    for (const number of testing) {
      q.sendPr(number, { type: 'PASS' }).failureRetests = 0;
      q.timeline(number, 'passed', `tests passed in run ${runId}`, { runId });
    }
    if (run.bisectionId !== null && testing.length > 0) rescue(q, run, testing);
  } else if (run.status === 'failed') {
    const failedFirst = run.basePrs.find((number) => q.enqueuedPr(number)?.state === 'PENDING_FAILURE');
    if (failedFirst !== undefined) {
      const why = `run ${runId} failed with #${failedFirst} in its base, which had failed first: tested again once that failure is settled`;
      for (const number of testing) requeue(q, number, why);
      return;
    }
    // The window shrinks on a failure that costs a reset: a main-line run in progress on top of its PRs.
    const resets = q.runtime.activeRuns.some((id) => {
      const other = q.requireRun(id);
      return other.kind === 'main' && other.basePrs.some((number) => run.prs.includes(number));
    });
    if (run.kind === 'main') adaptWindow(q.queue.settings, q.runtime, false, resets);
    const reason = `run ${runId} failed: ${run.reason ?? 'a required status failed'}`;
    for (const number of testing) fail(q, number, runId, reason);
  } else {
    for (const number of testing) cancelPr(q, number, run.reason ?? 'the run was cancelled');
  }
}

function fail(q: QueueTx, number: number, runId: string | null, reason: string): void {
  const pr = q.sendPr(number, { type: 'FAIL', runId, reason });
  pr.runsBehindEnded = 0;
  pr.runsBehindFailed = 0;
  pr.failedAttempts = (pr.failedAttempts ?? 0) + 1;
  q.timeline(number, 'pending_failure', `${reason}; ${estimate(q, number)}`, runId === null ? {} : { runId });
}

/** A PR known to fail without a run: the rest of a set that failed passed on the same base. */
export function failAtOnce(q: QueueTx, number: number, basePrs: number[], bisectionId: string): void {
  q.markPr(number).testedBase = basePrs;
  fail(q, number, null, `bisection ${bisectionId}: known to fail without a run (the set it was in failed, and the rest of that set passed)`);
}

/**
 * Anti-flake: a failed PR that the runs behind it did not vouch for is tested alone once more before it is kicked,
 * off the main line (a bisection of one, in the bisection pool), so that the PRs behind it go on without it.
 */
export function retest(q: QueueTx, number: number): void {
  const pr = q.markPr(number);
  pr.failureRetests = (pr.failureRetests ?? 0) + 1;
  const reason = `tested alone once more before it is kicked (pendingFailureDepth): retest ${pr.failureRetests}`;
  const bisectionId = pr.bisectionId ?? `r${q.runtime.counters.group}`;
  q.runtime.bisections[bisectionId] ??= newBisection();
  q.sendPr(number, { type: 'REQUEUE', reason }).testedBase = null;
  if (pr.group === null) split(q, [number], bisectionId);
  q.timeline(number, 'retesting', reason);
}

/** A failed set of several PRs on a settled base leaves the main line: it is split in halves, in a bisection. */
export function bisect(q: QueueTx, decision: { prs: number[]; basePrs: number[]; bisectionId: string | null }): void {
  const bisectionId = decision.bisectionId ?? `b${q.runtime.counters.bisection++}`;
  const memory = (q.runtime.bisections[bisectionId] ??= newBisection());
  rememberFailure(memory, decision.prs, decision.basePrs);
  const reason = `${q.requirePr(decision.prs[0] as number).reason ?? 'its run failed'}; bisecting`;
  for (const number of decision.prs) {
    q.sendPr(number, { type: 'BISECT', reason }).testedBase = null;
  }
  split(q, decision.prs, bisectionId);
}

/**
 * Splits a bisection group in halves. With skip-redundant the second half waits for the first half's verdict (which
 * may tell that it fails: see rescue); otherwise both are tested at once.
 */
export function split(q: QueueTx, prs: number[], bisectionId: string): void {
  const memory = (q.runtime.bisections[bisectionId] ??= newBisection());
  const groups = halves(prs)
    .filter((part) => part.length > 0)
    .map((part) => {
      const group = `g${q.runtime.counters.group++}`;
      for (const number of part) {
        const pr = q.markPr(number);
        pr.bisectionId = bisectionId;
        pr.group = group;
        q.timeline(number, 'bisecting', `bisection ${bisectionId}: tested with #${part.join(', #')}`);
      }
      return group;
    });
  const [first, second] = groups;
  if (q.queue.settings.optimizationMode === 'bisection_skip_redundant_tests' && first !== undefined && second !== undefined) {
    (memory.waits ??= {})[second] = { after: first, parent: [...prs] };
  }
}

/**
 * A bisection group passed: its PRs go back to the main line, behind the runs in progress (which they would
 * invalidate) and ahead of the PRs still waiting. Their pass stands if nothing merged since their run began but the
 * PRs it was tested on; otherwise they are tested again. With skip-redundant, the half that waited for them is now
 * known to fail, if their set failed on the same base.
 */
function rescue(q: QueueTx, run: TestRunRecord, prs: number[]): void {
  const bisectionId = run.bisectionId as string;
  const memory = q.runtime.bisections[bisectionId];
  const group = q.requirePr(prs[0] as number).group;
  const mergedSince = memory === undefined || run.bisectionMark === undefined ? undefined : memory.merged.slice(run.bisectionMark);
  const stale = mergedSince === undefined || mergedSince.some((number) => !run.basePrs.includes(number));
  for (const number of prs) {
    const pr = q.markPr(number);
    pr.group = null;
    pr.bisectionId = null;
  }
  q.runtime.lineup = q.runtime.lineup.filter((number) => !prs.includes(number));
  q.runtime.lineup.splice(afterResults(q), 0, ...prs);
  q.touchQueue();
  for (const number of prs) {
    q.timeline(number, 'rescued', `found good by bisection ${bisectionId}: back in the main line`, { runId: run.id });
    if (stale) requeue(q, number, 'the target branch moved since its bisection run began: tested again on top of it');
  }
  if (memory !== undefined && group !== null) inferSecondHalf(q, memory, bisectionId, group, run);
}

function inferSecondHalf(q: QueueTx, memory: BisectionMemory, bisectionId: string, group: string, run: TestRunRecord): void {
  for (const [second, wait] of Object.entries(memory.waits ?? {})) {
    if (wait.after !== group) continue;
    delete memory.waits?.[second];
    const members = q.runtime.lineup.filter((number) => q.requirePr(number).group === second);
    const whole = [...run.prs, ...members];
    const rest = new Set(wait.parent);
    if (members.length === 0 || whole.length !== rest.size || !whole.every((number) => rest.has(number))) continue;
    if (!knownToFail(memory, wait.parent, run.basePrs)) continue;
    rememberFailure(memory, members, run.basePrs);
    if (members.length > 1) split(q, members, bisectionId);
    else failAtOnce(q, members[0] as number, run.basePrs, bisectionId);
  }
}

export function requeue(q: QueueTx, number: number, reason: string): void {
  const pr = q.sendPr(number, { type: 'REQUEUE', reason });
  pr.testedBase = null;
  q.timeline(number, 'requeued', reason);
}

export function kick(q: QueueTx, number: number): void {
  learn(q, number, true);
  const before = q.requirePr(number);
  const reason = before.reason ?? 'its tests failed';
  q.sendPr(number, { type: 'KICK', reason });
  leave(q, number);
  q.timeline(number, 'failed', `removed from the queue: ${reason}`, before.runId === null ? {} : { runId: before.runId });
  comment(q, number, `Greenline removed this pull request from the queue: ${reason}`);
  statusCheck(q, number, 'failure', 'failed in the merge queue');
}

export function cancelPr(q: QueueTx, number: number, reason: string): void {
  const pr = q.requirePr(number);
  if (!isEnqueued(pr.state)) return;
  const runId = pr.state === 'TESTING' ? pr.runId : null;
  q.sendPr(number, { type: 'CANCEL', reason });
  leave(q, number);
  q.timeline(number, 'cancelled', reason);
  statusCheck(q, number, 'failure', `cancelled: ${reason}`);
  // Its run tested it (maybe with others): the result no longer means anything.
  if (runId !== null && q.run(runId)?.status === 'in_progress') cancelRun(q, runId, `#${number} was cancelled`, 'requeue');
}

function leave(q: QueueTx, number: number): void {
  const pr = q.markPr(number);
  pr.group = null;
  pr.bisectionId = null;
  removeFromLineup(q, number);
}

export function requestMerge(q: QueueTx, number: number, how: { vouchedBy?: string; direct?: boolean }): void {
  const pr = q.markPr(number);
  pr.mergeRequested = true;
  pr.mergedBy = how.direct === true ? 'direct' : (how.vouchedBy ?? null);
  const run = pr.runId === null ? undefined : q.run(pr.runId);
  const vouched = how.vouchedBy === undefined ? undefined : q.run(how.vouchedBy);
  q.effect({
    kind: 'merge',
    number,
    entryId: pr.id,
    request: {
      repo: q.queue.repo,
      targetBranch: q.queue.branch,
      expectedHead: q.runtime.targetHead,
      pullRequest: { number, sha: pr.sha, title: pr.title },
      testBranchSha: (vouched ?? run)?.testBranchSha || null,
      mergeMethod: q.queue.settings.mergeMethod,
      ...(((vouched ?? run)?.mode ?? q.queue.settings.mode) === 'parallel' ? { independentBase: true } : {}),
    },
  });
  const why = how.direct === true ? 'directly (up to date, nothing ahead)' : how.vouchedBy !== undefined ? `vouched for by run ${how.vouchedBy}` : `after run ${pr.runId ?? ''} passed`;
  q.timeline(number, 'merging', `merging ${why}`);
}

/** The git host merged it: the target moves on, the PR leaves the queue. */
export function completeMerge(q: QueueTx, number: number, head: string): void {
  const pr = q.requirePr(number);
  const how = pr.mergedBy;
  const runId = pr.state === 'TESTING' ? pr.runId : null;
  q.sendPr(number, how === 'direct' ? { type: 'MERGE', direct: true } : how !== null ? { type: 'MERGE', vouchedBy: how } : { type: 'MERGE' });
  const record = q.markPr(number);
  record.mergeRequested = false;
  record.mergedSha = head;
  // Indexed by head: a late push webhook of this merge is known as the queue's own in one read (targetPushed).
  q.tx.put('mergedHeads', [q.queue.id, head.toLowerCase()], number);
  q.runtime.targetHead = head;
  q.runtime.merged.push(number);
  for (const memory of Object.values(q.runtime.bisections)) memory.merged.push(number);
  learn(q, number, false);
  leave(q, number);
  q.timeline(number, 'merged', `merged into ${q.queue.branch} as ${head}`, { sha: head });
  comment(q, number, `Greenline merged this pull request into ${q.queue.branch} (${head}).`);
  statusCheck(q, number, 'success', 'merged');
  if (runId !== null && q.run(runId)?.status === 'in_progress') {
    cancelRun(q, runId, `#${number} merged, vouched for by a run behind it`, 'requeue');
  }
}

function comment(q: QueueTx, number: number, body: string): void {
  if (q.queue.settings.commentsEnabled) q.effect({ kind: 'comment', repo: q.queue.repo, number, body });
}

function statusCheck(q: QueueTx, number: number, state: 'pending' | 'success' | 'failure', description: string): void {
  const pr = q.requirePr(number);
  if (q.queue.settings.statusCheckEnabled && pr.sha !== '') {
    q.effect({ kind: 'statusCheck', repo: q.queue.repo, sha: pr.sha, state, description, number });
  }
}
