/**
 * The PR machine's moves return what to write (issue 31): called with only what a move may read (MoveScope: the
 * queue and the views of its PRs and runs, no way to write), a report returns its timeline line, comment and status
 * check in the order it tells them, and the move that cancels a PR's run returns the run's CANCEL and the REQUEUE of
 * each other PR it was testing, for QueueTx.write to write. (Before, a move wrote through the transaction and sent
 * the events itself.)
 */
import { expect, test } from 'vitest';
import type { PullRequestRecord } from '../../engine/model/pullRequests.js';
import { PR_MOVES } from '../../engine/transaction/prMoves.js';
import type { MoveScope } from '../../engine/transaction/writes.js';

const repo = { host: 'github.com', owner: 'acme', name: 'app' };

/** What a move reads: a queue that comments and sets status checks, PRs 7 and 8 testing in run r1. */
function scope(states: Record<number, string>): MoveScope {
  const prs = new Map(
    Object.entries(states).map(([number, state]) => [
      Number(number),
      { number: Number(number), state, runId: 'r1', sha: `sha${number}`, reason: 'its tests failed' },
    ]),
  );
  const pr = (number: number) => prs.get(number) as unknown as PullRequestRecord;
  return {
    queue: { repo, branch: 'main', settings: { commentsEnabled: true, statusCheckEnabled: true } },
    prs: { get: pr, require: pr },
    runs: { inProgress: () => true, require: () => ({ id: 'r1', prs: [7, 8], basePrs: [] }) },
  } as unknown as MoveScope;
}

test('a report returns its timeline line, comment and status check, in that order, and writes none itself', () => {
  const writes = PR_MOVES.reportKicked(scope({ 7: 'FAILED' }), 7, { type: 'KICK', reason: 'its tests failed' });
  expect(writes.map((write) => (write.to === 'effect' ? write.effect.kind : write.to))).toEqual([
    'timeline',
    'comment',
    'statusCheck',
  ]);
  expect(writes[0]).toMatchObject({ to: 'timeline', number: 7, extra: { runId: 'r1' } });
});

test("cancelling a PR under test returns its run's CANCEL, then the other PRs of the run requeued", () => {
  const writes = PR_MOVES.cancelItsRun(scope({ 7: 'CANCELLED', 8: 'TESTING' }), 7, { type: 'CANCEL', reason: 'x' });
  expect(writes).toEqual([
    { to: 'run', runId: 'r1', event: { type: 'CANCEL', reason: '#7 was cancelled' } },
    { to: 'pr', number: 8, event: { type: 'REQUEUE', reason: '#7 was cancelled' } },
  ]);
});
