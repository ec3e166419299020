/** GitHub mode end to end against the stand-in: what goes wrong (see mergeQueue.test.ts). */
import { describe, expect, test } from 'vitest';
import { ADD_A, closeQueuesAfterEach, ONE_AND_TWO, opened, submitted } from './fixture.js';
import { example } from './webhookExamples.js';

closeQueuesAfterEach();

describe('GitHub mode: what goes wrong', () => {
  test('a conflict with the PR ahead fails the later PR; the first merges', async () => {
    const q = await submitted({ concurrency: 2 }, ONE_AND_TWO);
    expect(q.pr(2)).toMatchObject({ state: 'FAILED' });
    expect(q.pr(2).reason).toContain('#2 conflicts with main + #1');
    const run = q.runOf(1);
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.files('main')?.['shared.txt']).toBe('ONE\n');
  });

  test('a push to a PR while it is tested: it is checked again in its place and the old results do not count', async () => {
    const q = await submitted({}, { ...ADD_A, 2: ['Add b.txt', { 'b.txt': 'b\n' }] });
    const first = q.runOf(1);
    const pushed = q.github.pushToPull(1, { 'a.txt': 'a2\n' });
    await q.deliver('pull_request', q.pullRequestPayload('synchronize', 1));
    expect(q.engine.getTestRun(q.key, first.id).run.status).toBe('cancelled');
    expect(q.pr(1)).toMatchObject({ state: 'TESTING', sha: pushed.sha });
    expect(q.engine.getQueue(q.key).queue.runtime.lineup).toEqual([1, 2]);
    expect(q.inputs('prPushed')).toHaveLength(1);
    expect(q.inputs('submitted')).toHaveLength(2);
    await q.deliver('check_suite', q.checkSuitePayload(first.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('TESTING');
    const second = q.runOf(1);
    await q.deliver('check_suite', q.checkSuitePayload(second.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.files('main')?.['a.txt']).toBe('a2\n');
    expect(q.pr(2).state).toBe('TESTING');
  });

  test('a draft is not ready; marked ready for review, it is checked again and tested', async () => {
    const q = await opened();
    q.github.pulls.get(1)!.draft = true;
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.pr(1)).toMatchObject({ state: 'NOT_READY', readiness: { gitHubMergeability: 'not_mergeable' } });
    q.github.pulls.get(1)!.draft = false;
    await q.deliver('pull_request', q.pullRequestPayload('ready_for_review', 1));
    expect(q.pr(1).state).toBe('TESTING');
  });

  test('required approving reviews: a PR lacking them waits as not ready, saying so; an approval lets it in', async () => {
    const q = await opened();
    q.github.reviews.protection.set('main', 1);
    q.github.reviews.rulesets.set('main', 2);
    q.github.reviews.review(1, 'octocat', 'APPROVED');
    q.github.reviews.review(1, 'hubot', 'APPROVED');
    q.github.reviews.review(1, 'hubot', 'CHANGES_REQUESTED');
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.pr(1)).toMatchObject({ state: 'NOT_READY', readiness: { gitHubMergeability: 'not_mergeable' } });
    const timeline = q.engine.getSubmittedPullRequest(q.key, 1, true).timeline!;
    expect(timeline.at(-1)?.message).toContain('it has 1 of the 2 approving review(s) main requires');
    q.github.reviews.review(1, 'hubot', 'APPROVED');
    const review = example('pull_request_review', 'submitted');
    Object.assign(review.pull_request, { number: 1, base: { ...review.pull_request.base, ref: 'main' } });
    await q.deliver('pull_request_review', review);
    expect(q.pr(1).state).toBe('TESTING');
  });

  test('a closed PR leaves the queue', async () => {
    const q = await submitted();
    const run = q.runOf(1);
    q.github.pulls.get(1)!.state = 'closed';
    await q.deliver('pull_request', q.pullRequestPayload('closed', 1));
    expect(q.pr(1).state).toBe('CANCELLED');
    expect(q.github.head(run.testBranch)).toBeUndefined();
  });

  test('GitHub closing a PR that Greenline is merging changes nothing: the merge goes on', async () => {
    const q = await submitted();
    const run = q.runOf(1);
    q.github.fail({
      method: 'PATCH',
      path: /\/git\/refs\/heads%2Fmain$/,
      status: 502,
      body: { message: 'Server Error' },
    });
    await q.send('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1)).toMatchObject({ state: 'TESTS_PASSED', mergeRequested: true });
    const closed = q.pullRequestPayload('closed', 1);
    closed.pull_request.merged = true;
    expect((await q.deliver('pull_request', closed)).statusCode).toBe(202);
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
  });

  test('a push to main before the merge: nothing untested merges; the PR is tested again on the new head', async () => {
    const q = await submitted();
    const first = q.runOf(1);
    const pushed = q.github.push('main', { 'b.txt': 'b\n' });
    await q.deliver('check_suite', q.checkSuitePayload(first.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('TESTING');
    const second = q.runOf(1);
    expect(second.baseSha).toBe(pushed.sha);
    await q.deliver('check_suite', q.checkSuitePayload(second.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(second.testBranchSha);
  });

  test('a push to main while a run tests on the old head: the push webhook sends it to be tested on the new head', async () => {
    const q = await submitted();
    const first = q.runOf(1);
    const pushed = q.github.push('main', { 'b.txt': 'b\n' });
    const push = example('push');
    Object.assign(push, { ref: 'refs/heads/main', before: first.baseSha, after: pushed.sha, deleted: false });
    expect((await q.deliver('push', push)).statusCode).toBe(202);
    const second = q.runOf(1);
    expect(second.id).not.toBe(first.id);
    expect(second.baseSha).toBe(pushed.sha);
    expect(q.github.head(first.testBranch)).toBeUndefined();
    // Greenline's own merge is a push too: its webhook changes nothing.
    await q.deliver('check_suite', q.checkSuitePayload(second.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    Object.assign(push, { before: pushed.sha, after: second.testBranchSha });
    await q.deliver('push', push);
    expect(q.inputs('targetPushed')).toHaveLength(2);
    expect(q.github.head('main')).toBe(second.testBranchSha);
    expect(q.engine.getQueue(q.key).queue.runtime.targetHead).toBe(second.testBranchSha);
  });

  test('a 403 secondary rate limit with retry-after is waited out and the request sent again', async () => {
    const q = await opened();
    q.github.fail({
      method: 'POST',
      path: /\/merges$/,
      status: 403,
      headers: { 'retry-after': '30' },
      body: {
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentation_url: 'https://docs.github.com/rest',
      },
    });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.github.count('repos/merge', 403)).toBe(1);
    expect(q.github.count('repos/merge', 201)).toBe(1);
    expect(q.pr(1).state).toBe('TESTING');
  });

  test('GitHub down for an hour: effects wait in the outbox and nothing is lost', async () => {
    const q = await submitted();
    const run = q.runOf(1);
    const backAt = q.clock.now() + 60 * 60_000;
    q.github.outage = () => q.clock.now() < backAt;
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.clock.now()).toBeGreaterThanOrEqual(backAt);
    // Effects run in order: the test branch's deletion waits first, then the merge.
    expect(q.github.exchanges.filter((exchange) => exchange.status === 503).length).toBeGreaterThan(10);
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
  });

  test('an unknown installation: effects wait until the App is installed', async () => {
    const q = await opened();
    q.github.installed = false;
    q.engine.submitPullRequest(q.key, 1);
    await q.engine.settle();
    q.clock.advanceBy(60_000);
    await q.engine.settle();
    expect(q.errors.some((error) => error.includes('not installed on Codertocat/Hello-World'))).toBe(true);
    expect(q.pr(1).state).toBe('NOT_READY');
    q.github.installed = true;
    const installed = await q.deliver('installation', example('installation', 'created'));
    expect(installed.statusCode).toBe(202);
    expect(q.pr(1).state).toBe('TESTING');
  });

  test('a restart in the middle: the run passes after the service starts again, and merges', async () => {
    const q = await submitted();
    const run = q.runOf(1);
    await q.halt();
    await q.boot();
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
  });
});
