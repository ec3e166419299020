/** A PR submitted to a queue: a new entry in NOT_READY, checked by the git host, or, if queued, its priority updated. */
import { isEnqueued } from '../../machines/vocabulary.js';
import { hasPullRequestTag, hasQueueTag } from '../../machines/index.js';
import { forgetEnded } from '../history/endedIndex.js';
import { engineError } from '../model/errors.js';
import type { QueueInput } from '../model/events.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import { DEFAULT_PRIORITY, insertIntoLineup, PRIORITIES } from './moves.js';
import type { QueueTx } from './queueTx.js';

function priorityOf(priority: number | string | undefined): { value: number; name: string } {
  if (priority === undefined) return { value: PRIORITIES[DEFAULT_PRIORITY] as number, name: DEFAULT_PRIORITY };
  if (typeof priority === 'string') return { value: PRIORITIES[priority] as number, name: priority };
  const named = Object.entries(PRIORITIES).find(([, value]) => value === priority);
  return { value: priority, name: named?.[0] ?? String(priority) };
}

export function submit(q: QueueTx, input: Extract<QueueInput, { type: 'submitted' }>): void {
  if (hasQueueTag(q.queueState, 'refusesSubmissions')) throw engineError('queue_draining');
  const existing = q.prs.get(input.number);
  if (existing !== undefined && isEnqueued(existing.state)) {
    resubmit(q, existing, input);
    return;
  }
  if (existing !== undefined && hasPullRequestTag(existing.state, 'merged'))
    throw engineError('pr_already_merged', { number: input.number });
  // Its earlier entry ended: it is in the queue again, so out of the history of ended PRs.
  if (existing !== undefined) forgetEnded(q.tx, q.queue.id, existing);
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
  q.out.timeline(input.number, {
    kind: 'submitted',
    priority: priority.name,
    noBatch: record.noBatch,
    skipTheLine: record.skipTheLine,
    ...(input.by === undefined ? {} : { by: input.by }),
  });
  q.out.effect({
    kind: 'checkPullRequest',
    repo: q.queue.repo,
    branch: q.queue.branch,
    number: input.number,
    entryId: record.id,
  });
}

/** Submitting a queued PR again updates its priority and batching; it never makes a second entry. */
function resubmit(q: QueueTx, pr: PullRequestRecord, input: Extract<QueueInput, { type: 'submitted' }>): void {
  const record = q.prs.mark(pr.number);
  const before = `${record.priorityValue}/${record.skipTheLine}`;
  if (input.priority !== undefined) {
    const priority = priorityOf(input.priority);
    record.priorityValue = priority.value;
    record.priorityName = priority.name;
    record.usedDefaultPriorityName = '';
  }
  if (input.noBatch !== undefined) record.noBatch = input.noBatch;
  if (input.skipTheLine !== undefined) record.skipTheLine = input.skipTheLine;
  q.out.timeline(pr.number, {
    kind: 'resubmitted',
    priority: record.priorityName,
    noBatch: record.noBatch,
    skipTheLine: record.skipTheLine,
    ...(input.by === undefined ? {} : { by: input.by }),
  });
  // Submitting again after a push (a fixed conflict, a missing head now there) is how a NOT_READY PR gets a new look.
  if (hasPullRequestTag(record.state, 'notReady')) {
    q.out.effect({
      kind: 'checkPullRequest',
      repo: q.queue.repo,
      branch: q.queue.branch,
      number: pr.number,
      entryId: record.id,
    });
  }
  const moved = before !== `${record.priorityValue}/${record.skipTheLine}`;
  if (
    moved &&
    hasPullRequestTag(record.state, 'waiting') &&
    record.group === null &&
    q.runtime.lineup.includes(pr.number)
  ) {
    q.runtime.lineup = q.runtime.lineup.filter((number) => number !== pr.number);
    insertIntoLineup(q, pr.number);
  }
}
