/**
 * The one alphabet of every lifecycle machine: concrete inputs and event payloads, with variants that satisfy and
 * that fail each guard. The conformance suite explores the machines' whole definitions with it (`FULL`, in
 * alphabets.ts, which also says what the API causes of it), and the machines' model-based tests
 * (test/machines/models.ts) generate their paths from it.
 */
import type { AnyMachineSnapshot } from 'xstate';
import {
  type BisectionEvent,
  bisectionMachine,
  PULL_REQUEST_COUNTERS,
  type PullRequestEvent,
  type PullRequestInput,
  pullRequestMachine,
  type QueueEvent,
  queueMachine,
  type TestRunEvent,
  testRunMachine,
} from '../machines/index.js';
import type { QueueMode } from '../machines/vocabulary.js';

/** A run's deadline, far off: TIMEOUT is sent just before it and at it. */
export const DEADLINE = Date.UTC(2030, 0, 1);

/**
 * The PR machine's counters (runs behind a failing PR, retests, refusals, failed attempts) are counted without bound,
 * and no guard reads them: a snapshot's key leaves them out.
 */
export function pullRequestKey(snapshot: AnyMachineSnapshot): string {
  const context = { ...(snapshot.context as Record<string, unknown>) };
  for (const counter of PULL_REQUEST_COUNTERS) delete context[counter];
  return JSON.stringify({ value: snapshot.value, context, status: snapshot.status });
}

export const PULL_REQUEST_INPUTS: PullRequestInput[] = [{ number: 42 }];

export const PULL_REQUEST_EVENTS: PullRequestEvent[] = [
  { type: 'READY' },
  { type: 'UNREADY', reason: 'draft' },
  // testedOnIt: a result tested on top of #7, then BASE_CHANGED for #7 (it holds) and for #8 (it does not).
  { type: 'START_TEST', runId: 'run-1', testedBase: [7] },
  { type: 'BASE_CHANGED', number: 7, reason: '#7 was pushed to' },
  { type: 'BASE_CHANGED', number: 8, reason: '#8 was pushed to' },
  // awaitsRunsBehind: a run behind ended and the failure policy still awaits runs behind it, or no longer does.
  { type: 'RUN_BEHIND_ENDED', failed: false },
  { type: 'RUN_BEHIND_ENDED', failed: true },
  { type: 'RUN_BEHIND_ENDED', failed: false, awaitsMore: true },
  { type: 'HEAD_PUSHED' },
  { type: 'PASS' },
  { type: 'FAIL', runId: 'run-1', reason: 'ci failed' },
  { type: 'FAIL', runId: null, reason: 'its set already failed' },
  // isConflict: a PR under test that does not apply.
  { type: 'FAIL', runId: 'run-1', reason: 'it does not apply', conflict: true },
  // awaitsFailureBelow: requeued, or requeued to wait for the failure of #7, under it, to settle (one reason for both:
  // the same snapshots are explored).
  { type: 'REQUEUE', reason: 'a PR ahead failed' },
  { type: 'REQUEUE', reason: 'a PR ahead failed', failedFirst: 7 },
  { type: 'BISECT', reason: 'its batch failed' },
  { type: 'RETEST', reason: 'tested alone once more' },
  // isDirectMerge and vouchedByRunBehind: neither, each, both.
  { type: 'MERGE' },
  { type: 'MERGE', direct: true },
  { type: 'MERGE', vouchedBy: 'run-2' },
  { type: 'MERGE', direct: false, vouchedBy: 'run-2' },
  // notMerging, mayMergeDirect and mayMergeVouched: a merge asked as passed, direct or vouched for; isMerging and
  // notMerging: MERGE_REFUSED, CANCEL and RESTART with a merge under way and without.
  { type: 'REQUEST_MERGE' },
  { type: 'REQUEST_MERGE', direct: true },
  { type: 'REQUEST_MERGE', vouchedBy: 'run-2' },
  { type: 'MERGE_REFUSED' },
  { type: 'MERGE_REFUSED', counted: true },
  { type: 'RESTART' },
  { type: 'JOIN_GROUP', bisectionId: 'b0', group: 'g1', part: [7] },
  { type: 'LEAVE_GROUP' },
  // notSpeculated: isolated once, then not again.
  { type: 'ISOLATE' },
  { type: 'KICK', reason: 'failed' },
  { type: 'CANCEL', reason: 'closed' },
];

/** requiredStatusFailed / allRequiredStatusesPassed decide on the required statuses, or on every reported one. */
export const TEST_RUN_INPUTS = [
  { runId: 'run-1', requiredStatuses: ['ci', 'lint'], deadlineAt: DEADLINE },
  { runId: 'run-1', requiredStatuses: [] as string[], deadlineAt: DEADLINE },
];

export const TEST_RUN_EVENTS: TestRunEvent[] = [
  { type: 'STATUS', context: 'ci', state: 'pending' },
  { type: 'STATUS', context: 'ci', state: 'success' },
  { type: 'STATUS', context: 'ci', state: 'failure' },
  { type: 'STATUS', context: 'ci', state: 'error' },
  { type: 'STATUS', context: 'lint', state: 'success' },
  { type: 'STATUS', context: 'coverage', state: 'success' },
  { type: 'STATUS', context: 'coverage', state: 'failure' },
  // deadlinePassed: before and at the deadline.
  { type: 'TIMEOUT', at: DEADLINE - 1 },
  { type: 'TIMEOUT', at: DEADLINE },
  { type: 'CANCEL', reason: 'superseded' },
];

export const QUEUE_EVENTS: QueueEvent[] = [
  { type: 'PAUSE' },
  { type: 'RESUME' },
  { type: 'DRAIN' },
  // isNewMode: the same mode and the other one.
  { type: 'SWITCH_MODE', mode: 'single' },
  { type: 'SWITCH_MODE', mode: 'parallel' },
  { type: 'SETTLED' },
];

/**
 * A bisection of two PRs, #1 and #2: a group of one (g1) and a group of both (g2: split again when it fails, a member
 * known to fail or leaving it); `endsIt` and `underTestAfter` hold and fail with one group formed or both.
 */
export const BISECTION_EVENTS: BisectionEvent[] = [
  { type: 'SPLIT', group: 'g1', prs: [1] },
  { type: 'SPLIT', group: 'g2', prs: [1, 2] },
  { type: 'GROUP_TESTING', group: 'g1', pr: 1, runId: 'run-1' },
  { type: 'GROUP_TESTING', group: 'g2', pr: 2, runId: 'run-2' },
  { type: 'GROUP_UNTESTED', group: 'g1' },
  { type: 'GROUP_RESCUED', group: 'g1' },
  { type: 'GROUP_FAILED', group: 'g2' },
  { type: 'CULPRIT_FOUND', group: 'g1', pr: 1 },
  { type: 'KNOWN_TO_FAIL', group: 'g2', pr: 2 },
  { type: 'LEFT', group: 'g2', pr: 2 },
];

export const MACHINE_EVENTS = {
  pullRequest: {
    machine: pullRequestMachine,
    inputs: PULL_REQUEST_INPUTS,
    events: PULL_REQUEST_EVENTS,
    serialize: pullRequestKey,
  },
  testRun: { machine: testRunMachine, inputs: TEST_RUN_INPUTS, events: TEST_RUN_EVENTS },
  queue: { machine: queueMachine, inputs: [{ mode: 'single' as QueueMode }], events: QUEUE_EVENTS },
  bisection: { machine: bisectionMachine, inputs: [{ id: 'b0' }], events: BISECTION_EVENTS },
};
