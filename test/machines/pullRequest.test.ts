import { describe, expect, it, vi } from 'vitest';
import { createActor, transition } from 'xstate';
import { hasPullRequestTag, PR_IS, PULL_REQUEST_TAGS, pullRequestMachine, type PullRequestEvent, type PullRequestTag } from '../../machines/index.js';
import { isEnqueued, PULL_REQUEST_STATES, type PullRequestState } from '../../machines/vocabulary.js';
import { routeTo, run } from './graph.js';
import { pullRequestModel } from './models.js';

const input = { number: 42 };
const STATES = Object.values(pullRequestMachine.root.states);
const NON_FINAL = STATES.filter((state) => state.type !== 'final').map((state) => state.key);
const FINAL = STATES.filter((state) => state.type === 'final').map((state) => state.key);

function at(state: string, ...more: PullRequestEvent[]) {
  return run(pullRequestMachine, input, [...routeTo(pullRequestModel, input, state), ...more]);
}

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
    const merging = (state: string, request: PullRequestEvent = { type: 'REQUEST_MERGE', vouchedBy: 'run-9' }) => at(state, request);

    it('is asked where MERGE may complete it, and records how', () => {
      expect(at('TESTS_PASSED', { type: 'REQUEST_MERGE' }).context.merge).toEqual({ by: null });
      expect(at('PENDING', { type: 'REQUEST_MERGE', direct: true }).context.merge).toEqual({ by: 'direct' });
      for (const state of ['PENDING', 'TESTING', 'PENDING_FAILURE']) {
        expect(at(state, { type: 'REQUEST_MERGE', vouchedBy: 'run-9' })).toMatchObject({ value: state, context: { merge: { by: 'run-9' } } });
        expect(at(state, { type: 'REQUEST_MERGE' }).context.merge).toBeUndefined();
      }
      expect(at('TESTING', { type: 'REQUEST_MERGE', direct: true }).context.merge).toBeUndefined();
      expect(at('NOT_READY').can({ type: 'REQUEST_MERGE', direct: true })).toBe(false);
    });

    it.each(['PENDING', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'])('forbids CANCEL, RESTART and a second merge in %s', (state) => {
      const snapshot = merging(state, state === 'TESTS_PASSED' ? { type: 'REQUEST_MERGE' } : undefined);
      expect(snapshot.context.merge).toBeDefined();
      expect(snapshot.can({ type: 'CANCEL', reason: 'closed' })).toBe(false);
      expect(snapshot.can({ type: 'RESTART' })).toBe(false);
      expect(snapshot.can({ type: 'REQUEST_MERGE', vouchedBy: 'run-8' })).toBe(false);
      expect(at(state).can({ type: 'CANCEL', reason: 'closed' })).toBe(true);
      expect(at(state).can({ type: 'RESTART' })).toBe(true);
    });

    it('goes on while its run ends, and is forgotten when refused', () => {
      const passed = run(pullRequestMachine, input, [...routeTo(pullRequestModel, input, 'TESTING'), { type: 'REQUEST_MERGE', vouchedBy: 'run-9' }, { type: 'PASS' }]);
      expect(passed).toMatchObject({ value: 'TESTS_PASSED', context: { merge: { by: 'run-9' } } });
      const requeued = run(pullRequestMachine, input, [
        ...routeTo(pullRequestModel, input, 'TESTING'),
        { type: 'REQUEST_MERGE', vouchedBy: 'run-9' },
        { type: 'REQUEUE', reason: 'run timed out' },
      ]);
      expect(requeued).toMatchObject({ value: 'PENDING', context: { merge: { by: 'run-9' } } });
      const refused = run(pullRequestMachine, input, [...routeTo(pullRequestModel, input, 'TESTS_PASSED'), { type: 'REQUEST_MERGE' }, { type: 'MERGE_REFUSED' }]);
      expect(refused.value).toBe('TESTS_PASSED');
      expect(refused.context.merge).toBeUndefined();
      expect(refused.can({ type: 'CANCEL', reason: 'closed' })).toBe(true);
      expect(at('TESTS_PASSED').can({ type: 'MERGE_REFUSED' })).toBe(false);
    });

    it('is kept once merged, as how it merged', () => {
      const merged = run(pullRequestMachine, input, [...routeTo(pullRequestModel, input, 'PENDING'), { type: 'REQUEST_MERGE', direct: true }, { type: 'MERGE', direct: true }]);
      expect(merged).toMatchObject({ value: 'MERGED', status: 'done', context: { merge: { by: 'direct' } } });
    });
  });

  describe('a bisection group', () => {
    const join = { type: 'JOIN_GROUP', bisectionId: 'b0', group: 'g1', part: [7] } as const;

    it('is joined while waiting, kept while tested, left back on the main line', () => {
      expect(at('PENDING', join).context.bisection).toEqual({ id: 'b0', group: 'g1' });
      for (const state of ['NOT_READY', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE']) expect(at(state).can(join)).toBe(false);
      const tested = run(pullRequestMachine, input, [...routeTo(pullRequestModel, input, 'PENDING'), join, { type: 'START_TEST', runId: 'run-3' }, { type: 'PASS' }]);
      expect(tested).toMatchObject({ value: 'TESTS_PASSED', context: { bisection: { id: 'b0', group: 'g1' } } });
      const [rescued] = [
        run(pullRequestMachine, input, [...routeTo(pullRequestModel, input, 'PENDING'), join, { type: 'START_TEST', runId: 'run-3' }, { type: 'PASS' }, { type: 'LEAVE_GROUP' }]),
      ];
      expect(rescued.value).toBe('TESTS_PASSED');
      expect(rescued.context.bisection).toBeUndefined();
    });

    it('is left with the queue: UNREADY, CANCEL, KICK and MERGE leave it', () => {
      const grouped = [...routeTo(pullRequestModel, input, 'PENDING'), join];
      expect(run(pullRequestMachine, input, [...grouped, { type: 'UNREADY', reason: 'draft' }]).context.bisection).toBeUndefined();
      expect(run(pullRequestMachine, input, [...grouped, { type: 'CANCEL', reason: 'closed' }]).context.bisection).toBeUndefined();
      const failed = [...grouped, { type: 'START_TEST', runId: 'run-3' }, { type: 'FAIL', runId: 'run-3', reason: 'ci' }] as PullRequestEvent[];
      expect(run(pullRequestMachine, input, failed).context.bisection).toEqual({ id: 'b0', group: 'g1' });
      expect(run(pullRequestMachine, input, [...failed, { type: 'KICK', reason: 'culprit' }]).context.bisection).toBeUndefined();
      expect(run(pullRequestMachine, input, [...failed, { type: 'MERGE', vouchedBy: 'run-4' }]).context.bisection).toBeUndefined();
    });
  });

  describe('the base a result was tested on', () => {
    const tested = (...more: PullRequestEvent[]) => at('PENDING', { type: 'START_TEST', runId: 'run-3', testedBase: [7, 9] }, ...more);

    it('is recorded by START_TEST and kept by the result, and forgotten when the PR goes back to waiting', () => {
      expect(tested().context.testedBase).toEqual([7, 9]);
      expect(at('PENDING', { type: 'START_TEST', runId: 'run-3' }).context.testedBase).toEqual([]);
      expect(tested({ type: 'PASS' }).context.testedBase).toEqual([7, 9]);
      expect(tested({ type: 'FAIL', runId: 'run-3', reason: 'ci' }).context.testedBase).toEqual([7, 9]);
      expect(tested({ type: 'REQUEUE', reason: 'ahead failed' }).context.testedBase).toBeUndefined();
      expect(tested({ type: 'FAIL', runId: 'run-3', reason: 'ci' }, { type: 'BISECT', reason: 'batch' }).context.testedBase).toBeUndefined();
      // A failure known without a run says the base it is known on.
      expect(at('PENDING', { type: 'FAIL', runId: null, reason: 'its set failed', testedBase: [4] }).context.testedBase).toEqual([4]);
      // A PR that left the queue keeps it (retention keeps the PRs it names).
      expect(tested({ type: 'PASS' }, { type: 'MERGE' }).context.testedBase).toEqual([7, 9]);
    });

    it('changed under a result that stood on it sends it back to PENDING (testedOnIt), and only then', () => {
      const changed = (number: number) => ({ type: 'BASE_CHANGED', number, reason: `#${number} was pushed to` }) as const;
      for (const result of [{ type: 'PASS' }, { type: 'FAIL', runId: 'run-3', reason: 'ci' }] as PullRequestEvent[]) {
        expect(tested(result).can(changed(9))).toBe(true);
        expect(tested(result, changed(9))).toMatchObject({ value: 'PENDING', context: { reason: '#9 was pushed to', testedBase: undefined } });
        expect(tested(result).can(changed(8))).toBe(false);
      }
      // Not while it is tested (its run is cancelled instead), nor with a merge under way.
      expect(tested().can(changed(9))).toBe(false);
      expect(tested({ type: 'PASS' }, { type: 'REQUEST_MERGE' }).can(changed(9))).toBe(false);
    });
  });

  describe('the runs behind a failing PR', () => {
    const failing = (...more: PullRequestEvent[]) => at('PENDING_FAILURE', ...more);
    const ended = (failed: boolean) => ({ type: 'RUN_BEHIND_ENDED', failed }) as const;

    it('are counted only while it waits in PENDING_FAILURE, the failed ones apart', () => {
      expect(failing(ended(false), ended(true), ended(true)).context).toMatchObject({ runsBehindEnded: 3, runsBehindFailed: 2 });
      expect(failing(ended(false)).context.runsBehindFailed).toBe(0);
      for (const state of ['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED']) expect(at(state).can(ended(true))).toBe(false);
    });

    it('start again from none with a new failure and with a push to its head, which a merge under way refuses', () => {
      const counted = [ended(true), ended(false)];
      const again = [
        { type: 'REQUEUE', reason: 'retest' },
        { type: 'START_TEST', runId: 'run-4' },
        { type: 'FAIL', runId: 'run-4', reason: 'again' },
      ] as PullRequestEvent[];
      expect(failing(...counted, ...again)).toMatchObject({ value: 'PENDING_FAILURE', context: { runsBehindEnded: 0, runsBehindFailed: 0 } });
      expect(failing(...counted, { type: 'HEAD_PUSHED' })).toMatchObject({ value: 'PENDING_FAILURE', context: { runsBehindEnded: 0, runsBehindFailed: 0 } });
      expect(failing(...counted, { type: 'REQUEST_MERGE', vouchedBy: 'run-9' }).can({ type: 'HEAD_PUSHED' })).toBe(false);
      for (const state of NON_FINAL) expect(at(state).can({ type: 'HEAD_PUSHED' })).toBe(true);
      for (const state of FINAL) expect(at(state).can({ type: 'HEAD_PUSHED' })).toBe(false);
    });
  });

  describe('tags', () => {
    it('say what each state means', () => {
      const tagged = (tag: PullRequestTag) => PULL_REQUEST_STATES.filter((state) => hasPullRequestTag(state, tag));
      expect(tagged('enqueued')).toEqual(NON_FINAL);
      expect(tagged('hasResult')).toEqual(['TESTING', 'TESTS_PASSED', 'PENDING_FAILURE']);
      expect(tagged('waiting')).toEqual(['PENDING']);
      expect(tagged('failing')).toEqual(['PENDING_FAILURE']);
      expect(tagged('merged')).toEqual(['MERGED']);
      for (const state of PULL_REQUEST_STATES) expect(hasPullRequestTag(state, 'enqueued')).toBe(isEnqueued(state));
      expect(at('TESTING').hasTag('testing')).toBe(true);
    });

    it('compiled per tag (PR_IS), answer as the machine does for every state and tag', () => {
      for (const tag of PULL_REQUEST_TAGS) {
        for (const state of PULL_REQUEST_STATES) {
          expect(PR_IS[tag](state), `${tag} of ${state}`).toBe(hasPullRequestTag(state, tag));
          expect(PR_IS[tag](state), `${tag} of ${state}`).toBe(at(state).hasTag(tag));
        }
        expect(PR_IS[tag]('NO_SUCH_STATE' as PullRequestState)).toBe(false);
      }
    });
  });

  describe('context', () => {
    it('START_TEST records the run and clears the reason', () => {
      const snapshot = at('PENDING', { type: 'START_TEST', runId: 'run-7' });
      expect(snapshot.context).toMatchObject({ runId: 'run-7', reason: null });
    });

    it('FAIL records the run and the reason, with or without a run', () => {
      expect(at('TESTING', { type: 'FAIL', runId: 'run-1', reason: 'lint failed' }).context).toMatchObject({
        runId: 'run-1',
        reason: 'lint failed',
      });
      expect(at('PENDING', { type: 'FAIL', runId: null, reason: 'its set already failed' }).context).toMatchObject({
        runId: null,
        reason: 'its set already failed',
      });
    });

    it('REQUEUE, UNREADY and KICK record their reason; READY and PASS clear it', () => {
      expect(at('TESTING', { type: 'REQUEUE', reason: 'a PR ahead failed' }).context.reason).toBe('a PR ahead failed');
      expect(at('TESTS_PASSED', { type: 'REQUEUE', reason: 'base moved' }).context.reason).toBe('base moved');
      expect(at('PENDING', { type: 'UNREADY', reason: 'draft' }).context.reason).toBe('draft');
      expect(at('PENDING_FAILURE', { type: 'KICK', reason: 'bisected' })).toMatchObject({
        value: 'FAILED',
        context: { reason: 'bisected' },
      });
      expect(at('NOT_READY', { type: 'CANCEL', reason: 'x' }).context.reason).toBe('x');
      expect(at('PENDING', { type: 'UNREADY', reason: 'draft' }, { type: 'READY' }).context.reason).toBeNull();
      expect(at('PENDING_FAILURE', { type: 'REQUEUE', reason: 'retry' }, { type: 'START_TEST', runId: 'run-2' }, { type: 'PASS' })).toMatchObject({
        value: 'TESTS_PASSED',
        context: { runId: 'run-2', reason: null },
      });
    });
  });
});
