/** Snapshots as the engine makes and restores them. */
import { initialTransition, transition, type AnyStateMachine } from 'xstate';
import { describe, expect, test } from 'vitest';
import { fromStored, initial, quickStartAvailable, step, toStored } from '../../engine/runtime/actorStore.js';
import { pullRequestModel, queueModel, testRunModel } from '../machines/models.js';
import { MACHINES, type MachineName } from '../../machines/index.js';

const INPUTS: Record<MachineName, unknown[]> = {
  pullRequest: [{ number: 1 }, { number: 4_294_967_295 }],
  testRun: [
    { runId: 'tr_1', requiredStatuses: ['ci', 'lint'], deadlineAt: 1 },
    { runId: 'tr_2', requiredStatuses: [], deadlineAt: 2 },
  ],
  queue: [{ mode: 'single' }, { mode: 'parallel' }],
};

describe('initial snapshots', () => {
  test.each(Object.keys(INPUTS) as MachineName[])('%s: the quick start gives the snapshot initialTransition gives', (name) => {
    for (const input of INPUTS[name]) {
      const [expected] = initialTransition(MACHINES[name] as AnyStateMachine, input as never);
      const actual = initial(name, input);
      expect({ value: actual.value, context: actual.context, status: actual.status }).toEqual({ value: expected.value, context: expected.context, status: expected.status });
      // And it moves as the other would, and stores and restores alike.
      expect(toStored(name, actual)).toEqual(toStored(name, expected));
      expect(fromStored(name, toStored(name, actual)).value).toEqual(expected.value);
    }
  });
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
            const [expected] = transition(logic, snapshot, event as never);
            const actual = step(name, snapshot, event);
            expect([actual.value, actual.context, actual.status]).toEqual([expected.value, expected.context, expected.status]);
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
});
