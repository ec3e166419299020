/** Snapshots as the engine makes and restores them. */
import { initialTransition, transition, type AnyStateMachine } from 'xstate';
import { describe, expect, test } from 'vitest';
import { fromStored, initial, quickStartAvailable, step, toStored } from '../../engine/model/machineSnapshots.js';
import { pullRequestModel, queueModel, testRunModel } from '../machines/models.js';
import { MACHINES, PULL_REQUEST_MOVES, type MachineName, type PullRequestEvent } from '../../machines/index.js';
import { PR_MOVES } from '../../engine/transaction/prMoves.js';

const INPUTS: Record<MachineName, unknown[]> = {
  pullRequest: [{ number: 1 }, { number: 4_294_967_295 }],
  testRun: [
    { runId: 'tr_1', requiredStatuses: ['ci', 'lint'], deadlineAt: 1 },
    { runId: 'tr_2', requiredStatuses: [], deadlineAt: 2 },
  ],
  queue: [{ mode: 'single' }, { mode: 'parallel' }],
  bisection: [{ id: 'b0' }, { id: 'r12' }],
};

describe('initial snapshots', () => {
  test.each(Object.keys(INPUTS) as MachineName[])(
    '%s: the quick start gives the snapshot initialTransition gives',
    (name) => {
      for (const input of INPUTS[name]) {
        const [expected] = initialTransition(MACHINES[name] as AnyStateMachine, input as never);
        const actual = initial(name, input);
        expect({ value: actual.value, context: actual.context, status: actual.status }).toEqual({
          value: expected.value,
          context: expected.context,
          status: expected.status,
        });
        // And it moves as the other would, and stores and restores alike.
        expect(toStored(name, actual)).toEqual(toStored(name, expected));
        expect(fromStored(name, toStored(name, actual)).value).toEqual(expected.value);
      }
    },
  );
});

test('every machine of ours takes the quick start (initialTransition costs twenty times more)', () => {
  for (const name of Object.keys(INPUTS) as MachineName[]) expect(quickStartAvailable(name), name).toBe(true);
});

describe('steps', () => {
  // Every event of each machine's model, from every state a short walk reaches: step gives what transition gives.
  test.each([
    ['pullRequest', pullRequestModel],
    ['testRun', testRunModel],
    ['queue', queueModel],
  ] as const)('%s: step and XState transition agree on every event the state accepts', (name, model) => {
    const logic = MACHINES[name] as AnyStateMachine;
    let compared = 0;
    for (const input of model.inputs) {
      let frontier = [initial(name, input)];
      const seen = new Set<string>();
      for (let depth = 0; depth < 4; depth++) {
        const next: typeof frontier = [];
        for (const snapshot of frontier) {
          for (const event of model.events) {
            if (snapshot.status !== 'active' || !snapshot.can(event as never)) continue;
            const [expected, actions] = transition(logic, snapshot, event as never);
            const moves: string[] = [];
            const actual = step(name, snapshot, event, moves);
            expect([actual.value, actual.context, actual.status]).toEqual([
              expected.value,
              expected.context,
              expected.status,
            ]);
            // The moves step collects are the actions transition returns (it returns no assignments), in order.
            expect(moves).toEqual(actions.map((action) => action.type as string));
            compared++;
            const key = JSON.stringify([actual.value, actual.context]);
            if (!seen.has(key)) {
              seen.add(key);
              next.push(actual);
            }
          }
        }
        frontier = next;
      }
    }
    expect(compared).toBeGreaterThan(20);
  });

  test('a pullRequest step names the moves of its transition, in order; the others none', () => {
    const moves = (events: PullRequestEvent[], last: PullRequestEvent): string[] => {
      let snapshot = initial('pullRequest', { number: 1 });
      for (const event of events) snapshot = step('pullRequest', snapshot, event);
      const named: string[] = [];
      step('pullRequest', snapshot, last, named);
      return named;
    };
    const testing: PullRequestEvent[] = [{ type: 'READY' }, { type: 'START_TEST', runId: 'r1', testedBase: [] }];
    const failing: PullRequestEvent[] = [...testing, { type: 'FAIL', runId: 'r1', reason: 'ci' }];
    expect(moves(failing, { type: 'KICK', reason: 'ci' })).toEqual(['learnOutcome', 'leaveLineup', 'reportKicked']);
    expect(moves(failing, { type: 'REQUEUE', reason: 'ahead failed' })).toEqual(['reportRequeued']);
    expect(moves(failing, { type: 'RETEST', reason: 'once more' })).toEqual([]);
    expect(moves(failing, { type: 'MERGE', vouchedBy: 'r2', head: 'h' })).toEqual([
      'landMerge',
      'learnOutcome',
      'leaveLineup',
      'reportMerged',
    ]);
    expect(moves(testing, { type: 'MERGE', vouchedBy: 'r2', head: 'h' })).toEqual([
      'landMerge',
      'learnOutcome',
      'leaveLineup',
      'reportMerged',
      'cancelItsRun',
    ]);
    expect(moves(testing, { type: 'CANCEL', reason: 'closed' })).toEqual([
      'leaveLineup',
      'reportCancelled',
      'cancelItsRun',
    ]);
    expect(moves([], { type: 'CANCEL', reason: 'closed' })).toEqual(['leaveLineup', 'reportCancelled']);
    expect(moves(testing, { type: 'PASS' })).toEqual(['reportPassed']);
    expect(moves([...testing, { type: 'PASS' }], { type: 'REQUEST_MERGE' })).toEqual(['askMerge']);
    expect(moves([], { type: 'READY' })).toEqual(['enterLineup', 'reportReady']);
    expect(moves([{ type: 'READY' }], { type: 'UNREADY', reason: 'conflicts' })).toEqual([
      'awaitReadiness',
      'reportUnready',
    ]);
    expect(moves([{ type: 'READY' }], { type: 'START_TEST', runId: 'r2', testedBase: [] })).toEqual(['reportTesting']);
    expect(moves([{ type: 'READY' }], { type: 'JOIN_GROUP', bisectionId: 'b0', group: 'g1', part: [1] })).toEqual([
      'reportBisecting',
    ]);
    expect(moves(testing, { type: 'FAIL', runId: 'r1', reason: 'ci' })).toEqual(['reportFailing']);
    expect(moves(testing, { type: 'FAIL', runId: 'r1', reason: 'conflict', conflict: true })).toEqual([]);
  });

  test('every action of the pullRequest machine but its assignments is a move the engine has', () => {
    const declared = Object.entries(MACHINES.pullRequest.implementations.actions).filter(
      ([, action]) => (action as { type?: string }).type !== 'xstate.assign',
    );
    expect(declared.map(([name]) => name).sort()).toEqual([...PULL_REQUEST_MOVES].sort());
    expect(Object.keys(PR_MOVES).sort()).toEqual([...PULL_REQUEST_MOVES].sort());
  });
});
