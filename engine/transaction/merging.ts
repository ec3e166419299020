/**
 * A merge inside a queue's transaction: asked of the git host (REQUEST_MERGE: the PR's machine records it, and
 * refuses CANCEL and RESTART until the host answers), then completed (MERGE, whose moves land it). A refusal is the
 * host's answer too (hostResults.ts sends MERGE_REFUSED).
 */
import type { PullRequestEvent } from '../../machines/index.js';
import { NONE, type MoveScope, type Write } from './writes.js';

export function requestMerge(number: number, how: { vouchedBy?: string; direct?: boolean }): Write {
  // REQUEST_MERGE names its move: askMerge.
  const event = {
    type: 'REQUEST_MERGE',
    ...(how.direct === undefined ? {} : { direct: how.direct }),
    ...(how.vouchedBy === undefined ? {} : { vouchedBy: how.vouchedBy }),
  } as const;
  return { to: 'pr', number, event };
}

/** The move `askMerge`: the merge effect, tested on its own run's branch or on the run behind that vouched for it. */
export function askMerge(q: MoveScope, number: number, how: { vouchedBy?: string; direct?: boolean }): Write[] {
  const pr = q.prs.require(number);
  const run = pr.runId === null ? undefined : q.runs.get(pr.runId);
  const vouched = how.vouchedBy === undefined ? undefined : q.runs.get(how.vouchedBy);
  const effect = {
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
      ...(((vouched ?? run)?.mode ?? q.queue.settings.mode) === 'parallel' ? { independentBase: true as const } : {}),
    },
  } as const;
  const text = {
    kind: 'merging',
    direct: how.direct === true,
    ...(how.vouchedBy === undefined ? {} : { vouchedBy: how.vouchedBy }),
    runId: pr.runId,
  } as const;
  return [
    { to: 'effect', effect },
    { to: 'timeline', number, text },
  ];
}

/**
 * The git host merged it at `head`: MERGE, whose moves (prMoves.ts) land the merge, teach the likelihood model, take
 * the PR out of the line-up, tell people and, if its own run is still testing it, cancel that run.
 */
export function completeMerge(q: MoveScope, number: number, head: string): Write {
  const how = q.prs.merge(number)?.by ?? null;
  const event: PullRequestEvent =
    how === 'direct'
      ? { type: 'MERGE', direct: true, head }
      : how !== null
        ? { type: 'MERGE', vouchedBy: how, head }
        : { type: 'MERGE', head };
  return { to: 'pr', number, event };
}

/** The move `landMerge`: the target moves on to `head`, which the queue knows as its own merge. */
export function landMerge(q: MoveScope, number: number, head: string): readonly Write[] {
  q.prs.mark(number).mergedSha = head;
  // Indexed by head: a late push webhook of this merge is known as the queue's own in one read (targetPushed).
  q.tx.put('mergedHeads', [q.queue.id, head.toLowerCase()], number);
  q.runtime.targetHead = head;
  q.runtime.merged.push(number);
  for (const memory of Object.values(q.runtime.bisections)) memory.merged.push(number);
  return NONE;
}
