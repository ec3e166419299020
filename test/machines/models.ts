/**
 * The models the machines are explored with: concrete inputs and event payloads, with variants that satisfy and
 * that fail each guard.
 */
import {
  bisectionMachine,
  PULL_REQUEST_COUNTERS,
  pullRequestMachine,
  queueMachine,
  testRunMachine,
} from '../../machines/index.js';
import type { MachineModel } from './graph.js';

export const DEADLINE = Date.UTC(2030, 0, 1);

export const pullRequestModel: MachineModel<typeof pullRequestMachine> = {
  machine: pullRequestMachine,
  inputs: [{ number: 42 }],
  // The counters (runs behind a failing PR, retests, refusals, failed attempts) are counted without bound, and no guard
  // reads them: a snapshot's key leaves them out.
  serialize: (snapshot) => {
    const context = { ...(snapshot.context as Record<string, unknown>) };
    for (const counter of PULL_REQUEST_COUNTERS) delete context[counter];
    return JSON.stringify({ value: snapshot.value, context, status: snapshot.status });
  },
  events: [
    { type: 'READY' },
    { type: 'UNREADY', reason: 'draft' },
    // testedOnIt: a result tested on top of #7, then BASE_CHANGED for #7 (it holds) and for #8 (it does not).
    { type: 'START_TEST', runId: 'run-1', testedBase: [7] },
    { type: 'BASE_CHANGED', number: 7, reason: '#7 was pushed to' },
    { type: 'BASE_CHANGED', number: 8, reason: '#8 was pushed to' },
    { type: 'RUN_BEHIND_ENDED', failed: false },
    { type: 'RUN_BEHIND_ENDED', failed: true },
    { type: 'HEAD_PUSHED' },
    { type: 'PASS' },
    { type: 'FAIL', runId: 'run-1', reason: 'ci failed' },
    { type: 'FAIL', runId: null, reason: 'its set already failed' },
    // isConflict: a PR under test that does not apply.
    { type: 'FAIL', runId: 'run-1', reason: 'it does not apply', conflict: true },
    { type: 'REQUEUE', reason: 'a PR ahead failed' },
    { type: 'BISECT', reason: 'its batch failed' },
    { type: 'RETEST', reason: 'tested alone once more' },
    // isDirectMerge and isVouched: neither, each, both.
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
  ],
};

export const testRunModel: MachineModel<typeof testRunMachine> = {
  machine: testRunMachine,
  // requiredStatusFailed / allRequiredStatusesPassed decide on the required statuses, or on every reported one.
  inputs: [
    { runId: 'run-1', requiredStatuses: ['ci', 'lint'], deadlineAt: DEADLINE },
    { runId: 'run-1', requiredStatuses: [], deadlineAt: DEADLINE },
  ],
  events: [
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
  ],
};

export const queueModel: MachineModel<typeof queueMachine> = {
  machine: queueMachine,
  inputs: [{ mode: 'single' }],
  events: [
    { type: 'PAUSE' },
    { type: 'RESUME' },
    { type: 'DRAIN' },
    // isNewMode: the same mode and the other one.
    { type: 'SWITCH_MODE', mode: 'single' },
    { type: 'SWITCH_MODE', mode: 'parallel' },
    { type: 'SETTLED' },
  ],
};

/** A bisection of two PRs, #1 and #2: halves of one (aloneInGroup) and a group of both (not alone). */
export const bisectionModel: MachineModel<typeof bisectionMachine> = {
  machine: bisectionMachine,
  inputs: [{ id: 'b0' }],
  events: [
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
  ],
};

export const MODELS = {
  pullRequest: pullRequestModel,
  testRun: testRunModel,
  queue: queueModel,
  bisection: bisectionModel,
} as const;
