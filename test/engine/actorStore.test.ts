/** Snapshots as the engine makes and restores them. */
import { initialTransition, type AnyStateMachine } from 'xstate';
import { describe, expect, test } from 'vitest';
import { fromStored, initial, toStored } from '../../engine/runtime/actorStore.js';
import { MACHINES, type MachineName } from '../../machines/index.js';

const INPUTS: Record<MachineName, unknown[]> = {
  pullRequest: [{ number: 1 }, { number: 4_294_967_295 }],
  testRun: [{ runId: 'tr_1', requiredStatuses: ['ci', 'lint'], deadlineAt: 1 }, { runId: 'tr_2', requiredStatuses: [], deadlineAt: 2 }],
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
