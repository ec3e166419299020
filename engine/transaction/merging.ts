/**
 * A merge inside a queue's transaction: asked of the git host (REQUEST_MERGE: the PR's machine records it, and
 * refuses CANCEL and RESTART until the host answers), then completed (MERGE). A refusal is the host's answer too
 * (hostResults.ts sends MERGE_REFUSED).
 */
import { hasPullRequestTag } from '../../machines/index.js';
import { learn } from './likelihood.js';
import { comment, leave, statusCheck } from './moves.js';
import type { QueueTx } from './queueTx.js';
import { cancelRun } from './runs.js';

export function requestMerge(q: QueueTx, number: number, how: { vouchedBy?: string; direct?: boolean }): void {
  const pr = q.sendPr(number, {
    type: 'REQUEST_MERGE',
    ...(how.direct === undefined ? {} : { direct: how.direct }),
    ...(how.vouchedBy === undefined ? {} : { vouchedBy: how.vouchedBy }),
  });
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
  q.timeline(number, { kind: 'merging', direct: how.direct === true, ...(how.vouchedBy === undefined ? {} : { vouchedBy: how.vouchedBy }), runId: pr.runId });
}

/** The git host merged it: the target moves on, the PR leaves the queue. */
export function completeMerge(q: QueueTx, number: number, head: string): void {
  const pr = q.requirePr(number);
  const how = q.prMerge(number)?.by ?? null;
  const runId = hasPullRequestTag(pr.state, 'testing') ? pr.runId : null;
  const record = q.sendPr(number, how === 'direct' ? { type: 'MERGE', direct: true } : how !== null ? { type: 'MERGE', vouchedBy: how } : { type: 'MERGE' });
  record.mergedSha = head;
  // Indexed by head: a late push webhook of this merge is known as the queue's own in one read (targetPushed).
  q.tx.put('mergedHeads', [q.queue.id, head.toLowerCase()], number);
  q.runtime.targetHead = head;
  q.runtime.merged.push(number);
  for (const memory of Object.values(q.runtime.bisections)) memory.merged.push(number);
  learn(q, number, false);
  leave(q, number);
  q.timeline(number, { kind: 'merged', branch: q.queue.branch, head }, { sha: head });
  comment(q, number, { kind: 'merged', branch: q.queue.branch, head });
  statusCheck(q, number, { kind: 'merged' });
  if (runId !== null && q.runInProgress(runId)) {
    cancelRun(q, runId, `#${number} merged, vouched for by a run behind it`, 'requeue');
  }
}
