/**
 * The pull request machine's context and tags: a bisection group, the base a result was tested on, the runs behind a
 * failing PR, the tags each state carries and the context's shape. Its moves: test/machines/pullRequest.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  hasPullRequestTag,
  PR_IS,
  PULL_REQUEST_TAGS,
  pullRequestMachine,
  type PullRequestEvent,
  type PullRequestTag,
} from '../../machines/index.js';
import { isEnqueued, PULL_REQUEST_STATES, type PullRequestState } from '../../machines/vocabulary.js';
import { routeTo, run } from './graph.js';
import { pullRequestModel } from './models.js';

import { at, FINAL, input, NON_FINAL } from './pullRequestAt.js';

describe('pullRequest machine', () => {
  describe('a bisection group', () => {
    const join = { type: 'JOIN_GROUP', bisectionId: 'b0', group: 'g1', part: [7] } as const;

    it('is joined while waiting, kept while tested, left back on the main line', () => {
      expect(at('PENDING', join).context.bisection).toEqual({ id: 'b0', group: 'g1' });
      for (const state of ['NOT_READY', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'])
        expect(at(state).can(join)).toBe(false);
      const tested = run(pullRequestMachine, input, [
        ...routeTo(pullRequestModel, input, 'PENDING'),
        join,
        { type: 'START_TEST', runId: 'run-3' },
        { type: 'PASS' },
      ]);
      expect(tested).toMatchObject({ value: 'TESTS_PASSED', context: { bisection: { id: 'b0', group: 'g1' } } });
      const [rescued] = [
        run(pullRequestMachine, input, [
          ...routeTo(pullRequestModel, input, 'PENDING'),
          join,
          { type: 'START_TEST', runId: 'run-3' },
          { type: 'PASS' },
          { type: 'LEAVE_GROUP' },
        ]),
      ];
      expect(rescued.value).toBe('TESTS_PASSED');
      expect(rescued.context.bisection).toBeUndefined();
    });

    it('is left with the queue: UNREADY, CANCEL, KICK and MERGE leave it', () => {
      const grouped = [...routeTo(pullRequestModel, input, 'PENDING'), join];
      expect(
        run(pullRequestMachine, input, [...grouped, { type: 'UNREADY', reason: 'draft' }]).context.bisection,
      ).toBeUndefined();
      expect(
        run(pullRequestMachine, input, [...grouped, { type: 'CANCEL', reason: 'closed' }]).context.bisection,
      ).toBeUndefined();
      const failed = [
        ...grouped,
        { type: 'START_TEST', runId: 'run-3' },
        { type: 'FAIL', runId: 'run-3', reason: 'ci' },
      ] as PullRequestEvent[];
      expect(run(pullRequestMachine, input, failed).context.bisection).toEqual({ id: 'b0', group: 'g1' });
      expect(
        run(pullRequestMachine, input, [...failed, { type: 'KICK', reason: 'culprit' }]).context.bisection,
      ).toBeUndefined();
      expect(
        run(pullRequestMachine, input, [...failed, { type: 'MERGE', vouchedBy: 'run-4' }]).context.bisection,
      ).toBeUndefined();
    });
  });

  describe('the base a result was tested on', () => {
    const tested = (...more: PullRequestEvent[]) =>
      at('PENDING', { type: 'START_TEST', runId: 'run-3', testedBase: [7, 9] }, ...more);

    it('is recorded by START_TEST and kept by the result, and forgotten when the PR goes back to waiting', () => {
      expect(tested().context.testedBase).toEqual([7, 9]);
      expect(at('PENDING', { type: 'START_TEST', runId: 'run-3' }).context.testedBase).toEqual([]);
      expect(tested({ type: 'PASS' }).context.testedBase).toEqual([7, 9]);
      expect(tested({ type: 'FAIL', runId: 'run-3', reason: 'ci' }).context.testedBase).toEqual([7, 9]);
      expect(tested({ type: 'REQUEUE', reason: 'ahead failed' }).context.testedBase).toBeUndefined();
      expect(
        tested({ type: 'FAIL', runId: 'run-3', reason: 'ci' }, { type: 'BISECT', reason: 'batch' }).context.testedBase,
      ).toBeUndefined();
      // A failure known without a run says the base it is known on.
      expect(
        at('PENDING', { type: 'FAIL', runId: null, reason: 'its set failed', testedBase: [4] }).context.testedBase,
      ).toEqual([4]);
      // A PR that left the queue keeps it (retention keeps the PRs it names).
      expect(tested({ type: 'PASS' }, { type: 'MERGE' }).context.testedBase).toEqual([7, 9]);
    });

    it('changed under a result that stood on it sends it back to PENDING (testedOnIt), and only then', () => {
      const changed = (number: number) =>
        ({ type: 'BASE_CHANGED', number, reason: `#${number} was pushed to` }) as const;
      for (const result of [{ type: 'PASS' }, { type: 'FAIL', runId: 'run-3', reason: 'ci' }] as PullRequestEvent[]) {
        expect(tested(result).can(changed(9))).toBe(true);
        expect(tested(result, changed(9))).toMatchObject({
          value: 'PENDING',
          context: { reason: '#9 was pushed to', testedBase: undefined },
        });
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
      expect(failing(ended(false), ended(true), ended(true)).context).toMatchObject({
        runsBehindEnded: 3,
        runsBehindFailed: 2,
      });
      expect(failing(ended(false)).context.runsBehindFailed).toBe(0);
      for (const state of ['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED'])
        expect(at(state).can(ended(true))).toBe(false);
    });

    it('start again from none with a new failure and with a push to its head, which a merge under way refuses', () => {
      const counted = [ended(true), ended(false)];
      const again = [
        { type: 'REQUEUE', reason: 'retest' },
        { type: 'START_TEST', runId: 'run-4' },
        { type: 'FAIL', runId: 'run-4', reason: 'again' },
      ] as PullRequestEvent[];
      expect(failing(...counted, ...again)).toMatchObject({
        value: 'PENDING_FAILURE',
        context: { runsBehindEnded: 0, runsBehindFailed: 0 },
      });
      expect(failing(...counted, { type: 'HEAD_PUSHED' })).toMatchObject({
        value: 'PENDING_FAILURE',
        context: { runsBehindEnded: 0, runsBehindFailed: 0 },
      });
      expect(failing(...counted, { type: 'REQUEST_MERGE', vouchedBy: 'run-9' }).can({ type: 'HEAD_PUSHED' })).toBe(
        false,
      );
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
      expect(
        at(
          'PENDING_FAILURE',
          { type: 'REQUEUE', reason: 'retry' },
          { type: 'START_TEST', runId: 'run-2' },
          { type: 'PASS' },
        ),
      ).toMatchObject({
        value: 'TESTS_PASSED',
        context: { runId: 'run-2', reason: null },
      });
    });
  });
});
