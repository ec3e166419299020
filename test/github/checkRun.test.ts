/**
 * The `greenline` check run on a PR's head, read at each stage of the PR's life as a developer sees it on GitHub:
 * waiting (its place, what is ahead, when it should merge), testing with two PRs ahead (on top of what, the run's
 * checks with links), passed, merged, and removed with the reason and what to do; its Re-run button resubmits the PR.
 * The commit status `greenline` is kept beside it.
 */
import { describe, expect, test } from 'vitest';
import { closeQueuesAfterEach, opened } from './fixture.js';
import { PUBLIC_URL, type GitHubQueue } from './harness.js';
import { example } from './webhookExamples.js';

closeQueuesAfterEach();

const MINUTE = 60_000;

async function ciStatus(q: GitHubQueue, sha: string, state: string, url: string): Promise<void> {
  const status = example('status');
  Object.assign(status, { sha, context: 'ci', state, target_url: url, description: `ci ${state}` });
  await q.deliver('status', status);
}

function checkRun(q: GitHubQueue, number: number) {
  const run = q.github.checks.latest(q.github.pulls.get(number)!.head);
  expect(run, `a greenline check run on #${number}'s head`).toBeDefined();
  return run!;
}

describe('GitHub mode: the greenline check run', () => {
  test('tells where the PR stands at each stage, and why it left', async () => {
    const pulls = {
      9: ['Warm up', { 'w.txt': 'w\n' }],
      1: ['One', { '1.txt': '1\n' }],
      2: ['Two', { '2.txt': '2\n' }],
      3: ['Three', { '3.txt': '3\n' }],
      4: ['Four', { '4.txt': '4\n' }],
    } as const;
    const q = await opened(
      { concurrency: 3 },
      Object.fromEntries(Object.entries(pulls).map(([n, [title, files]]) => [n, [title, { ...files }]])),
    );
    q.github.protection.set('main', ['ci']);
    // History: one PR tested for 20 minutes and merged, so the queue has seen a CI duration.
    await q.deliver('issue_comment', q.commentPayload(9, '/greenline merge'));
    q.clock.advanceBy(20 * MINUTE);
    await ciStatus(q, q.runOf(9).testBranchSha, 'success', 'https://ci.example.com/9');
    expect(q.pr(9).state).toBe('MERGED');

    for (const number of [1, 2, 3, 4]) await q.deliver('issue_comment', q.commentPayload(number, '/greenline merge'));
    await q.publishCheckRuns();

    // Waiting: fourth, three ahead, an estimate, the dashboard's page.
    const waiting = checkRun(q, 4);
    expect(waiting.status).toBe('queued');
    expect(waiting.title).toMatch(/^Waiting — 4th in the queue, merge expected about \d\d:\d\d UTC$/);
    expect(waiting.summary).toContain('**Position**: 4th of 4 ready — 3 ahead: #1, #2, #3');
    expect(waiting.summary).toMatch(
      /\*\*Estimated merge\*\*: about \d\d:\d\d UTC \(in \d+ min\); 9 times in 10 by \d\d:\d\d UTC/,
    );
    const queueId = q.engine.getQueue(q.key).queue.id;
    expect(waiting.summary).toContain(`(${PUBLIC_URL}/queues/${encodeURIComponent(queueId)}/prs/4)`);

    // Testing with two PRs ahead: on top of main and #1 + #2, its run's checks with their links.
    const run3 = q.runOf(3);
    await ciStatus(q, run3.testBranchSha, 'pending', 'https://ci.example.com/3');
    await q.publishCheckRuns();
    const testing = checkRun(q, 3);
    expect(testing.status).toBe('in_progress');
    expect(testing.title).toMatch(/^Testing — 3rd in the queue/);
    expect(testing.summary).toContain('2 ahead: #1, #2');
    expect(testing.summary).toContain(`on top of \`main\` at \`${run3.baseSha.slice(0, 12)}\` + #1 + #2`);
    expect(testing.summary).toContain(`**Checks of run \`${run3.id}\`** (required: \`ci\`)`);
    expect(testing.summary).toContain('- `ci`: pending (ci pending) — [details](https://ci.example.com/3)');
    // Estimates ahead come first: #1 is expected no later than #3.
    const estimates = q.engine.estimates(q.key);
    expect(estimates.get(1)!.at).toBeLessThanOrEqual(estimates.get(3)!.at);
    expect(estimates.get(3)!.p90).toBeGreaterThanOrEqual(estimates.get(3)!.at);

    // Passed, waiting for the PRs ahead to merge.
    await ciStatus(q, run3.testBranchSha, 'success', 'https://ci.example.com/3');
    await q.publishCheckRuns();
    expect(q.pr(3).state).toBe('TESTS_PASSED');
    expect(checkRun(q, 3).title).toMatch(/^Tests passed — 3rd in the queue/);

    // Merged.
    await ciStatus(q, q.runOf(1).testBranchSha, 'success', 'https://ci.example.com/1');
    await ciStatus(q, q.runOf(2).testBranchSha, 'success', 'https://ci.example.com/2');
    await q.publishCheckRuns();
    expect(q.pr(3).state).toBe('MERGED');
    const merged = checkRun(q, 3);
    expect(merged).toMatchObject({ status: 'completed', conclusion: 'success', title: 'Merged into main' });
    expect(merged.history.map((entry) => entry.status)).toEqual([
      'in_progress',
      'in_progress',
      'in_progress',
      'completed',
    ]);

    // Removed, with the failing check, its link, and what to do.
    await ciStatus(q, q.runOf(4).testBranchSha, 'failure', 'https://ci.example.com/4');
    await q.publishCheckRuns();
    expect(q.pr(4).state).toBe('FAILED');
    const removed = checkRun(q, 4);
    expect(removed).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      title: 'Removed from the queue: check ci failed',
    });
    expect(removed.summary).toContain('- failing check `ci`: ci failure — [details](https://ci.example.com/4)');
    expect(removed.summary).toContain('**What to do**: Fix what the failing check reports');
    // The commit status is still kept for clients that read statuses.
    expect(
      q.github.statuses.filter((status) => status.sha === q.github.pulls.get(4)!.head).map((status) => status.state),
    ).toEqual(['pending', 'failure']);

    // Re-run on the check run: the PR is submitted again, and gets a new check run.
    const rerun = example('check_run', 'rerequested');
    const head = q.github.pulls.get(4)!.head;
    const repo = { id: 186853002, url: `${q.github.url}/repos/Codertocat/Hello-World`, name: 'Hello-World' };
    const minimal = {
      id: 4,
      number: 4,
      url: `${repo.url}/pulls/4`,
      head: { ref: 'feature-4', sha: head, repo },
      base: { ref: 'main', sha: q.github.head('main')!, repo },
    };
    rerun.check_run = { ...rerun.check_run, name: 'greenline', head_sha: head, pull_requests: [minimal] };
    rerun.repository = q.commentPayload(4, '').repository;
    await q.deliver('check_run', rerun);
    expect(q.pr(4).state).toBe('TESTING');
    await q.publishCheckRuns();
    expect(checkRun(q, 4)).toMatchObject({ status: 'in_progress' });
    expect(checkRun(q, 4).id).not.toBe(removed.id);
  });

  test('a busy queue is written at most once per throttle period per PR, and not at all when nothing changed', async () => {
    const q = await opened({}, { 1: ['One', { '1.txt': '1\n' }] });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    await q.publishCheckRuns();
    const writes = () => q.github.count('checks/create') + q.github.count('checks/update');
    const after = writes();
    expect(after).toBe(1);
    // Many inputs within one period: one write at most.
    for (let i = 0; i < 5; i++) q.engine.restartTestsOnPullRequest(q.key, 1);
    await q.settle();
    expect(writes()).toBe(after);
    await q.publishCheckRuns();
    expect(writes()).toBeLessThanOrEqual(after + 1);
    await q.publishCheckRuns();
    expect(writes()).toBeLessThanOrEqual(after + 1);
  });
});
