/** How each input changes a queue, inside its transaction, before the planner has its say. */
import { isEnqueued, type RequestableQueueState } from '../../machines/vocabulary.js';
import type { QueueEvent } from '../../machines/index.js';
import { conflict, notFound } from '../model/errors.js';
import type { QueueInput } from '../model/events.js';
import { becomeReady, cancelPr, cancelRun, completeMerge, concludeRun, DEFAULT_PRIORITY, insertIntoLineup, kick, PRIORITIES, requeue, targetReadiness } from './moves.js';
import { describeVerdict, quarantineVerdict } from '../flaky/index.js';
import type { TargetState } from '../providers/types.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { TestRunRecord } from '../model/runs.js';
import { applyPatch, type QueuePatch } from '../model/queues.js';
import type { QueueTx } from './queueTx.js';

const STATE_EVENTS: Record<RequestableQueueState, QueueEvent['type']> = { running: 'RESUME', paused: 'PAUSE', draining: 'DRAIN' };

export function handle(q: QueueTx, input: QueueInput): void {
  switch (input.type) {
    case 'created':
      q.touchQueue();
      configure(q, { state: input.patch.state });
      q.effect({ kind: 'fetchTargetHead', repo: q.queue.repo, branch: q.queue.branch });
      return;
    case 'configured':
      return configure(q, input.patch);
    case 'submitted':
      return submit(q, input);
    case 'cancelled': {
      const pr = enqueued(q, input.number);
      if (pr.mergeRequested) throw conflict(`pull request #${input.number} is being merged`);
      return cancelPr(q, input.number, 'cancelled through the API');
    }
    case 'restarted':
      return restart(q, input.number);
    case 'status':
      return status(q, input);
    case 'timer':
      return timer(q, input.name);
    case 'targetHead':
      if (q.runtime.targetHead === '') q.runtime.targetHead = input.sha;
      return;
    case 'targetPushed':
      return targetPushed(q, input.sha);
    case 'prChecked':
      return checked(q, input);
    case 'branchBuilt':
      return built(q, input);
    case 'merged':
      return merged(q, input);
    case 'targetsSet':
      return targetsSet(q, input);
    case 'prNoted':
      if (q.pr(input.number) !== undefined) q.timeline(input.number, input.kind, input.message);
      return;
  }
}

function configure(q: QueueTx, patch: QueuePatch): void {
  const { state, mode, ...settings } = patch;
  const next = applyPatch(q.queue, settings, false, q.isoNow);
  q.queue.settings = next.settings;
  q.queue.requiredStatuses = next.requiredStatuses;
  if (mode !== undefined) {
    const event: QueueEvent = { type: 'SWITCH_MODE', mode };
    if (q.canQueue(event)) q.sendQueue(event);
  }
  if (state !== undefined) {
    const event = { type: STATE_EVENTS[state] } as QueueEvent;
    if (q.canQueue(event)) q.sendQueue(event);
  }
}

function enqueued(q: QueueTx, number: number): PullRequestRecord {
  const pr = q.pr(number);
  if (pr === undefined || !isEnqueued(pr.state)) throw notFound(`pull request #${number} is not in the queue`);
  return pr;
}

function priorityOf(priority: number | string | undefined): { value: number; name: string } {
  if (priority === undefined) return { value: PRIORITIES[DEFAULT_PRIORITY] as number, name: DEFAULT_PRIORITY };
  if (typeof priority === 'string') return { value: PRIORITIES[priority] as number, name: priority };
  const named = Object.entries(PRIORITIES).find(([, value]) => value === priority);
  return { value: priority, name: named?.[0] ?? String(priority) };
}

function submit(q: QueueTx, input: Extract<QueueInput, { type: 'submitted' }>): void {
  if (q.queueState === 'draining') throw conflict('the queue is draining: it takes no new pull requests');
  const existing = q.pr(input.number);
  if (existing !== undefined && isEnqueued(existing.state)) {
    resubmit(q, existing, input);
    return;
  }
  if (existing?.state === 'MERGED') throw conflict(`pull request #${input.number} is already merged`);
  const priority = priorityOf(input.priority);
  const record: PullRequestRecord = {
    id: `${q.queue.id.replace(/^q_/, 'pr_')}_${input.number}_${q.runtime.counters.entry++}`,
    queueId: q.queue.id,
    number: input.number,
    title: existing?.title ?? '',
    sha: existing?.sha ?? '',
    baseBranch: existing?.baseBranch ?? '',
    author: existing?.author ?? '',
    state: 'NOT_READY',
    stateChangedAt: q.isoNow,
    priorityValue: priority.value,
    priorityName: priority.name,
    usedDefaultPriorityName: input.priority === undefined ? DEFAULT_PRIORITY : '',
    skipTheLine: input.skipTheLine ?? false,
    noBatch: input.noBatch ?? false,
    readiness: {
      hasImpactedTargets: false,
      requiresImpactedTargets: false,
      doesBaseBranchMatch: true,
      gitHubMergeability: 'in_progress',
    },
    upToDate: false,
    runId: null,
    reason: null,
    submittedSeq: q.runtime.counters.submission++,
    readyAt: null,
    testedBase: null,
    bisectionId: null,
    group: null,
    mergeRequested: false,
    mergedBy: null,
    runsBehindEnded: 0,
    mergedSha: null,
    ...(existing?.failedAttempts === undefined ? {} : { failedAttempts: existing.failedAttempts }),
  };
  q.enterPr(record);
  q.runtime.waiting.push(input.number);
  q.timeline(input.number, 'submitted', `submitted with priority ${priority.name}${record.noBatch ? ', not batched' : ''}${record.skipTheLine ? ', skipping the line' : ''}`);
  q.effect({ kind: 'checkPullRequest', repo: q.queue.repo, branch: q.queue.branch, number: input.number, entryId: record.id });
}

/** Submitting a queued PR again updates its priority and batching; it never makes a second entry. */
function resubmit(q: QueueTx, pr: PullRequestRecord, input: Extract<QueueInput, { type: 'submitted' }>): void {
  const record = q.markPr(pr.number);
  const before = `${record.priorityValue}/${record.skipTheLine}`;
  if (input.priority !== undefined) {
    const priority = priorityOf(input.priority);
    record.priorityValue = priority.value;
    record.priorityName = priority.name;
    record.usedDefaultPriorityName = '';
  }
  if (input.noBatch !== undefined) record.noBatch = input.noBatch;
  if (input.skipTheLine !== undefined) record.skipTheLine = input.skipTheLine;
  q.timeline(pr.number, 'resubmitted', `submitted again: priority ${record.priorityName}${record.noBatch ? ', not batched' : ''}${record.skipTheLine ? ', skipping the line' : ''}`);
  // Submitting again after a push (a fixed conflict, a missing head now there) is how a NOT_READY PR gets a new look.
  if (record.state === 'NOT_READY') {
    q.effect({ kind: 'checkPullRequest', repo: q.queue.repo, branch: q.queue.branch, number: pr.number, entryId: record.id });
  }
  const moved = before !== `${record.priorityValue}/${record.skipTheLine}`;
  if (moved && record.state === 'PENDING' && record.group === null && q.runtime.lineup.includes(pr.number)) {
    q.runtime.lineup = q.runtime.lineup.filter((number) => number !== pr.number);
    insertIntoLineup(q, pr.number);
  }
}

function restart(q: QueueTx, number: number): void {
  const pr = enqueued(q, number);
  if (pr.mergeRequested) throw conflict(`pull request #${number} is being merged`);
  const reason = 'tests restarted through the API';
  switch (pr.state) {
    case 'NOT_READY':
      q.timeline(number, 'restarted', 'readiness checked again');
      q.effect({ kind: 'checkPullRequest', repo: q.queue.repo, branch: q.queue.branch, number, entryId: pr.id });
      return;
    case 'PENDING':
      q.timeline(number, 'restarted', 'restart asked; it is already waiting to be tested');
      return;
    case 'TESTING':
      if (pr.runId !== null) cancelRun(q, pr.runId, reason, 'requeue');
      return;
    default:
      requeue(q, number, reason);
  }
}

function status(q: QueueTx, input: Extract<QueueInput, { type: 'status' }>): void {
  const run = q.markRun(input.runId);
  const check = { context: input.context, state: input.state, url: input.url, description: input.description, updatedAt: q.isoNow };
  const at = run.statusChecks.findIndex((existing) => existing.context === input.context);
  if (at === -1) run.statusChecks.push(check);
  else run.statusChecks[at] = check;
  const state = quarantined(q, run, input) ? 'success' : input.state;
  if (q.sendRun(input.runId, { type: 'STATUS', context: input.context, state })) concludeRun(q, input.runId);
}

/**
 * The link between the two halves of the product: a `failure` whose failed tests, as uploaded for the run's test
 * branch SHA, are all quarantined counts as a success. The check keeps the state CI reported; the run records the
 * quarantined tests and each PR's timeline says why it passed. Only `failure` qualifies: `error` means CI itself
 * could not run, and no test upload can vouch for that. The uploads must arrive before the status does (the
 * `greenline upload` step runs inside the CI job): a run, once failed, stays failed.
 */
function quarantined(q: QueueTx, run: TestRunRecord, input: Extract<QueueInput, { type: 'status' }>): boolean {
  if (input.state !== 'failure' || run.status !== 'in_progress' || run.testBranchSha === '') return false;
  if (run.requiredStatuses.length > 0 && !run.requiredStatuses.includes(input.context)) return false;
  const verdict = quarantineVerdict(q.tx, q.queue.org, q.queue.repo, run.testBranchSha, q.now);
  if (verdict === undefined || !verdict.allFailuresQuarantined) return false;
  const names = verdict.failedTests.map((test) => test.name);
  run.quarantinedFailures = [...new Set([...(run.quarantinedFailures ?? []), ...names])];
  const message = `${input.context} ${describeVerdict(verdict)}`;
  for (const number of run.prs) q.timeline(number, 'quarantine_passed', message, { runId: run.id, sha: run.testBranchSha });
  return true;
}

function timer(q: QueueTx, name: string): void {
  q.clearTimer(name);
  if (name.startsWith('run:')) {
    const runId = name.slice('run:'.length);
    if (q.sendRun(runId, { type: 'TIMEOUT', at: q.now })) concludeRun(q, runId);
  }
  // 'batch': nothing to do but plan again, which the engine does after every input.
}

function checked(q: QueueTx, input: Extract<QueueInput, { type: 'prChecked' }>): void {
  const pr = q.pr(input.number);
  if (pr === undefined || pr.id !== input.entryId || pr.state !== 'NOT_READY') return;
  const record = q.markPr(input.number);
  const facts = input.facts;
  if (facts === null) {
    record.readiness = { ...record.readiness, gitHubMergeability: 'not_mergeable' };
    q.timeline(input.number, 'not_ready', 'the git host does not know this pull request');
    return;
  }
  Object.assign(record, { title: facts.title, author: facts.author, sha: facts.sha, baseBranch: facts.baseBranch, upToDate: facts.upToDate });
  if (facts.changedLines !== undefined) record.changedLines = facts.changedLines;
  if (facts.target !== undefined) observeTarget(q, facts.target);
  const baseMatches = facts.baseBranch === q.queue.branch;
  record.readiness = {
    ...record.readiness,
    ...targetReadiness(q, input.number),
    doesBaseBranchMatch: baseMatches,
    gitHubMergeability: facts.mergeable ? 'mergeable' : 'not_mergeable',
  };
  if (!baseMatches || !facts.mergeable) {
    const why = !baseMatches
      ? `its base branch is ${facts.baseBranch}, not ${q.queue.branch}`
      : `the git host reports it not mergeable${facts.notMergeableReason === undefined ? '' : `: ${facts.notMergeableReason}`}`;
    q.timeline(input.number, 'not_ready', `not ready: ${why}`);
    return;
  }
  if (!becomeReady(q, input.number)) {
    q.timeline(input.number, 'not_ready', `not ready: waiting for impacted targets for ${facts.sha} (setImpactedTargets)`, { sha: facts.sha });
  }
}

/** Targets uploaded: a PR waiting for them at that head SHA becomes ready; a queued one is planned on the new graph. */
function targetsSet(q: QueueTx, input: Extract<QueueInput, { type: 'targetsSet' }>): void {
  q.forgetTargets(input.number);
  const pr = q.pr(input.number);
  if (pr === undefined || !isEnqueued(pr.state) || pr.sha.toLowerCase() !== input.sha) return;
  const record = q.markPr(input.number);
  record.readiness = { ...record.readiness, ...targetReadiness(q, input.number) };
  const what = input.targets === 'ALL' ? 'ALL' : `${input.targets} target(s)`;
  q.timeline(input.number, 'impacted_targets', `impacted targets for ${input.sha}: ${what}`, { sha: input.sha });
  if (record.state === 'NOT_READY') becomeReady(q, input.number);
}

function built(q: QueueTx, input: Extract<QueueInput, { type: 'branchBuilt' }>): void {
  const run = q.run(input.runId);
  if (run === undefined) return;
  const result = input.result;
  if (!result.ok) {
    if (run.status !== 'in_progress') return;
    const reason = `the test branch could not be built: ${result.reason}`;
    if (result.gaveUp === true) return cancelRun(q, input.runId, reason, 'cancel');
    if (result.target !== undefined) return targetMoved(q, result.target, reason);
    // A PR under test that cannot be applied fails at once (a conflict is no flake); the others test again without it.
    const culprit = result.conflict?.number;
    const culpritPr = culprit === undefined ? undefined : q.pr(culprit);
    if (culprit !== undefined && culpritPr?.state === 'TESTING' && culpritPr.runId === input.runId && !culpritPr.mergeRequested) {
      q.sendPr(culprit, { type: 'FAIL', runId: input.runId, reason: result.reason });
      kick(q, culprit);
      cancelRun(q, input.runId, `#${culprit} could not be applied: ${result.reason}`, 'requeue');
      return;
    }
    cancelRun(q, input.runId, reason, 'requeue');
    // A PR of the run's base does not apply (in parallel mode, another lane's merge moved the target under it): its
    // own result no longer holds. It is built again on the current target, where it fails on its own if it still
    // conflicts; rebuilding this run first would only meet the same conflict again.
    if (culprit !== undefined && culpritPr !== undefined && run.basePrs.includes(culprit) && isEnqueued(culpritPr.state) && !culpritPr.mergeRequested) {
      const why = `#${culprit} no longer applies on ${q.queue.branch}: ${result.reason}`;
      if (culpritPr.state === 'TESTING' && culpritPr.runId !== null) cancelRun(q, culpritPr.runId, why, 'requeue');
      else if (culpritPr.state !== 'PENDING') requeue(q, culprit, why);
    }
    return;
  }
  const record = q.markRun(input.runId);
  record.testBranch = result.branch;
  record.testBranchSha = result.sha;
  q.tx.put('runsBySha', [q.queue.org, result.sha.toLowerCase()], [q.queue.id, input.runId]);
  if (record.status === 'in_progress') {
    q.effect({
      kind: 'startCi',
      run: {
        org: q.queue.org,
        repo: q.queue.repo,
        runId: input.runId,
        branch: result.branch,
        sha: result.sha,
        startedAt: Date.parse(record.createdAt),
        baseSha: record.baseSha,
        deadlineAt: q.runContext(input.runId).deadlineAt,
      },
    });
  }
}

function merged(q: QueueTx, input: Extract<QueueInput, { type: 'merged' }>): void {
  const pr = q.pr(input.number);
  if (pr === undefined || pr.id !== input.entryId || !pr.mergeRequested) return;
  if (input.result.ok) {
    completeMerge(q, input.number, input.result.head);
    if (input.result.target?.head === input.result.head) observeTarget(q, input.result.target);
    return;
  }
  const record = q.markPr(input.number);
  record.mergeRequested = false;
  record.mergedBy = null;
  record.upToDate = false;
  const reason = `the git host refused the merge: ${input.result.reason}`;
  if (record.state === 'PENDING') q.timeline(input.number, 'merge_failed', reason);
  else if (input.result.target === undefined) requeue(q, input.number, reason);
  if (input.result.target !== undefined) targetMoved(q, input.result.target, reason);
}

/** True when nothing in the queue was tested on (or is being tested on, or merged onto) the current target head. */
function holdsNoResult(q: QueueTx): boolean {
  return (
    q.runtime.activeRuns.length === 0 &&
    q.runtime.lineup.every((number) => {
      const pr = q.requirePr(number);
      return pr.state === 'PENDING' && !pr.mergeRequested;
    })
  );
}

/**
 * The git host says where the target branch is and what its configuration requires. The engine adopts the head
 * when it has none, or when nothing depends on the old one; the configuration's required statuses (source
 * `service_config`) are kept when they are those of the head the engine works on.
 */
function observeTarget(q: QueueTx, target: TargetState): void {
  if (target.head !== q.runtime.targetHead && (q.runtime.targetHead === '' || holdsNoResult(q))) q.runtime.targetHead = target.head;
  if (target.head === q.runtime.targetHead && target.requiredStatuses !== undefined) {
    q.queue.repositoryConfig = { sha: target.head, requiredStatuses: target.requiredStatuses };
  }
  if (target.head === q.runtime.targetHead) observeProtection(q, target);
}

/** Branch protection's required statuses (source `repo_provider_branch_protection`), from hosts that have it. */
function observeProtection(q: QueueTx, target: TargetState): void {
  if (target.protectionStatuses === undefined) return;
  q.queue.branchProtection = { sha: target.head, requiredStatuses: target.protectionStatuses };
  q.touchQueue();
}

/**
 * The git host reports a push to the target branch. Greenline's own merges are pushes too, and their webhooks may come
 * before or long after the merge's result: a head the queue knows (its own, a merged PR's) and any push while a merge
 * is under way are left to the merges. Any other head is the target moving under the queue: what was tested, or is
 * being tested, on the old head is tested again on the new one (as when a merge finds the branch moved).
 */
function targetPushed(q: QueueTx, sha: string): void {
  if (q.runtime.targetHead === '' || sha === q.runtime.targetHead) return;
  if (q.runtime.lineup.some((number) => q.requirePr(number).mergeRequested)) return;
  for (const { value: pr } of q.tx.scan('pullRequests', { prefix: [q.queue.id] })) if (pr.mergedSha === sha) return;
  targetMoved(q, { head: sha }, `${q.queue.branch} was pushed to`);
}

/**
 * The target branch is not where the engine thought (pushed to directly, rewritten): adopt its head and test again
 * everything that was tested, or is being tested, on the old one. Nothing untested merges.
 */
function targetMoved(q: QueueTx, target: TargetState, reason: string): void {
  const before = q.runtime.targetHead;
  q.runtime.targetHead = target.head;
  if (target.requiredStatuses !== undefined) q.queue.repositoryConfig = { sha: target.head, requiredStatuses: target.requiredStatuses };
  observeProtection(q, target);
  q.touchQueue();
  const why = `${q.queue.branch} is at ${target.head.slice(0, 12)}, not ${before.slice(0, 12) || '(unknown)'}; testing again (${reason})`;
  for (const runId of [...q.runtime.activeRuns]) {
    if (q.run(runId)?.status === 'in_progress') cancelRun(q, runId, why, 'requeue');
  }
  for (const number of [...q.runtime.lineup]) {
    const pr = q.requirePr(number);
    if ((pr.state === 'TESTS_PASSED' || pr.state === 'PENDING_FAILURE') && !pr.mergeRequested) requeue(q, number, why);
  }
}
