/** How each input changes a queue, inside its transaction, before the planner has its say. */
import { isEnqueued, type RequestableQueueState } from '../../machines/vocabulary.js';
import { hasPullRequestTag, hasTestRunTag } from '../../machines/index.js';
import type { QueueEvent } from '../../machines/index.js';
import { engineError } from '../model/errors.js';
import type { QueueInput } from '../model/events.js';
import { becomeReady, requeue, targetReadiness } from './moves.js';
import { cancelRun, concludeRun } from './runMoves.js';
import { quarantineVerdict } from '../flaky/index.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { TestRunRecord } from '../model/testRuns.js';
import { applyPatch, type QueuePatch } from '../model/queues.js';
import type { QueueTx } from './queueTx.js';
import { headPushed, recheckedInPlace } from './headPushed.js';
import { built, merged, observeTarget, targetPushed } from './hostResults.js';
import { prune } from './prune.js';
import { submit } from './submit.js';

const STATE_EVENTS: Record<RequestableQueueState, QueueEvent['type']> = {
  running: 'RESUME',
  paused: 'PAUSE',
  draining: 'DRAIN',
};

export function handle(q: QueueTx, input: QueueInput): void {
  switch (input.type) {
    case 'created':
      if (input.policy !== undefined && input.policy !== 1) q.runtime.policy = input.policy;
      q.touchQueue();
      configure(q, { state: input.patch.state });
      q.out.effect({ kind: 'fetchTargetHead', repo: q.queue.repo, branch: q.queue.branch });
      return;
    case 'configured':
      return configure(q, input.patch);
    case 'submitted':
      return submit(q, input);
    case 'cancelled': {
      const reason = input.by === undefined ? 'cancelled through the API' : `cancelled by ${input.by}`;
      enqueued(q, input.number);
      if (!q.prs.can(input.number, { type: 'CANCEL', reason }))
        throw engineError('pr_being_merged', { number: input.number });
      q.sendPr(input.number, { type: 'CANCEL', reason });
      return;
    }
    case 'restarted':
      return restart(q, input.number, input.by);
    case 'status':
      return status(q, input);
    case 'timer':
      return timer(q, input.name);
    case 'targetHead':
      if (q.runtime.targetHead === '') q.runtime.targetHead = input.sha;
      return;
    case 'targetPushed':
      return targetPushed(q, input.sha);
    case 'prPushed':
      return headPushed(q, input);
    case 'prChecked':
      return checked(q, input);
    case 'branchBuilt':
      return built(q, input);
    case 'merged':
      return merged(q, input);
    case 'targetsSet':
      return targetsSet(q, input);
    case 'prNoted':
      if (q.prs.get(input.number) !== undefined)
        q.out.timeline(input.number, {
          kind: input.kind === 'comment' ? 'hostComment' : 'hostStatusCheck',
          message: input.message,
        });
      return;
    case 'prune':
      return prune(q, input);
  }
}

function configure(q: QueueTx, patch: QueuePatch): void {
  const { state, mode, ...settings } = patch;
  const next = applyPatch(q.queue, settings, q.isoNow);
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
  const pr = q.prs.get(number);
  if (pr === undefined || !isEnqueued(pr.state)) throw engineError('pr_not_queued', { number });
  return pr;
}

function restart(q: QueueTx, number: number, by: string | undefined): void {
  const pr = enqueued(q, number);
  if (!q.prs.can(number, { type: 'RESTART' })) throw engineError('pr_being_merged', { number });
  const reason = by === undefined ? 'tests restarted through the API' : `tests restarted by ${by}`;
  const asked = by === undefined ? {} : { by };
  if (hasPullRequestTag(pr.state, 'notReady')) {
    q.out.timeline(number, { kind: 'restartRechecked', ...asked });
    q.out.effect({ kind: 'checkPullRequest', repo: q.queue.repo, branch: q.queue.branch, number, entryId: pr.id });
  } else if (hasPullRequestTag(pr.state, 'waiting')) {
    q.out.timeline(number, { kind: 'restartWaiting', ...asked });
  } else if (hasPullRequestTag(pr.state, 'testing')) {
    if (pr.runId !== null) q.write(cancelRun(q, pr.runId, reason, 'requeue'));
  } else {
    q.write([requeue(number, reason)]);
  }
}

function status(q: QueueTx, input: Extract<QueueInput, { type: 'status' }>): void {
  const run = q.runs.mark(input.runId);
  const check = {
    context: input.context,
    state: input.state,
    url: input.url,
    description: input.description,
    updatedAt: q.isoNow,
  };
  const at = run.statusChecks.findIndex((existing) => existing.context === input.context);
  if (at === -1) run.statusChecks.push(check);
  else run.statusChecks[at] = check;
  const state = quarantined(q, run, input) ? 'success' : input.state;
  if (q.runs.send(input.runId, { type: 'STATUS', context: input.context, state })) concludeRun(q, input.runId);
}

/**
 * The link between the two halves of the product: a `failure` whose failed tests, as uploaded for the run's test
 * branch SHA, are all quarantined counts as a success. The check keeps the state CI reported; the run records the
 * quarantined tests and each PR's timeline says why it passed. Only `failure` qualifies: `error` means CI itself
 * could not run, and no test upload can vouch for that. The uploads must arrive before the status does (the
 * `greenline upload` step runs inside the CI job): a run, once failed, stays failed.
 */
function quarantined(q: QueueTx, run: TestRunRecord, input: Extract<QueueInput, { type: 'status' }>): boolean {
  if (input.state !== 'failure' || !hasTestRunTag(run.status, 'inProgress') || run.testBranchSha === '') return false;
  if (run.requiredStatuses.length > 0 && !run.requiredStatuses.includes(input.context)) return false;
  const verdict = quarantineVerdict(q.tx, q.queue.org, q.queue.repo, run.testBranchSha, q.now);
  if (verdict === undefined || !verdict.allFailuresQuarantined) return false;
  const names = verdict.failedTests.map((test) => test.name);
  run.quarantinedFailures = [...new Set([...(run.quarantinedFailures ?? []), ...names])];
  for (const number of run.prs)
    q.out.timeline(
      number,
      { kind: 'quarantinePassed', context: input.context, verdict },
      { runId: run.id, sha: run.testBranchSha },
    );
  return true;
}

function timer(q: QueueTx, name: string): void {
  q.out.clearTimer(name);
  if (name.startsWith('run:')) {
    const runId = name.slice('run:'.length);
    if (q.runs.send(runId, { type: 'TIMEOUT', at: q.now })) concludeRun(q, runId);
  }
  // 'batch': nothing to do but plan again, which the engine does after every input.
}

function checked(q: QueueTx, input: Extract<QueueInput, { type: 'prChecked' }>): void {
  const pr = q.prs.get(input.number);
  if (pr !== undefined && pr.id === input.entryId && !hasPullRequestTag(pr.state, 'notReady'))
    return recheckedInPlace(q, input);
  if (pr === undefined || pr.id !== input.entryId || !hasPullRequestTag(pr.state, 'notReady')) return;
  const record = q.prs.mark(input.number);
  const facts = input.facts;
  if (facts === null) {
    record.readiness = { ...record.readiness, gitHubMergeability: 'not_mergeable' };
    q.out.timeline(input.number, { kind: 'unknownToHost' });
    return;
  }
  Object.assign(record, {
    title: facts.title,
    author: facts.author,
    sha: facts.sha,
    baseBranch: facts.baseBranch,
    upToDate: facts.upToDate,
  });
  if (facts.headBranch !== undefined) record.headBranch = facts.headBranch;
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
    q.out.timeline(input.number, { kind: 'notReady', why });
    return;
  }
  if (!becomeReady(q, input.number)) {
    q.out.timeline(input.number, { kind: 'waitingForTargets', sha: facts.sha }, { sha: facts.sha });
  }
}

/** Targets uploaded: a PR waiting for them at that head SHA becomes ready; a queued one is planned on the new graph. */
function targetsSet(q: QueueTx, input: Extract<QueueInput, { type: 'targetsSet' }>): void {
  q.prs.forgetTargets(input.number);
  const pr = q.prs.get(input.number);
  if (pr === undefined || !isEnqueued(pr.state) || pr.sha.toLowerCase() !== input.sha) return;
  const record = q.prs.mark(input.number);
  record.readiness = { ...record.readiness, ...targetReadiness(q, input.number) };
  q.out.timeline(input.number, { kind: 'impactedTargets', sha: input.sha, targets: input.targets }, { sha: input.sha });
  if (hasPullRequestTag(record.state, 'notReady')) becomeReady(q, input.number);
}
