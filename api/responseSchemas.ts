/**
 * Response bodies of the merge-queue endpoints as zod schemas: the views (views.ts) are typed by them, and the
 * OpenAPI document (openapi.ts) is generated from them. Field names and enums are the spec's (2.2, 2.3, 2.5) and the
 * addendum's; fields marked "ours" are Greenline's additions.
 */
import { z } from 'zod';
import { ERROR_CODES } from '../engine/model/errors.js';
import { GIT_MERGEABILITY } from '../engine/model/pullRequests.js';
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PARALLEL_BASES,
  REQUIRED_STATUSES_SOURCES,
} from '../engine/model/queues.js';
import { PULL_REQUEST_STATES, QUEUE_MODES, QUEUE_STATES, TEST_RUN_STATUSES } from '../machines/vocabulary.js';

const Timestamp = z.iso.datetime({ offset: true });
const Count = z.number().int().min(0);

/** `200 {}`: submit, cancel, restart, setImpactedTargets, setCommitStatus, createQueue, deleteQueue. */
export const EmptyBody = z.object({}).strict().meta({ description: 'An empty object' });

/** Every failure (design: one error shape). */
export const ErrorBody = z
  .object({
    code: z.string(),
    // Optional in the document so that a client written against it also reads a server from before the catalogue.
    reason: z
      .enum(ERROR_CODES)
      .optional()
      .meta({ description: 'The condition: a code of the error catalogue (README, Errors)' }),
    message: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({
    description:
      'Every failure: a code, the condition (`reason`), a message and, for a 400, one entry per invalid field',
  });

/** Spec 2.2: the queue (updateQueue's answer). */
export const QueueBody = z.object({
  state: z.enum(QUEUE_STATES),
  branch: z.string(),
  concurrency: Count,
  testingTimeoutMinutes: Count,
  mode: z.enum(QUEUE_MODES),
  canOptimisticallyMerge: z.boolean(),
  pendingFailureDepth: Count,
  batch: z.boolean(),
  batchingMaxWaitTimeMinutes: Count,
  batchingMinSize: Count,
  batchingMaxSize: Count.meta({
    description:
      'The largest batch: a batch takes the ready PRs of its chain up to this many (absent from updateQueue: batchingMinSize, so batches do not grow)',
  }),
  createPrsForTestingBranches: z.boolean(),
  commentsEnabled: z.boolean(),
  commandsEnabled: z.boolean(),
  statusCheckEnabled: z.boolean(),
  bisectionConcurrency: Count,
  requiredStatuses: z.array(z.string()),
  requiredStatusesSource: z.enum(REQUIRED_STATUSES_SOURCES).optional(),
  directMergeMode: z.enum(DIRECT_MERGE_MODES),
  optimizationMode: z.enum(OPTIMIZATION_MODES),
  mergeMethod: z.enum(MERGE_METHODS),
  adaptiveWindow: z.boolean(),
  adaptiveWindowFloor: Count,
  speculationRunsPercent: Count,
  parallelBases: z.enum(PARALLEL_BASES),
  extensionEnabled: z.boolean(),
  enqueueingLabel: z.string(),
  labelCommandsEnabled: z.boolean(),
  stateLabelsEnabled: z.boolean(),
  testingTimeoutMins: Count.meta({
    description: 'testingTimeoutMinutes under the name older clients read',
    deprecated: true,
  }),
  isBatching: z.boolean().meta({ description: 'batch under the name older clients read', deprecated: true }),
  batchingMaxWaitTimeMins: Count.meta({
    description: 'batchingMaxWaitTimeMinutes under the name older clients read',
    deprecated: true,
  }),
});

const PrState = z.enum(PULL_REQUEST_STATES);

/** Spec 2.3, with the PR's state. */
export const EnqueuedPullRequestBody = z.object({
  id: z.string(),
  state: PrState,
  prNumber: Count,
  prTitle: z.string(),
  prSha: z.string(),
  prBaseBranch: z.string(),
  prAuthor: z.string(),
  stateChangedAt: Timestamp,
  priorityValue: Count,
  priorityName: z.string(),
  usedDefaultPriorityName: z.string(),
  skipTheLine: z.boolean(),
  noBatch: z.boolean(),
});

export const GetQueueBody = QueueBody.extend({ enqueuedPullRequests: z.array(EnqueuedPullRequestBody) });

const TimelineEntryBody = z.object({
  at: Timestamp,
  entryId: z.string(),
  event: z.string(),
  message: z.string(),
  runId: z.string().optional(),
  sha: z.string().optional(),
});

/** getSubmittedPullRequest (the addendum's fields; `noBatch`, `testRunId`, `reason`, `mergedSha`, `timeline` ours). */
export const SubmittedPullRequestBody = z.object({
  id: z.string(),
  state: PrState,
  readiness: z.object({
    hasImpactedTargets: z.boolean(),
    requiresImpactedTargets: z.boolean(),
    doesBaseBranchMatch: z.boolean(),
    gitHubMergeability: z.enum(GIT_MERGEABILITY),
  }),
  stateChangedAt: Timestamp,
  priorityValue: Count,
  priorityName: z.string(),
  usedDefaultPriorityName: z.string(),
  skipTheLine: z.boolean(),
  forceEnqueued: z.boolean(),
  isCurrentlySubmittedToQueue: z.boolean(),
  prNumber: Count,
  prTitle: z.string(),
  prSha: z.string(),
  prBaseBranch: z.string(),
  prAuthor: z.string(),
  noBatch: z.boolean(),
  testRunId: z.string(),
  reason: z.string(),
  mergedSha: z.string().optional(),
  /** Its failure likelihood (0..1) and the features it rests on, once it was ready. */
  failureLikelihood: z
    .object({
      probability: z.number().min(0).max(1),
      features: z.object({
        failedAttempts: z.number(),
        authorRate: z.number(),
        size: z.number(),
        headFailures: z.number().optional(),
      }),
    })
    .optional(),
  /**
   * Fields beyond the seed (ours): when the PR is expected to merge, the median and the 90th percentile of the
   * queue's forecast (engine/estimate) from its position, the CI durations, concurrency, batching and failure rate
   * this queue has seen and the PR's failure likelihood. Only on a PR ready in the queue, while the queue has run CI.
   * The P90 is calibrated by how the queue's own estimates fared (engine/estimate/calibration.ts, docs/estimates.md).
   */
  estimatedMergeAt: Timestamp.optional().describe(
    'When the PR is expected to merge (median of the forecast); ours, beyond the seed',
  ),
  estimatedMergeAtP90: Timestamp.optional().describe(
    "The 90th percentile of the forecast, calibrated by how this queue's recent estimates fared (once 20 of its PRs merged after one): 9 in 10 PRs placed like it merge by then; ours, beyond the seed",
  ),
  timeline: z.array(TimelineEntryBody).optional(),
});

/** listPullRequests: a page of PRs, newest submission first; `nextCursor` is absent on the last page. */
export const PullRequestListBody = z.object({
  pullRequests: z.array(SubmittedPullRequestBody),
  nextCursor: z.uuid().optional(),
});

/** Spec 2.5 with the addendum's `state` on status checks (`reason`, `basePullRequests`, `quarantinedFailures` ours). */
export const TestRunBody = z.object({
  requiredStatuses: z.array(z.string()),
  requiredStatusesSource: z.enum(REQUIRED_STATUSES_SOURCES).optional(),
  testBranch: z.string(),
  testBranchSha: z.string(),
  checkSuites: z.array(
    z.object({
      checkRuns: z.array(
        z.object({
          name: z.string(),
          url: z.string(),
          status: z.string().optional(),
          conclusion: z.string().optional(),
        }),
      ),
    }),
  ),
  statusChecks: z.array(
    z.object({
      context: z.string(),
      url: z.string(),
      state: z.enum(['ERROR', 'FAILURE', 'PENDING', 'SUCCESS']),
      description: z.string(),
    }),
  ),
  testedPullRequests: z.array(z.object({ prNumber: Count, prUrl: z.string(), title: z.string() })),
  createdAt: Timestamp,
  status: z.enum(TEST_RUN_STATUSES),
  reason: z.string().optional(),
  basePullRequests: z.array(Count),
  impactedTargets: z.array(z.string()).optional(),
  impactedTargetsForTestedPrs: z.array(z.string()).optional(),
  dependentPrs: z.array(Count).optional(),
  quarantinedFailures: z.array(z.string()).optional(),
});

export const MetricsText = z.string().meta({ description: 'Prometheus text exposition format 0.0.4' });

/** getQueueSettingsHistory (ours): every change of a queue's settings, oldest first. */
export const SettingsHistoryBody = z.object({
  changes: z.array(
    z.object({
      at: z.string().meta({ description: 'when the change was committed (ISO 8601)' }),
      change: z.enum(['created', 'configured']),
      tokenId: z
        .string()
        .nullable()
        .meta({ description: 'the id of the API token that made it (`greenline token list`); null when none did' }),
      settings: z.record(z.string(), z.unknown()).meta({ description: 'the settings sent, as updateQueue takes them' }),
    }),
  ),
});
