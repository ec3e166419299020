/**
 * The failure policy's facts are the PR machine's context (machines/pullRequestContext.ts), not counters the engine
 * keeps in the record beside it: anti-flake retests (RETEST counts, PASS and a push reset), the git host's refusals
 * of a merge (counted with the target where expected; a push resets), failed attempts over the PR's entries (from the
 * input; a conflict is not one), and whether speculation isolated the entry (once). `pullRequestFacts` reads them.
 */
import { describe, expect, it } from 'vitest';
import {
  pullRequestFacts,
  pullRequestMachine,
  type PullRequestContext,
  type PullRequestEvent,
} from '../../machines/index.js';
import { run } from './graph.js';

const FAIL: PullRequestEvent = { type: 'FAIL', runId: 'r1', reason: 'ci failed' };
const TEST: PullRequestEvent = { type: 'START_TEST', runId: 'r1', testedBase: [] };
const RETEST: PullRequestEvent = { type: 'RETEST', reason: 'once more' };

function context(
  events: PullRequestEvent[],
  input: { number: number; failedAttempts?: number } = { number: 1 },
): PullRequestContext {
  return run(pullRequestMachine, input, events).context as PullRequestContext;
}

describe('the failure facts of the PR machine', () => {
  it('counts anti-flake retests until a pass or a push', () => {
    const twice = [{ type: 'READY' }, TEST, FAIL, RETEST, TEST, FAIL, RETEST] as PullRequestEvent[];
    expect(context(twice).failureRetests).toBe(2);
    expect(context([...twice, TEST, { type: 'PASS' }]).failureRetests).toBe(0);
    expect(context([...twice, { type: 'HEAD_PUSHED' }]).failureRetests).toBe(0);
  });

  it('counts its failed attempts from those of its earlier entries, but not a conflict', () => {
    const failed = [{ type: 'READY' }, TEST, FAIL] as PullRequestEvent[];
    expect(context(failed).failedAttempts).toBe(1);
    expect(context(failed, { number: 1, failedAttempts: 3 }).failedAttempts).toBe(4);
    expect(
      context([{ type: 'READY' }, TEST, { ...FAIL, conflict: true } as PullRequestEvent]).failedAttempts,
    ).toBeUndefined();
    expect(context([{ type: 'READY' }, TEST, FAIL, { type: 'HEAD_PUSHED' }]).failedAttempts).toBe(1);
  });

  it('counts the refusals of its merge with the target where expected, until a push', () => {
    const refused = (counted: boolean) =>
      [
        { type: 'READY' },
        TEST,
        { type: 'PASS' },
        { type: 'REQUEST_MERGE' },
        { type: 'MERGE_REFUSED', counted },
      ] as PullRequestEvent[];
    expect(context(refused(true)).mergeRefusals).toBe(1);
    expect(context(refused(false)).mergeRefusals).toBeUndefined();
    expect(
      context([...refused(true), { type: 'REQUEST_MERGE' }, { type: 'MERGE_REFUSED', counted: true }]).mergeRefusals,
    ).toBe(2);
    expect(context([...refused(true), { type: 'HEAD_PUSHED' }]).mergeRefusals).toBe(0);
  });

  it('is isolated by speculation once an entry', () => {
    const isolated = run(pullRequestMachine, { number: 1 }, [{ type: 'READY' }, { type: 'ISOLATE' }]);
    expect((isolated.context as PullRequestContext).speculated).toBe(true);
    expect(isolated.can({ type: 'ISOLATE' })).toBe(false);
  });

  it('reads as the planner sees a PR: flat, counters 0 when absent', () => {
    const snapshot = run(pullRequestMachine, { number: 1 }, [
      { type: 'READY' },
      TEST,
      FAIL,
      RETEST,
      { type: 'JOIN_GROUP', bisectionId: 'r0', group: 'g0', part: [1] },
    ]);
    expect(pullRequestFacts(snapshot.value, snapshot.context as PullRequestContext, true)).toEqual({
      state: 'PENDING',
      runId: 'r1',
      testedBase: null,
      bisectionId: 'r0',
      group: 'g0',
      mergeRequested: false,
      runsBehindEnded: 0,
      runsBehindFailed: 0,
      failureRetests: 1,
      speculated: false,
    });
  });
});
