/**
 * The `greenline` check run goes through the engine's outbox (engine/providers/github/checkRuns.ts, checkRunWrites.ts):
 * a crash between a PR's change and the write of its check run loses nothing, and a write GitHub made but whose
 * answer was lost, tried again after a restart, makes no second check run (it is found by its external id).
 */
import { describe, expect, test } from 'vitest';
import { closeQueuesAfterEach, opened } from './fixture.js';
import type { GitHubQueue } from './harness.js';

closeQueuesAfterEach();

/** The `greenline` check runs on the PR's head. */
function checkRunsOf(q: GitHubQueue, number: number) {
  const head = q.github.pulls.get(number)!.head;
  return q.github.checks.runs.filter((run) => run.headSha === head && run.name === 'greenline');
}

describe('GitHub mode: the check run through the outbox', () => {
  test('a crash after the PR is queued and before its check run is written: it is written once after the restart', async () => {
    const q = await opened();
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.pr(1).state).toBe('TESTING');
    // The throttle period has not passed: nothing is written yet when the process dies.
    expect(checkRunsOf(q, 1)).toEqual([]);
    await q.halt();
    await q.boot();
    await q.publishCheckRuns();
    await q.drive();
    const runs = checkRunsOf(q, 1);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'in_progress', externalId: q.pr(1).id });
    expect(runs[0]!.title).toMatch(/^Testing — 1st in the queue/);

    // It moves on as before: merged, one check run still, completed.
    await q.deliver('check_suite', q.checkSuitePayload(q.runOf(1).testBranchSha, 'success'));
    await q.publishCheckRuns();
    expect(q.pr(1).state).toBe('MERGED');
    expect(checkRunsOf(q, 1)).toHaveLength(1);
    expect(checkRunsOf(q, 1)[0]).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      title: 'Merged into main',
    });
  });

  test('a crash after the PR left the queue and before its last write: the restart writes why it left', async () => {
    const q = await opened();
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    await q.publishCheckRuns();
    expect(checkRunsOf(q, 1)).toHaveLength(1);
    await q.deliver('check_suite', q.checkSuitePayload(q.runOf(1).testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    await q.halt();
    await q.boot();
    await q.publishCheckRuns();
    await q.drive();
    expect(checkRunsOf(q, 1)).toHaveLength(1);
    expect(checkRunsOf(q, 1)[0]).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      title: 'Merged into main',
    });
  });

  test('GitHub made the check run but its answer was lost, then a crash: the retry after the restart updates it, no second one', async () => {
    const q = await opened();
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    q.github.faults.push({ method: 'POST', path: /\/check-runs$/, status: 502, times: 1, afterActing: true });
    await q.publishCheckRuns();
    expect(checkRunsOf(q, 1)).toHaveLength(1);
    // The effect failed (502) and waits in the outbox for its retry when the process dies.
    expect(q.store.read((tx) => tx.count('outbox'))).toBeGreaterThan(0);
    expect(q.errors.join('\n')).toMatch(/effect checkRun .* failed/);
    await q.halt();
    await q.boot();
    await q.drive();
    await q.publishCheckRuns();
    await q.drive();
    expect(checkRunsOf(q, 1)).toHaveLength(1);
    expect(q.github.count('checks/create')).toBe(1);
    expect(q.github.count('checks/update')).toBeGreaterThan(0);
    expect(checkRunsOf(q, 1)[0]).toMatchObject({ status: 'in_progress', externalId: q.pr(1).id });
  });
});
