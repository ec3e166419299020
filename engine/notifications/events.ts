/**
 * The events an organization's webhook endpoints may subscribe to, and what one carries. Queue events are noted by
 * the queue's transaction (QueueTx: a PR entering the queue or changing state, the queue changing state) and written
 * to the queue's outbox in that transaction as one `notify` effect; flaky-test events are written with the flaky-test
 * transaction that moves the test into a list. Either way an event exists only if the change that causes it
 * committed, and a change never commits without its event.
 */
import type { PullRequestState, QueueState } from '../../machines/vocabulary.js';
import type { RepoRef } from '../model/queues.js';

export const EVENT_TYPES = [
  'pull_request.submitted',
  'pull_request.testing',
  'pull_request.passed',
  'pull_request.merged',
  'pull_request.failed',
  'pull_request.cancelled',
  'queue.state_changed',
  'test.flaky',
  'test.broken',
  'test.quarantined',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The PR states whose entry is an event, and its type. */
const PR_EVENTS: Partial<Record<PullRequestState, EventType>> = {
  TESTING: 'pull_request.testing',
  TESTS_PASSED: 'pull_request.passed',
  MERGED: 'pull_request.merged',
  FAILED: 'pull_request.failed',
  CANCELLED: 'pull_request.cancelled',
};

export function prEventType(state: PullRequestState): EventType | undefined {
  return PR_EVENTS[state];
}

/** Where a queue event happened: the queue as clients name it. */
export interface QueueRef {
  repo: RepoRef;
  targetBranch: string;
}

export interface PullRequestEventData {
  queue: QueueRef;
  pr: {
    number: number;
    title: string;
    author: string;
    sha: string;
    state: PullRequestState;
    previousState: PullRequestState | null;
    reason: string | null;
    testRunId: string | null;
  };
}

export interface QueueEventData {
  queue: QueueRef;
  state: QueueState;
  previousState: QueueState;
}

export interface TestEventData {
  repo: RepoRef;
  test: { id: string; name: string; classname?: string; file?: string; status: string; reason: string };
}

/** One event as it is delivered: the body of a Standard Webhooks message (`type`, `timestamp`, `data`). */
export interface WebhookEvent {
  /** Unique and stable: the message id (`webhook-id`) of every delivery of it is made from it. */
  id: string;
  type: EventType;
  /** When the change happened (ISO). */
  timestamp: string;
  data: PullRequestEventData | QueueEventData | TestEventData;
}

/** The `notify` effect: the events of one queue transaction, in the order they happened. */
export interface NotifyEffect {
  kind: 'notify';
  org: string;
  events: WebhookEvent[];
}

/** How queues compare in an endpoint's filter: the repository without case (as the queue index), the branch as is. */
export function queueFilterKey(queue: QueueRef): string {
  return JSON.stringify([
    queue.repo.host.toLowerCase(),
    queue.repo.owner.toLowerCase(),
    queue.repo.name.toLowerCase(),
    queue.targetBranch,
  ]);
}

export function queueOf(event: WebhookEvent): QueueRef | undefined {
  return 'queue' in event.data ? event.data.queue : undefined;
}

/** The pull request an event is about, if any (deliveries of one PR's events keep their order). */
export function prOf(event: WebhookEvent): number | undefined {
  return 'pr' in event.data ? event.data.pr.number : undefined;
}
