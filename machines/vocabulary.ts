/**
 * The names of every lifecycle state, as the spec writes them. The machines of each lifecycle are built on these;
 * the engine and the API import them from here so that a state has one spelling in the whole program.
 */

/** Queue states (spec 3.2), lower case as the spec's responses write them. */
export const QUEUE_STATES = ['running', 'paused', 'draining', 'switching_modes'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** The queue states a client may ask for; `switching_modes` is only ever entered by the queue itself. */
export const REQUESTABLE_QUEUE_STATES = ['running', 'paused', 'draining'] as const;
export type RequestableQueueState = (typeof REQUESTABLE_QUEUE_STATES)[number];

export const QUEUE_MODES = ['single', 'parallel'] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];

/** Pull request states in a queue (spec 3.1), upper case. */
export const PULL_REQUEST_STATES = [
  'NOT_READY',
  'PENDING',
  'TESTING',
  'TESTS_PASSED',
  'MERGED',
  'FAILED',
  'CANCELLED',
  'PENDING_FAILURE',
] as const;
export type PullRequestState = (typeof PULL_REQUEST_STATES)[number];

/** States after which a PR has left the queue. */
export const FINAL_PULL_REQUEST_STATES: readonly PullRequestState[] = ['MERGED', 'FAILED', 'CANCELLED'];

export function isEnqueued(state: PullRequestState): boolean {
  return !FINAL_PULL_REQUEST_STATES.includes(state);
}

/** Test run statuses (spec 3.3). */
export const TEST_RUN_STATUSES = ['in_progress', 'succeeded', 'failed', 'cancelled'] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];
