/**
 * A queued PR's head moves (a push to its branch: GitHub's `pull_request.synchronize`). The PR keeps its place in
 * the queue: what was tested with its old head no longer counts — its own run and every run or result on top of it
 * are tested again — and its facts are checked again for the new head, in place.
 */
import { isEnqueued } from '../../machines/vocabulary.js';
import { hasPullRequestTag, hasTestRunTag } from '../../machines/index.js';
import type { QueueInput } from '../model/events.js';
import { requeue } from './moves.js';
import { cancelRun } from './runMoves.js';
import type { QueueTx } from './queueTx.js';

export function headPushed(q: QueueTx, input: Extract<QueueInput, { type: 'prPushed' }>): void {
  const pr = q.prs.get(input.number);
  // The machine refuses HEAD_PUSHED once the PR left the queue, and while a merge is under way (it goes on with the
  // commits that were tested).
  if (pr === undefined || pr.sha.toLowerCase() === input.sha || !q.prs.can(input.number, { type: 'HEAD_PUSHED' }))
    return;
  const number = input.number;
  const before = pr.sha;
  const record = q.prs.mark(number);
  Object.assign(record, { sha: input.sha, upToDate: false });
  // The machine forgets what its old head earned: runs behind, anti-flake retests, refused merges.
  q.sendPr(number, { type: 'HEAD_PUSHED' });
  const reason = `#${number} was pushed to (${input.sha.slice(0, 12)}): results with its old head no longer count`;
  q.out.timeline(number, { kind: 'headPushed', before, after: input.sha }, { sha: input.sha });
  q.out.effect({ kind: 'checkPullRequest', repo: q.queue.repo, branch: q.queue.branch, number, entryId: pr.id });
  if (hasPullRequestTag(pr.state, 'notReady')) return;
  if (hasPullRequestTag(pr.state, 'testing') && pr.runId !== null && q.runs.inProgress(pr.runId))
    q.write(cancelRun(q, pr.runId, reason, 'requeue'));
  else if (hasPullRequestTag(pr.state, 'passed') || hasPullRequestTag(pr.state, 'failing'))
    q.write([requeue(number, reason)]);
  // A bisection tested its old head: the new one goes back to the main line, in its place.
  if (record.group !== null) q.sendPr(number, { type: 'LEAVE_GROUP' });
  invalidateOnTop(q, number, reason);
  if (q.queue.settings.mode === 'parallel' && q.prs.targetsOf(number) === undefined)
    unready(q, number, `waiting for impacted targets for ${input.sha} (setImpactedTargets)`);
}

/** Runs in progress and results that were tested on top of the PR: tested again. */
function invalidateOnTop(q: QueueTx, number: number, reason: string): void {
  for (const runId of [...q.runtime.activeRuns]) {
    const run = q.runs.get(runId);
    if (run !== undefined && hasTestRunTag(run.status, 'inProgress') && run.basePrs.includes(number))
      q.write(cancelRun(q, runId, reason, 'requeue'));
  }
  // A result that stood on it (the machine's guard testedOnIt: passed or failing, no merge under way, tested on it)
  // is tested again; the transition names the report (reportRequeued). Only PRs whose record (the machine's
  // projection) shows a tested base with it are asked: asking every PR's machine computes a transition per PR.
  const changed = { type: 'BASE_CHANGED', number, reason } as const;
  for (const other of [...q.runtime.lineup]) {
    const record = q.prs.enqueued(other) ?? q.prs.get(other);
    if (record?.testedBase?.includes(number) === true && q.prs.can(other, changed)) q.sendPr(other, changed);
  }
}

/**
 * A PR in the line-up checked again (after a push to it): it keeps its place while the git host still lets it merge;
 * otherwise it goes back to waiting as not ready, and whatever was tested with it is tested again. Facts about
 * another head than the PR's are a push too (its webhook lost or late), taken as one: a queue's effects run in order,
 * so the last check's head is the latest the host reported, and a check that raced a push is followed by the push's.
 */
export function recheckedInPlace(q: QueueTx, input: Extract<QueueInput, { type: 'prChecked' }>): void {
  const pr = q.prs.get(input.number);
  const facts = input.facts;
  if (
    pr === undefined ||
    pr.id !== input.entryId ||
    !isEnqueued(pr.state) ||
    hasPullRequestTag(pr.state, 'notReady') ||
    pr.mergeRequested
  )
    return;
  if (facts !== null && facts.sha.toLowerCase() !== pr.sha.toLowerCase())
    return headPushed(q, { type: 'prPushed', number: input.number, sha: facts.sha.toLowerCase() });
  if (facts !== null)
    Object.assign(q.prs.mark(input.number), {
      title: facts.title,
      author: facts.author,
      upToDate: facts.upToDate,
      ...(facts.headBranch === undefined ? {} : { headBranch: facts.headBranch }),
    });
  const baseMatches = facts !== null && facts.baseBranch === q.queue.branch;
  if (facts !== null && baseMatches && facts.mergeable) return;
  const why =
    facts === null
      ? 'the git host does not know this pull request'
      : !baseMatches
        ? `its base branch is ${facts.baseBranch}, not ${q.queue.branch}`
        : `the git host reports it not mergeable${facts.notMergeableReason === undefined ? '' : `: ${facts.notMergeableReason}`}`;
  const record = q.prs.mark(input.number);
  record.baseBranch = facts?.baseBranch ?? record.baseBranch;
  record.readiness = {
    ...record.readiness,
    doesBaseBranchMatch: facts === null || baseMatches,
    gitHubMergeability: 'not_mergeable',
  };
  if (hasPullRequestTag(pr.state, 'testing') && pr.runId !== null && q.runs.inProgress(pr.runId))
    q.write(cancelRun(q, pr.runId, `#${input.number} is not ready: ${why}`, 'requeue'));
  else if (hasPullRequestTag(pr.state, 'passed') || hasPullRequestTag(pr.state, 'failing'))
    q.write([requeue(input.number, `not ready: ${why}`)]);
  invalidateOnTop(q, input.number, `#${input.number} is not ready: ${why}`);
  unready(q, input.number, `not ready: ${why}`);
}

/** A PENDING PR of the line-up goes back to waiting (NOT_READY). */
function unready(q: QueueTx, number: number, reason: string): void {
  if (!hasPullRequestTag(q.prs.require(number).state, 'waiting')) return;
  // UNREADY names its moves: awaitReadiness, then reportUnready.
  q.sendPr(number, { type: 'UNREADY', reason });
}
