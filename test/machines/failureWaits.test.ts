/**
 * The failure policy's waits on the PR machine's chart: named guards for what the planner decided (the rule itself is
 * engine/planner/failurePolicy.ts), each taking the same moves as the branch beside it (behaviour unchanged).
 */
import { describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { pullRequestMachine } from '../../machines/index.js';
import { toMermaid } from '../../machines/mermaid.js';
import { at } from './pullRequestAt.js';

describe('the pull request chart shows the failure waits', () => {
  const chart = toMermaid(pullRequestMachine).split('\n');

  it('names the wait for runs behind a failing PR, the wait for a failure below, and a vouched merge', () => {
    expect(chart).toContain(
      '  PENDING_FAILURE --> PENDING_FAILURE : RUN_BEHIND_ENDED [awaitsRunsBehind] / countRunBehind',
    );
    expect(chart).toContain(
      '  TESTING --> PENDING : REQUEUE [awaitsFailureBelow] / recordReason, forgetTestedBase, reportRequeued',
    );
    expect(
      chart.filter((line) => line.includes(': MERGE [vouchedByRunBehind]')).map((line) => line.split(' ')[2]),
    ).toEqual(['PENDING', 'TESTING', 'PENDING_FAILURE']);
  });

  it('takes the named branch when the event says so, with the same result as the other', () => {
    const failing = at('PENDING_FAILURE');
    const [awaited, awaitedActions] = transition(pullRequestMachine, failing, {
      type: 'RUN_BEHIND_ENDED',
      failed: true,
      awaitsMore: true,
    });
    const [last, lastActions] = transition(pullRequestMachine, failing, { type: 'RUN_BEHIND_ENDED', failed: true });
    expect(awaited.context).toEqual(last.context);
    expect(awaited.value).toBe('PENDING_FAILURE');
    expect(awaitedActions.map((action) => action.type)).toEqual(lastActions.map((action) => action.type));
    const testing = at('TESTING');
    const [requeued] = transition(pullRequestMachine, testing, { type: 'REQUEUE', reason: 'r', failedFirst: 7 });
    const [plain] = transition(pullRequestMachine, testing, { type: 'REQUEUE', reason: 'r' });
    expect(requeued.value).toBe('PENDING');
    expect(requeued.context).toEqual(plain.context);
  });
});
