/**
 * Model-based tests of every lifecycle machine: paths generated from the machine by `xstate/graph` must reach every
 * state node and take every edge the definition declares, and the pure `transition()` and a live actor must agree
 * along each of them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  initialTransition,
  setup,
  transition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
} from 'xstate';
import { createTestModel } from 'xstate/graph';
import { MACHINES, type MachineName } from '../../machines/index.js';
import { coverage, type Coverage, replay } from './coverage.js';
import { allStateIds, view, type MachineModel } from './graph.js';
import { MODELS, pullRequestModel, queueModel } from './models.js';

/** The events up to the one that finishes the machine: a done actor takes no more. */
function untilDone(machine: AnyStateMachine, input: unknown, events: { type: string }[]): { type: string }[] {
  let [snapshot] = initialTransition(machine, input) as [AnyMachineSnapshot, unknown];
  const kept: { type: string }[] = [];
  for (const event of events) {
    if (snapshot.status !== 'active') break;
    kept.push(event);
    [snapshot] = transition(machine, snapshot, event) as [AnyMachineSnapshot, unknown];
  }
  return kept;
}

describe.each(Object.keys(MACHINES) as MachineName[])('%s machine', (name) => {
  const model = MODELS[name] as unknown as MachineModel;
  const { machine } = model;
  let computed: Coverage | undefined;
  /** Generating and replaying every path (throws at the first step where pure and live disagree). */
  const covered = (): Coverage => (computed ??= coverage(model));

  it('is the machine MACHINES exports', () => {
    expect(model.machine).toBe(MACHINES[name]);
  });

  it('agrees between pure transition() and a live actor on every generated path', () => {
    const { paths, taken } = covered();
    expect(paths.length).toBeGreaterThan(0);
    expect(taken.size).toBeGreaterThan(0);
  });

  it('reaches every state node on some path', () => {
    const { reached } = covered();
    expect(allStateIds(machine).filter((id) => !reached.has(id))).toEqual([]);
  });

  it('takes every edge of the definition on some path, and no other', () => {
    const { defined, taken } = covered();
    expect(defined.size).toBeGreaterThan(0);
    expect(
      [...defined].filter((edge) => !taken.has(edge)),
      'edges never taken',
    ).toEqual([]);
    expect(
      [...taken].filter((edge) => !defined.has(edge)),
      'edges taken but not defined',
    ).toEqual([]);
  });

  it('holds on a live actor along the TestModel shortest paths', async () => {
    const eventTypes = [...new Set(model.events.map((event) => event.type))];
    // A snapshot as the model identifies it (its serializer, when it has one, leaves out what grows without bound).
    const serialize = model.serialize;
    const same =
      serialize === undefined ? view : (snapshot: AnyMachineSnapshot) => JSON.parse(serialize(snapshot)) as unknown;
    let count = 0;
    for (const input of model.inputs) {
      const testModel = createTestModel(machine, {
        input,
        events: model.events,
        ...(model.serialize === undefined ? {} : { serializeState: model.serialize }),
        stopWhen: (snapshot) => snapshot.status !== 'active',
      });
      for (const path of testModel.getShortestPaths()) {
        const actor = createActor(machine, { input }).start();
        await path.test({
          events: Object.fromEntries(
            eventTypes.map((type) => [type, ({ event }: { event: { type: string } }) => actor.send(event)]),
          ),
          states: { '*': (state) => expect(same(actor.getSnapshot())).toEqual(same(state)) },
        });
        actor.stop();
        count++;
      }
    }
    expect(count).toBeGreaterThan(0);
  });

  it('agrees between pure transition() and a live actor on random event sequences', () => {
    const { defined } = covered();
    fc.assert(
      fc.property(
        fc.constantFrom(...model.inputs),
        fc.array(fc.constantFrom(...model.events), { maxLength: 30 }),
        (input, events) => {
          const { edges } = replay(machine, input, untilDone(machine, input, events));
          expect(edges.filter((edge) => !defined.has(edge))).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the coverage check itself', () => {
  it('notices a guarded transition that can no longer be taken', () => {
    const machine = pullRequestModel.machine.provide({ guards: { vouchedByRunBehind: () => false } });
    const { defined, taken } = coverage({ ...pullRequestModel, machine } as unknown as MachineModel);
    const missing = [...defined].filter((edge) => !taken.has(edge));
    expect(missing).toContain('pullRequest.TESTING --MERGE [vouchedByRunBehind]--> pullRequest.MERGED');
    expect(missing).toEqual([...defined].filter((edge) => edge.includes('[vouchedByRunBehind]')));
  });

  it('notices a guard that can no longer fail', () => {
    const machine = queueModel.machine.provide({ guards: { isNewMode: () => true } });
    const { defined, taken } = coverage({ ...queueModel, machine } as unknown as MachineModel);
    const missing = [...defined].filter((edge) => !taken.has(edge));
    expect(missing).toContain('queue.running --SWITCH_MODE--> (ignored: no guard held)');
    expect(missing).toEqual([...defined].filter((edge) => edge.includes('--SWITCH_MODE--> (ignored')));
  });

  it('notices a branch behind an unguarded branch, and the state only it leads to', () => {
    const machine = setup({ guards: { always: () => true } }).createMachine({
      id: 'shadow',
      initial: 'a',
      states: { a: { on: { GO: [{ target: 'b' }, { guard: 'always', target: 'c' }] } }, b: {}, c: {} },
    });
    const { defined, taken, reached } = coverage({ machine, inputs: [undefined], events: [{ type: 'GO' }] });
    expect([...defined].filter((edge) => !taken.has(edge))).toEqual(['shadow.a --GO [always] #2/2--> shadow.c']);
    expect(allStateIds(machine).filter((id) => !reached.has(id))).toEqual(['shadow.c']);
  });
});
