/**
 * What the git host reports back: a test branch built, a merge done or refused, where the target branch is (and
 * what its configuration and protection require), a push to it. Handlers of these inputs, inside the queue's
 * transaction.
 */
import { isEnqueued } from '../../machines/vocabulary.js';
import { hasPullRequestTag, hasTestRunTag } from '../../machines/index.js';
import type { QueueInput } from '../model/events.js';
import { commentText } from '../model/texts.js';
import type { TargetState } from '../providers/types.js';
import { completeMerge } from './merging.js';
import { cancelPr, kick, requeue } from './moves.js';
import { cancelRun } from './runMoves.js';
import type { QueueTx } from './queueTx.js';

/** How many refusals of its merge (with the target where expected) send a PR back to testing before it leaves. */
export const MAX_MERGE_REFUSALS = 3;

export function built(q: QueueTx, input: Extract<QueueInput, { type: 'branchBuilt' }>): void {
  const run = q.runs.get(input.runId);
  if (run === undefined) return;
  const result = input.result;
  if (!result.ok) {
    if (!hasTestRunTag(run.status, 'inProgress')) return;
    const reason = `the test branch could not be built: ${result.reason}`;
    if (result.gaveUp === true) return q.write(cancelRun(q, input.runId, reason, 'cancel'));
    if (result.target !== undefined) return targetMoved(q, result.target, reason);
    // A PR under test that cannot be applied fails at once (a conflict is no flake); the others test again without it.
    const culprit = result.conflict?.number;
    const culpritPr = culprit === undefined ? undefined : q.prs.get(culprit);
    if (
      culprit !== undefined &&
      culpritPr !== undefined &&
      hasPullRequestTag(culpritPr.state, 'testing') &&
      culpritPr.runId === input.runId &&
      !culpritPr.mergeRequested
    ) {
      q.sendPr(culprit, { type: 'FAIL', runId: input.runId, reason: result.reason, conflict: true });
      q.write([kick(q, culprit)]);
      q.write(cancelRun(q, input.runId, `#${culprit} could not be applied: ${result.reason}`, 'requeue'));
      return;
    }
    q.write(cancelRun(q, input.runId, reason, 'requeue'));
    // A PR of the run's base does not apply (in parallel mode, another lane's merge moved the target under it): its
    // own result no longer holds. It is built again on the current target, where it fails on its own if it still
    // conflicts; rebuilding this run first would only meet the same conflict again.
    if (
      culprit !== undefined &&
      culpritPr !== undefined &&
      run.basePrs.includes(culprit) &&
      isEnqueued(culpritPr.state) &&
      !culpritPr.mergeRequested
    ) {
      const why = `#${culprit} no longer applies on ${q.queue.branch}: ${result.reason}`;
      if (hasPullRequestTag(culpritPr.state, 'testing') && culpritPr.runId !== null)
        q.write(cancelRun(q, culpritPr.runId, why, 'requeue'));
      else if (!hasPullRequestTag(culpritPr.state, 'waiting')) q.write([requeue(culprit, why)]);
    }
    return;
  }
  const record = q.runs.mark(input.runId);
  record.testBranch = result.branch;
  record.testBranchSha = result.sha;
  q.tx.put('runsBySha', [q.queue.org, result.sha.toLowerCase()], [q.queue.id, input.runId]);
  if (hasTestRunTag(record.status, 'inProgress')) {
    q.out.effect({
      kind: 'startCi',
      run: {
        org: q.queue.org,
        repo: q.queue.repo,
        runId: input.runId,
        branch: result.branch,
        sha: result.sha,
        startedAt: Date.parse(record.createdAt),
        baseSha: record.baseSha,
        deadlineAt: q.runs.context(input.runId).deadlineAt,
      },
    });
  }
}

export function merged(q: QueueTx, input: Extract<QueueInput, { type: 'merged' }>): void {
  const pr = q.prs.get(input.number);
  if (pr === undefined || pr.id !== input.entryId || !pr.mergeRequested) return;
  if (input.result.ok) {
    q.write([completeMerge(q, input.number, input.result.head)]);
    if (input.result.target?.head === input.result.head) observeTarget(q, input.result.target);
    return;
  }
  // A refusal with the target where it was expected (protection, the host's own checks) may come back every time:
  // the machine counts it; it sends the PR back to testing a bounded number of times, then the PR leaves the queue
  // saying why.
  const counted = input.result.target === undefined;
  const record = q.sendPr(input.number, { type: 'MERGE_REFUSED', counted });
  record.upToDate = false;
  const reason = `the git host refused the merge: ${input.result.reason}`;
  if (counted && (record.mergeRefusals ?? 0) >= MAX_MERGE_REFUSALS) {
    const why = `the git host refused to merge it ${record.mergeRefusals} times; the last time: ${input.result.reason}`;
    if (q.queue.settings.commentsEnabled)
      q.out.effect({
        kind: 'comment',
        repo: q.queue.repo,
        number: input.number,
        body: commentText({ kind: 'removed', reason: why }),
      });
    return q.write(cancelPr(q, input.number, why));
  }
  if (hasPullRequestTag(record.state, 'waiting')) q.out.timeline(input.number, { kind: 'mergeFailed', reason });
  else if (input.result.target === undefined) q.write([requeue(input.number, reason)]);
  if (input.result.target !== undefined) targetMoved(q, input.result.target, reason);
}

/** True when nothing in the queue was tested on (or is being tested on, or merged onto) the current target head. */
function holdsNoResult(q: QueueTx): boolean {
  return (
    q.runtime.activeRuns.length === 0 &&
    q.runtime.lineup.every((number) => {
      const pr = q.prs.require(number);
      return hasPullRequestTag(pr.state, 'waiting') && !pr.mergeRequested;
    })
  );
}

/**
 * The git host says where the target branch is and what its configuration requires. The engine adopts the head
 * when it has none, or when nothing depends on the old one; the configuration's required statuses (source
 * `service_config`) are kept when they are those of the head the engine works on.
 */
export function observeTarget(q: QueueTx, target: TargetState): void {
  if (target.head !== q.runtime.targetHead && (q.runtime.targetHead === '' || holdsNoResult(q)))
    q.runtime.targetHead = target.head;
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
export function targetPushed(q: QueueTx, sha: string): void {
  if (q.runtime.targetHead === '' || sha === q.runtime.targetHead) return;
  if (q.runtime.lineup.some((number) => q.prs.require(number).mergeRequested)) return;
  if (q.tx.get('mergedHeads', [q.queue.id, sha]) !== undefined) return;
  targetMoved(q, { head: sha }, `${q.queue.branch} was pushed to`);
}

/**
 * The target branch is not where the engine thought (pushed to directly, rewritten): adopt its head and test again
 * everything that was tested, or is being tested, on the old one. Nothing untested merges.
 */
function targetMoved(q: QueueTx, target: TargetState, reason: string): void {
  const before = q.runtime.targetHead;
  q.runtime.targetHead = target.head;
  if (target.requiredStatuses !== undefined)
    q.queue.repositoryConfig = { sha: target.head, requiredStatuses: target.requiredStatuses };
  observeProtection(q, target);
  q.touchQueue();
  const why = `${q.queue.branch} is at ${target.head.slice(0, 12)}, not ${before.slice(0, 12) || '(unknown)'}; testing again (${reason})`;
  for (const runId of [...q.runtime.activeRuns]) {
    if (q.runs.inProgress(runId)) q.write(cancelRun(q, runId, why, 'requeue'));
  }
  for (const number of [...q.runtime.lineup]) {
    const pr = q.prs.require(number);
    if ((hasPullRequestTag(pr.state, 'passed') || hasPullRequestTag(pr.state, 'failing')) && !pr.mergeRequested)
      q.write([requeue(number, why)]);
  }
}
