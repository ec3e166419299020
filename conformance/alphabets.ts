/**
 * What the conformance suite drives the machines with. For each machine: the events of its whole definition (what a
 * full cover would take), and the events a client can cause through the API, with the engine's follow-ups in the
 * setting the suite drives them in (one PR, a parallel queue paused between steps, pendingFailureDepth 0). An event
 * the API cannot cause has its reason, printed with the coverage.
 */
import type { AnyEventObject } from 'xstate';
import { bisectionAlphabet } from './bisectionActuator.js';
import { MACHINE_EVENTS } from './machineEvents.js';
import type { MachineAlphabet } from './paths.js';

const RUN = 'conformance-run';

export type MachineKey = keyof typeof MACHINE_EVENTS;

/** Each machine's whole alphabet (conformance/machineEvents.ts: the machines' model-based tests use it too). */
export const FULL: Record<MachineKey, MachineAlphabet> = {
  ...MACHINE_EVENTS,
  testRun: { ...MACHINE_EVENTS.testRun, label: (event, input) => runLabel(event, input) },
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
export const API: Record<MachineKey, MachineAlphabet> = {
  pullRequest: { ...FULL.pullRequest, events: PR_API_EVENTS, causes: prCauses, followUps: prFollowUps },
  // A queue that settles into draining with nothing in flight (its holder's run passed) settles again, to paused.
  queue: {
    ...FULL.queue,
    followUps: (_state, event, next) =>
      event.type === 'SETTLED' && next.value === 'draining' ? [{ type: 'SETTLED' }] : [],
  },
  testRun: { ...FULL.testRun, events: RUN_API_EVENTS, label: runLabel },
  bisection: bisectionAlphabet(FULL.bisection),
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
  SPLIT: 'a group of several PRs split again: a failed batch of four or more (the suite bisects a batch of two)',
  GROUP_FAILED: 'a group of several PRs fails: a failed batch of four or more (the suite bisects a batch of two)',
  KNOWN_TO_FAIL: 'skip-redundant: a PR known to fail without a run needs a group of several PRs',
  GROUP_TESTING: 'a group starts while another is under test: skip-redundant, or a pool with a slot for one',
  GROUP_UNTESTED: "a group's run cancelled (a push to its PR, or a restart): the suite's groups are of one PR",
};

/** Why edges of a shape cannot be reached through the API (looked up before the reasons by event). */
export const UNREACHABLE_EDGES: [RegExp, string][] = [
  [
    /^(split --(GROUP_RESCUED|CULPRIT_FOUND)--> |halvesUnderTest --\w+--> split$)/,
    "a bisection's group waiting beside one under test (skip-redundant, a busy pool): the suite's halves start together",
  ],
];
