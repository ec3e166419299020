/** Every lifecycle machine, by name: what the engine runs and `greenline charts` draws. */
import { bisectionMachine } from './bisection.js';
import { pullRequestMachine } from './pullRequest.js';
import { queueMachine } from './queue.js';
import { testRunMachine } from './testRun.js';

export const MACHINES = {
  pullRequest: pullRequestMachine,
  testRun: testRunMachine,
  queue: queueMachine,
  bisection: bisectionMachine,
} as const;

export type MachineName = keyof typeof MACHINES;

/**
 * Bumped when a machine changes shape, so stored snapshots can be migrated (engine/model/machineSnapshots.ts). pullRequest
 * 2: the merge under way (context `merge`) and bisection membership (`bisection`), which version 1 kept in the PR record
 * only; 3: the base it was tested on (`testedBase`) and the runs behind it that ended (`runsBehindEnded`,
 * `runsBehindFailed`), record fields before; 4: the rest of the failure policy's facts (`failureRetests`,
 * `mergeRefusals`, `failedAttempts`, `speculated`), which were counters of the record only.
 */
export const MACHINE_VERSION: Record<MachineName, number> = { pullRequest: 4, testRun: 1, queue: 1, bisection: 1 };

export { bisectionMachine, pullRequestMachine, queueMachine, testRunMachine };
export type { BisectionContext, BisectionEvent, BisectionGroup, BisectionTag } from './bisection.js';
export { BISECTION_TAGS } from './bisection.js';
export { PULL_REQUEST_MOVES, type PullRequestMove } from './pullRequestMoves.js';
export type {
  PullRequestContext,
  PullRequestEvent,
  PullRequestBisection,
  PullRequestFacts,
  PullRequestInput,
  PullRequestMerge,
} from './pullRequestContext.js';
export { PULL_REQUEST_COUNTERS, pullRequestFacts } from './pullRequestContext.js';
export { hasPullRequestTag, PR_IS, PULL_REQUEST_TAGS } from './pullRequestTags.js';
export type { PullRequestTag } from './pullRequestTags.js';
export { hasQueueTag, QUEUE_TAGS } from './queue.js';
export type { QueueContext, QueueEvent, QueueTag } from './queue.js';
export { hasTestRunTag, TEST_RUN_TAGS } from './testRun.js';
export type { CommitState, TestRunContext, TestRunEvent, TestRunTag } from './testRun.js';
