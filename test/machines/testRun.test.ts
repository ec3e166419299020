import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import {
  hasTestRunTag,
  testRunMachine,
  type CommitState,
  type TestRunEvent,
  type TestRunTag,
} from '../../machines/index.js';
import { TEST_RUN_STATUSES } from '../../machines/vocabulary.js';
import { run } from './graph.js';
import { DEADLINE } from './models.js';

type Status = Extract<TestRunEvent, { type: 'STATUS' }>;
const status = (context: string, state: CommitState): Status => ({ type: 'STATUS', context, state });
const REQUIRED = { runId: 'run-1', requiredStatuses: ['ci', 'lint'], deadlineAt: DEADLINE };
const NONE_REQUIRED = { runId: 'run-1', requiredStatuses: [], deadlineAt: DEADLINE };

describe('testRun machine', () => {
  describe('with required statuses', () => {
    it('succeeds only when every required status is a success', () => {
      expect(run(testRunMachine, REQUIRED, [status('ci', 'success')]).value).toBe('in_progress');
      expect(run(testRunMachine, REQUIRED, [status('ci', 'success'), status('lint', 'pending')]).value).toBe(
        'in_progress',
      );
      const done = run(testRunMachine, REQUIRED, [status('ci', 'success'), status('lint', 'success')]);
      expect(done.value).toBe('succeeded');
      expect(done.status).toBe('done');
      expect(done.context.statuses).toEqual({ ci: 'success', lint: 'success' });
    });

    it('a required status may go pending and then pass', () => {
      const events = [status('ci', 'pending'), status('lint', 'success'), status('ci', 'success')];
      expect(run(testRunMachine, REQUIRED, events).value).toBe('succeeded');
    });

    it.each(['failure', 'error'] as const)('fails on a required %s, with a reason', (state) => {
      const snapshot = run(testRunMachine, REQUIRED, [status('ci', 'success'), status('lint', state)]);
      expect(snapshot.value).toBe('failed');
      expect(snapshot.context.reason).toBe(`required status lint reported ${state}`);
      expect(snapshot.context.statuses).toEqual({ ci: 'success', lint: state });
    });

    it('ignores statuses that are not required, but records them', () => {
      const snapshot = run(testRunMachine, REQUIRED, [
        status('coverage', 'failure'),
        status('docs', 'error'),
        status('ci', 'success'),
        status('coverage', 'success'),
      ]);
      expect(snapshot.value).toBe('in_progress');
      expect(snapshot.context.statuses).toEqual({ coverage: 'success', docs: 'error', ci: 'success' });
      expect(run(testRunMachine, REQUIRED, [status('coverage', 'success')]).value).toBe('in_progress');
    });
  });

  describe('with no required status, every reported status decides', () => {
    it('needs at least one status', () => {
      expect(run(testRunMachine, NONE_REQUIRED, []).value).toBe('in_progress');
      expect(run(testRunMachine, NONE_REQUIRED, [status('ci', 'pending')]).value).toBe('in_progress');
      expect(run(testRunMachine, NONE_REQUIRED, [status('ci', 'success')]).value).toBe('succeeded');
    });

    it('succeeds once every reported status is a success', () => {
      const events = [status('ci', 'pending'), status('lint', 'success')];
      expect(run(testRunMachine, NONE_REQUIRED, events).value).toBe('in_progress');
      expect(run(testRunMachine, NONE_REQUIRED, [...events, status('ci', 'success')]).value).toBe('succeeded');
    });

    it.each(['failure', 'error'] as const)('fails on any %s', (state) => {
      const snapshot = run(testRunMachine, NONE_REQUIRED, [status('ci', 'pending'), status('anything', state)]);
      expect(snapshot.value).toBe('failed');
      expect(snapshot.context.reason).toBe(`required status anything reported ${state}`);
    });
  });

  it('decides as the rule says on any sequence of statuses (property)', () => {
    const states = fc.constantFrom<CommitState>('pending', 'success', 'failure', 'error');
    const names = fc.constantFrom('ci', 'lint', 'coverage');
    fc.assert(
      fc.property(
        fc.constantFrom<string[]>(['ci', 'lint'], ['ci'], []),
        fc.array(fc.tuple(names, states), { maxLength: 12 }),
        (requiredStatuses, reports) => {
          // The rule, written out: decide at the first report after which the deciding statuses fail or all pass.
          const latest: Record<string, CommitState> = {};
          let expected = 'in_progress';
          let consumed = 0;
          for (const [name, state] of reports) {
            consumed++;
            latest[name] = state;
            const deciding =
              requiredStatuses.length > 0 ? requiredStatuses.map((n) => latest[n]) : Object.values(latest);
            if (deciding.some((s) => s === 'failure' || s === 'error')) expected = 'failed';
            else if (deciding.length > 0 && deciding.every((s) => s === 'success')) expected = 'succeeded';
            if (expected !== 'in_progress') break;
          }
          const input = { runId: 'r', requiredStatuses, deadlineAt: DEADLINE };
          const snapshot = run(
            testRunMachine,
            input,
            reports.map(([name, state]) => status(name, state)),
          );
          expect(snapshot.value).toBe(expected);
          // Reports after the decision change nothing.
          expect(
            run(
              testRunMachine,
              input,
              reports.slice(0, consumed).map(([n, s]) => status(n, s)),
            ).context,
          ).toEqual(snapshot.context);
        },
      ),
      { numRuns: 500 },
    );
  });

  describe('TIMEOUT', () => {
    it('before deadlineAt does nothing', () => {
      const before = run(testRunMachine, REQUIRED, [status('ci', 'success')]);
      const after = run(testRunMachine, REQUIRED, [status('ci', 'success'), { type: 'TIMEOUT', at: DEADLINE - 1 }]);
      expect(after.value).toBe('in_progress');
      expect(after.context).toEqual(before.context);
    });

    it.each([0, 1, 60_000])('at deadlineAt + %i ms cancels the run, with a reason', (late) => {
      const snapshot = run(testRunMachine, REQUIRED, [{ type: 'TIMEOUT', at: DEADLINE + late }]);
      expect(snapshot.value).toBe('cancelled');
      expect(snapshot.context.reason).toBe(
        `no result before the testing timeout (${new Date(DEADLINE).toISOString()})`,
      );
    });
  });

  it('CANCEL cancels with its reason', () => {
    const snapshot = run(testRunMachine, REQUIRED, [{ type: 'CANCEL', reason: 'superseded' }]);
    expect(snapshot).toMatchObject({ value: 'cancelled', status: 'done', context: { reason: 'superseded' } });
  });

  it.each([
    ['succeeded', [status('ci', 'success'), status('lint', 'success')]],
    ['failed', [status('ci', 'failure')]],
    ['cancelled', [{ type: 'CANCEL', reason: 'x' }]],
  ] as [string, TestRunEvent[]][])('takes no event once %s', (state, events) => {
    const settled = run(testRunMachine, REQUIRED, events);
    for (const event of [
      status('ci', 'error'),
      { type: 'TIMEOUT', at: DEADLINE },
      { type: 'CANCEL', reason: 'y' },
    ] as TestRunEvent[]) {
      const next = run(testRunMachine, REQUIRED, [...events, event]);
      expect(next.value).toBe(state);
      expect(next.context).toEqual(settled.context);
    }
    const actor = createActor(testRunMachine, { input: REQUIRED }).start();
    for (const event of events) actor.send(event);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    actor.send({ type: 'CANCEL', reason: 'y' });
    expect(warn.mock.calls.join()).toContain('has already reached its final state');
    warn.mockRestore();
    expect(actor.getSnapshot().value).toBe(state);
    actor.stop();
  });
});

describe('testRun machine tags', () => {
  it('say whether a run is in progress, ended, and how', () => {
    const tagged = (tag: TestRunTag) => TEST_RUN_STATUSES.filter((status) => hasTestRunTag(status, tag));
    expect(tagged('inProgress')).toEqual(['in_progress']);
    expect(tagged('ended')).toEqual(['succeeded', 'failed', 'cancelled']);
    for (const verdict of ['succeeded', 'failed', 'cancelled'] as const) expect(tagged(verdict)).toEqual([verdict]);
  });
});
