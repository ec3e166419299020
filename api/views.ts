/** The spec's response bodies, shaped from the engine's records. */
import type { MergeEstimate } from '../engine/estimate/index.js';
import { isEnqueued } from '../machines/vocabulary.js';
import type { PullRequestRecord, TimelineEntry } from '../engine/model/pullRequests.js';
import {
  adaptiveWindowFloorOf,
  DEFAULT_SPECULATION_RUNS_PERCENT,
  batchingMaxSizeOf,
  bisectionConcurrencyOf,
  effectiveRequiredStatuses,
  integrationSettingsOf,
  type QueuePatch,
  type QueueRecord,
  type RepoRef,
} from '../engine/model/queues.js';
import type { TestRunDetails } from '../engine/engine.js';
import type { z } from 'zod';
import type {
  EnqueuedPullRequestBody,
  GetQueueBody,
  PullRequestListBody,
  QueueBody,
  SettingsHistoryBody,
  SubmittedPullRequestBody,
  TestRunBody,
} from './responseSchemas.js';

/** Spec 2.2: the queue fields, in the spec's order (updateQueue answers this; getQueue adds enqueuedPullRequests). */
export function queueView(queue: QueueRecord): z.infer<typeof QueueBody> {
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
    batchingMaxSize: batchingMaxSizeOf(queue),
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
    adaptiveWindow: settings.adaptiveWindow ?? false,
    adaptiveWindowFloor: adaptiveWindowFloorOf(settings),
    speculationRunsPercent: settings.speculationRunsPercent ?? DEFAULT_SPECULATION_RUNS_PERCENT,
    parallelBases: settings.parallelBases ?? 'transitive',
    ...integrationSettingsOf(settings),
    // The older spellings the hosted service's Terraform provider reads from getQueue (api/clientSpellings.ts).
    testingTimeoutMins: settings.testingTimeoutMinutes,
    isBatching: settings.batch,
    batchingMaxWaitTimeMins: settings.batchingMaxWaitTimeMinutes,
  };
}

/** Spec 2.3, with the PR's `state` (the overview says each enqueued PR comes with it). */
export function enqueuedPullRequestView(pr: PullRequestRecord): z.infer<typeof EnqueuedPullRequestBody> {
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

export function getQueueView(result: {
  queue: QueueRecord;
  enqueued: PullRequestRecord[];
}): z.infer<typeof GetQueueBody> {
  return { ...queueView(result.queue), enqueuedPullRequests: result.enqueued.map(enqueuedPullRequestView) };
}

/**
 * getSubmittedPullRequest: the addendum's fields, plus `testRunId` (its current or latest run, so CI automation can
 * find it), `reason` (why it is in its state) and, when asked, its timeline.
 */
export function submittedPullRequestView(result: {
  pr: PullRequestRecord;
  timeline?: TimelineEntry[];
  queue: QueueRecord;
  estimates?: ReadonlyMap<number, MergeEstimate>;
}): z.infer<typeof SubmittedPullRequestBody> {
  const pr = result.pr;
  const estimate = isEnqueued(pr.state) ? result.estimates?.get(pr.number) : undefined;
  return {
    id: pr.id,
    state: pr.state,
    readiness: {
      ...pr.readiness,
      requiresImpactedTargets: result.queue.settings.mode === 'parallel' && pr.readiness.requiresImpactedTargets,
    },
    stateChangedAt: pr.stateChangedAt,
    priorityValue: pr.priorityValue,
    priorityName: pr.priorityName,
    usedDefaultPriorityName: pr.usedDefaultPriorityName,
    skipTheLine: pr.skipTheLine,
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: isEnqueued(pr.state),
    prNumber: pr.number,
    prTitle: pr.title,
    prSha: pr.sha,
    prBaseBranch: pr.baseBranch,
    prAuthor: pr.author,
    noBatch: pr.noBatch,
    testRunId: pr.runId ?? '',
    reason: pr.reason ?? '',
    ...(pr.mergedSha === null ? {} : { mergedSha: pr.mergedSha }),
    ...(pr.likelihood === undefined
      ? {}
      : { failureLikelihood: { probability: pr.likelihood.p, features: pr.likelihood.features } }),
    ...(estimate === undefined
      ? {}
      : {
          estimatedMergeAt: new Date(estimate.at).toISOString(),
          estimatedMergeAtP90: new Date(estimate.p90).toISOString(),
        }),
    ...(result.timeline === undefined ? {} : { timeline: result.timeline }),
  };
}

/** listPullRequests: each PR as getSubmittedPullRequest shows it (without timeline), and the next page's cursor. */
export function pullRequestListView(result: {
  rows: PullRequestRecord[];
  nextCursor?: string;
  queue: QueueRecord;
  estimates?: ReadonlyMap<number, MergeEstimate>;
}): z.infer<typeof PullRequestListBody> {
  return {
    pullRequests: result.rows.map((pr) =>
      submittedPullRequestView({
        pr,
        queue: result.queue,
        ...(result.estimates === undefined ? {} : { estimates: result.estimates }),
      }),
    ),
    ...(result.nextCursor === undefined ? {} : { nextCursor: result.nextCursor }),
  };
}

function prUrl(repo: RepoRef, number: number): string {
  return `https://${repo.host}/${repo.owner}/${repo.name}/pull/${number}`;
}

/** Spec 2.5, with the addendum's `state` on each status check. */
export function testRunView(result: TestRunDetails): z.infer<typeof TestRunBody> {
  const run = result.run;
  return {
    requiredStatuses: run.requiredStatuses,
    ...(run.requiredStatusesSource === undefined ? {} : { requiredStatusesSource: run.requiredStatusesSource }),
    testBranch: run.testBranch,
    testBranchSha: run.testBranchSha,
    checkSuites: [],
    statusChecks: run.statusChecks.map((check) => ({
      context: check.context,
      url: check.url,
      state: check.state.toUpperCase() as Uppercase<typeof check.state>,
      description: check.description,
    })),
    testedPullRequests: run.prs.map((number) => ({
      prNumber: number,
      prUrl: prUrl(result.repo, number),
      title: result.titles?.get(number) ?? `#${number}`,
    })),
    createdAt: run.createdAt,
    status: run.status,
    ...(run.reason === null ? {} : { reason: run.reason }),
    basePullRequests: run.basePrs,
    ...(result.impactedTargets === undefined
      ? {}
      : { impactedTargets: result.impactedTargets.all, impactedTargetsForTestedPrs: result.impactedTargets.tested }),
    ...(run.mode === 'parallel' ? { dependentPrs: run.basePrs } : {}),
    ...(run.quarantinedFailures === undefined ? {} : { quarantinedFailures: run.quarantinedFailures }),
  };
}

/** getQueueSettingsHistory (ours). */
export function settingsHistoryView(
  changes: { at: string; change: 'created' | 'configured'; by?: string; patch: QueuePatch }[],
): z.infer<typeof SettingsHistoryBody> {
  return {
    changes: changes.map((entry) => ({
      at: entry.at,
      change: entry.change,
      tokenId: entry.by ?? null,
      settings: { ...entry.patch },
    })),
  };
}
