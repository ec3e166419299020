import { describe, expect, it } from 'vitest';
import { hasQueueTag, queueMachine, type QueueEvent, type QueueTag } from '../../machines/index.js';
import { QUEUE_STATES, REQUESTABLE_QUEUE_STATES, type RequestableQueueState } from '../../machines/vocabulary.js';
import { run } from './graph.js';

const input = { mode: 'single' as const };
/** The event that asks for each requestable state. */
const ASK: Record<RequestableQueueState, QueueEvent> = {
  running: { type: 'RESUME' },
  paused: { type: 'PAUSE' },
  draining: { type: 'DRAIN' },
};
const SWITCH: QueueEvent = { type: 'SWITCH_MODE', mode: 'parallel' };
const SETTLED: QueueEvent = { type: 'SETTLED' };

describe('queue machine', () => {
  it('starts running in its input mode', () => {
    expect(run(queueMachine, input, [])).toMatchObject({
      value: 'running',
      context: { mode: 'single', pendingMode: null, resumeTo: 'running' },
    });
  });

  it.each(REQUESTABLE_QUEUE_STATES)('moves between requestable states: %s', (from) => {
    for (const to of REQUESTABLE_QUEUE_STATES) {
      const route = from === 'running' ? [] : [ASK[from]];
      const snapshot = run(queueMachine, input, [...route, ASK[to]]);
      // Asking for the state it is in changes nothing.
      expect(snapshot.value).toBe(to);
    }
  });

  describe('SWITCH_MODE', () => {
    it.each(REQUESTABLE_QUEUE_STATES)('to the same mode does nothing in %s', (state) => {
      const route = state === 'running' ? [] : [ASK[state]];
      const before = run(queueMachine, input, route);
      const after = run(queueMachine, input, [...route, { type: 'SWITCH_MODE', mode: 'single' }]);
      expect(after.value).toBe(state);
      expect(after.context).toEqual(before.context);
    });

    it.each(REQUESTABLE_QUEUE_STATES)(
      'to another mode from %s waits in switching_modes, then returns there',
      (state) => {
        const route = state === 'running' ? [] : [ASK[state]];
        const switching = run(queueMachine, input, [...route, SWITCH]);
        expect(switching).toMatchObject({
          value: 'switching_modes',
          context: { mode: 'single', pendingMode: 'parallel', resumeTo: state },
        });
        expect(run(queueMachine, input, [...route, SWITCH, SETTLED])).toMatchObject({
          value: state,
          context: { mode: 'parallel', pendingMode: null },
        });
      },
    );

    it('remembers the state asked for while switching, the last request winning', () => {
      for (const from of REQUESTABLE_QUEUE_STATES) {
        for (const to of REQUESTABLE_QUEUE_STATES) {
          const route = from === 'running' ? [] : [ASK[from]];
          const asked = run(queueMachine, input, [...route, SWITCH, ASK[to]]);
          expect(asked).toMatchObject({ value: 'switching_modes', context: { resumeTo: to, mode: 'single' } });
          expect(run(queueMachine, input, [...route, SWITCH, ASK[to], SETTLED])).toMatchObject({
            value: to,
            context: { mode: 'parallel', pendingMode: null },
          });
        }
      }
      const lastWins = run(queueMachine, input, [SWITCH, ASK.paused, ASK.draining, ASK.running, SETTLED]);
      expect(lastWins.value).toBe('running');
    });

    it('a new SWITCH_MODE while switching retargets the pending mode', () => {
      const back = run(queueMachine, input, [SWITCH, { type: 'SWITCH_MODE', mode: 'single' }]);
      expect(back).toMatchObject({ value: 'switching_modes', context: { pendingMode: 'single', resumeTo: 'running' } });
      expect(run(queueMachine, input, [SWITCH, { type: 'SWITCH_MODE', mode: 'single' }, SETTLED])).toMatchObject({
        value: 'running',
        context: { mode: 'single', pendingMode: null },
      });
      expect(
        run(queueMachine, input, [
          SWITCH,
          { type: 'SWITCH_MODE', mode: 'single' },
          { type: 'SWITCH_MODE', mode: 'parallel' },
          SETTLED,
        ]),
      ).toMatchObject({
        value: 'running',
        context: { mode: 'parallel' },
      });
    });
  });

  describe('SETTLED', () => {
    it('ends draining: draining → paused', () => {
      expect(run(queueMachine, input, [ASK.draining, SETTLED])).toMatchObject({
        value: 'paused',
        context: { mode: 'single' },
      });
    });

    it.each(['running', 'paused'] as const)('does nothing in %s', (state) => {
      const route = state === 'running' ? [] : [ASK[state]];
      const before = run(queueMachine, input, route);
      const after = run(queueMachine, input, [...route, SETTLED]);
      expect(after.value).toBe(state);
      expect(after.context).toEqual(before.context);
    });

    it('after a switch back to draining, a second SETTLED pauses', () => {
      expect(run(queueMachine, input, [ASK.draining, SWITCH, SETTLED, SETTLED])).toMatchObject({
        value: 'paused',
        context: { mode: 'parallel' },
      });
    });
  });
});

describe('queue machine tags', () => {
  it('say what each state lets the engine do', () => {
    const tagged = (tag: QueueTag) => QUEUE_STATES.filter((state) => hasQueueTag(state, tag));
    expect(tagged('startsWork')).toEqual(['running']);
    expect(tagged('merges')).toEqual(['running', 'draining', 'switching_modes']);
    expect(tagged('settles')).toEqual(['draining', 'switching_modes']);
    expect(tagged('refusesSubmissions')).toEqual(['draining']);
    expect(run(queueMachine, { mode: 'single' }, [{ type: 'DRAIN' }]).hasTag('refusesSubmissions')).toBe(true);
  });
});
