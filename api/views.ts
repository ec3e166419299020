/** The spec's response bodies, shaped from the engine's records. */
import type { PullRequestRecord } from '../engine/pullRequests.js';
import { bisectionConcurrencyOf, effectiveRequiredStatuses, type QueueRecord } from '../engine/queues.js';

/** Spec 2.2: the queue fields, in the spec's order (updateQueue answers this; getQueue adds enqueuedPullRequests). */
export function queueView(queue: QueueRecord) {
  const settings = queue.settings;
  const required = effectiveRequiredStatuses(queue);
  return {
    state: queue.state,
    branch: queue.branch,
    concurrency: settings.concurrency,
    testingTimeoutMinutes: settings.testingTimeoutMinutes,
    mode: settings.mode,
    canOptimisticallyMerge: settings.canOptimisticallyMerge,
    pendingFailureDepth: settings.pendingFailureDepth,
    batch: settings.batch,
    batchingMaxWaitTimeMinutes: settings.batchingMaxWaitTimeMinutes,
    batchingMinSize: settings.batchingMinSize,
    createPrsForTestingBranches: settings.createPrsForTestingBranches,
    commentsEnabled: settings.commentsEnabled,
    commandsEnabled: settings.commandsEnabled,
    statusCheckEnabled: settings.statusCheckEnabled,
    bisectionConcurrency: bisectionConcurrencyOf(settings),
    requiredStatuses: required.statuses,
    ...(required.source === undefined ? {} : { requiredStatusesSource: required.source }),
    directMergeMode: settings.directMergeMode,
    optimizationMode: settings.optimizationMode,
    mergeMethod: settings.mergeMethod,
  };
}

/** Spec 2.3, with the PR's `state` (the overview says each enqueued PR comes with it). */
export function enqueuedPullRequestView(pr: PullRequestRecord) {
  return {
    id: pr.id,
    state: pr.state,
    prNumber: pr.number,
    prTitle: pr.title,
    prSha: pr.sha,
    prBaseBranch: pr.baseBranch,
    prAuthor: pr.author,
    stateChangedAt: pr.stateChangedAt,
    priorityValue: pr.priorityValue,
    priorityName: pr.priorityName,
    usedDefaultPriorityName: pr.usedDefaultPriorityName,
    skipTheLine: pr.skipTheLine,
    noBatch: pr.noBatch,
  };
}

export function getQueueView(result: { queue: QueueRecord; enqueued: PullRequestRecord[] }) {
  return { ...queueView(result.queue), enqueuedPullRequests: result.enqueued.map(enqueuedPullRequestView) };
}
