/**
 * What the conformance suite drives the machines with. For each machine: the events of its whole definition (what a
 * full cover would take), and the events a client can cause through the API, with the engine's follow-ups in the
 * setting the suite drives them in (one PR, a parallel queue paused between steps, pendingFailureDepth 0). An event
 * the API cannot cause has its reason, printed with the coverage.
 */
import type { AnyEventObject } from 'xstate';
import { PULL_REQUEST_COUNTERS, pullRequestMachine, queueMachine, testRunMachine } from '../machines/index.js';
import type { MachineAlphabet } from './paths.js';

const RUN = 'conformance-run';

/** Every event of the PR machine, with payloads that satisfy and fail its guards. */
const PR_EVENTS: AnyEventObject[] = [
  { type: 'READY' },
  { type: 'UNREADY', reason: 'draft' },
  { type: 'START_TEST', runId: RUN, testedBase: [7] },
  { type: 'BASE_CHANGED', number: 7, reason: 'pushed' },
  { type: 'RUN_BEHIND_ENDED', failed: true },
  { type: 'HEAD_PUSHED' },
  { type: 'PASS' },
  { type: 'FAIL', runId: RUN, reason: 'ci failed' },
  { type: 'FAIL', runId: RUN, reason: 'conflict', conflict: true },
  { type: 'REQUEUE', reason: 'requeued' },
  { type: 'BISECT', reason: 'batch failed' },
  { type: 'RETEST', reason: 'retest' },
  { type: 'MERGE' },
  { type: 'MERGE', direct: true },
  { type: 'MERGE', vouchedBy: 'run-behind' },
  { type: 'REQUEST_MERGE' },
  { type: 'REQUEST_MERGE', direct: true },
  { type: 'REQUEST_MERGE', vouchedBy: 'run-behind' },
  { type: 'MERGE_REFUSED' },
  { type: 'RESTART' },
  { type: 'JOIN_GROUP', bisectionId: 'b0', group: 'g1', part: [7] },
  { type: 'LEAVE_GROUP' },
  { type: 'ISOLATE' },
  { type: 'KICK', reason: 'failed' },
  { type: 'CANCEL', reason: 'closed' },
];

/** The PR machine's counters are counted without bound and no guard reads them: a snapshot's key leaves them out. */
function prKey(snapshot: { value: unknown; context: unknown; status: string }): string {
  const context = { ...(snapshot.context as Record<string, unknown>) };
  for (const counter of PULL_REQUEST_COUNTERS) delete context[counter];
  return JSON.stringify({ value: snapshot.value, context, status: snapshot.status });
}

export const FULL: Record<'pullRequest' | 'queue' | 'testRun', MachineAlphabet> = {
  pullRequest: { machine: pullRequestMachine, inputs: [{ number: 1 }], events: PR_EVENTS, serialize: prKey },
  queue: {
    machine: queueMachine,
    inputs: [{ mode: 'single' }],
    events: [
      { type: 'PAUSE' },
      { type: 'RESUME' },
      { type: 'DRAIN' },
      { type: 'SWITCH_MODE', mode: 'single' },
      { type: 'SWITCH_MODE', mode: 'parallel' },
      { type: 'SETTLED' },
    ],
  },
  testRun: {
    machine: testRunMachine,
    label: (event, input) => runLabel(event, input),
    inputs: [
      { runId: RUN, requiredStatuses: ['ci', 'lint'], deadlineAt: 1 },
      { runId: RUN, requiredStatuses: [], deadlineAt: 1 },
    ],
    events: [
      { type: 'STATUS', context: 'ci', state: 'pending' },
      { type: 'STATUS', context: 'ci', state: 'success' },
      { type: 'STATUS', context: 'ci', state: 'failure' },
      { type: 'STATUS', context: 'ci', state: 'error' },
      { type: 'STATUS', context: 'lint', state: 'success' },
      { type: 'STATUS', context: 'coverage', state: 'success' },
      { type: 'TIMEOUT', at: 1 },
      { type: 'CANCEL', reason: 'cancelled' },
    ],
  },
};

/** The PR events the API causes one at a time (the others follow, or need the git host or several PRs). */
export const PR_API_EVENTS: AnyEventObject[] = [
  { type: 'READY' },
  { type: 'START_TEST', runId: RUN, testedBase: [] },
  { type: 'PASS' },
  { type: 'FAIL', runId: RUN, reason: 'ci failed' },
  { type: 'REQUEST_MERGE' },
  { type: 'RESTART' },
  { type: 'CANCEL', reason: 'closed' },
];

/** A failure or a pass is reported on a PR's run, so only while it is TESTING. */
export function prCauses(state: string, event: AnyEventObject): boolean {
  return (event.type !== 'FAIL' && event.type !== 'PASS') || state === 'TESTING';
}

/** What the engine does next on its own, in the suite's setting, after `event` in `state`. */
export function prFollowUps(state: string, event: AnyEventObject): AnyEventObject[] {
  if (event.type === 'FAIL') return [{ type: 'KICK', reason: 'failed' }];
  if (event.type === 'RESTART' && state === 'TESTING') return [{ type: 'REQUEUE', reason: 'restarted' }];
  if (event.type === 'REQUEST_MERGE') return [{ type: 'MERGE' }];
  return [];
}

/** The run events the API causes: statuses through setCommitStatus, a cancel through cancelPullRequest. */
export const RUN_API_EVENTS: AnyEventObject[] = FULL.testRun.events.filter((event) => event.type !== 'TIMEOUT');

/** A run's edge names the status reported and whether statuses are required (the guards decide on both). */
export function runLabel(event: AnyEventObject, input: unknown): string {
  const required = (input as { requiredStatuses?: string[] }).requiredStatuses ?? [];
  const on = required.length > 0 ? `required ${required.join('+')}` : 'none required';
  return event.type === 'STATUS' ? `STATUS ${String(event.context)}=${String(event.state)} (${on})` : event.type;
}

/** The API-level alphabets: what the generated scenarios drive. */
export const API: Record<'pullRequest' | 'queue' | 'testRun', MachineAlphabet> = {
  pullRequest: { ...FULL.pullRequest, events: PR_API_EVENTS, causes: prCauses, followUps: prFollowUps },
  // A queue that settles into draining with nothing in flight (its holder's run passed) settles again, to paused.
  queue: {
    ...FULL.queue,
    followUps: (_state, event, next) =>
      event.type === 'SETTLED' && next.value === 'draining' ? [{ type: 'SETTLED' }] : [],
  },
  testRun: { ...FULL.testRun, events: RUN_API_EVENTS, label: runLabel },
};

/** Why an edge taken on `event` cannot be reached through the API in the suite's setting. */
export const UNREACHABLE: Record<string, string> = {
  UNREADY:
    'the git host decides readiness; no API call makes a ready PR not ready (the simulated host keeps every PR mergeable)',
  HEAD_PUSHED: 'a push to a PR comes from the git host, not the API',
  BASE_CHANGED: 'a push to a PR of the base comes from the git host, not the API',
  MERGE_REFUSED: 'the git host refuses a merge; the simulated host never does',
  TIMEOUT: 'testingTimeoutMinutes is at least 1: a deadline costs a minute of waiting (not in this run)',
  RUN_BEHIND_ENDED:
    'counted while a failing PR waits for runs behind it (pendingFailureDepth, several PRs): the interleavings drive it, unseen as an edge from outside',
  BISECT: 'a failed batch split (several PRs): the interleavings drive it, unseen as an edge from outside',
  JOIN_GROUP: 'a bisection group (several PRs): the interleavings drive it; context only, no state changes',
  LEAVE_GROUP: 'a bisection group (several PRs): context only, no state changes',
  ISOLATE: 'speculation by likelihood isolates a PR likely to fail (a trained model, several PRs): context only',
  RETEST: 'anti-flake with pendingFailureDepth > 0: the interleavings drive it, unseen as an edge from outside',
  KICK: 'follows a failure; reached as FAIL then KICK',
  REQUEUE: 'follows a restart or a failure ahead; reached as RESTART then REQUEUE where one PR can',
  MERGE: 'a direct or vouched merge needs directMergeMode or optimistic merging with several PRs (the interleavings)',
  REQUEST_MERGE:
    'a direct or vouched merge needs directMergeMode or optimistic merging with several PRs (the interleavings)',
  START_TEST: 'on a base of other PRs: several PRs (the interleavings)',
  FAIL: 'a conflict, or a failure known without a run: the git host or a bisection',
  PENDING: 'a PR waiting (not in this setting)',
};
