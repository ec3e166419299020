/**
 * GitHub mode end to end against the stand-in: webhooks signed with the secret, every request to "GitHub" checked
 * against GitHub's OpenAPI description (a request GitHub would reject is a violation and fails the test).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { COMMENT_MARKER } from '../../engine/providers/github/githubHost.js';
import { GitHubQueue } from './harness.js';
import { example } from './webhookExamples.js';

let queue: GitHubQueue | undefined;
afterEach(async () => {
  const q = queue;
  queue = undefined;
  if (q === undefined) return;
  await q.close();
  expect(q.github.violations).toEqual([]);
});

async function started(): Promise<GitHubQueue> {
  const q = (queue = await GitHubQueue.create());
  q.github.push('main', { 'README.md': 'hello\n', 'shared.txt': 'one\ntwo\nthree\n' }, 'Initial');
  return q;
}

describe('GitHub mode', () => {
  test('a comment submits a PR, a check suite passes its run, and main is fast-forwarded to the tested commit', async () => {
    const q = await started();
    q.github.protection.set('main', ['ci']);
    q.github.rulesets.set('main', ['lint']);
    q.createQueue();
    const pull = q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });

    const answer = await q.deliver('issue_comment', q.commentPayload(1, 'Looks good.\n/greenline merge --priority high'));
    expect(answer.statusCode).toBe(202);
    expect(q.pr(1)).toMatchObject({ state: 'TESTING', title: 'Add a.txt', author: 'Codertocat', sha: pull.head, priorityName: 'high' });
    const run = q.runOf(1);
    expect(run).toMatchObject({ requiredStatuses: ['ci', 'lint'], requiredStatusesSource: 'repo_provider_branch_protection' });
    expect(q.github.head(run.testBranch)).toBe(run.testBranchSha);
    expect(q.github.files(run.testBranch)).toEqual({ ...q.github.files('main'), 'a.txt': 'a\n' });
    const built = q.github.git.commits.get(run.testBranchSha)!;
    expect(built.parents).toEqual([run.baseSha, pull.head]);
    expect(built.message).toBe('Merge pull request #1 from refs/pull/1/head\n\nAdd a.txt');

    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('TESTING');
    const status = example('status');
    Object.assign(status, { sha: run.testBranchSha, context: 'lint', state: 'success' });
    await q.deliver('status', status);
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
    expect(q.github.pulls.get(1)).toMatchObject({ state: 'closed', merged: true });
    expect(q.github.head(run.testBranch)).toBeUndefined();
    const comments = q.github.comments.filter((comment) => comment.issue === 1);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body.startsWith(COMMENT_MARKER)).toBe(true);
    const statuses = q.github.statuses.filter((status) => status.sha === pull.head && status.context === 'greenline');
    expect(statuses.map((status) => status.state)).toEqual(['pending', 'success']);
    expect(q.errors.filter((error) => !error.includes('mergeability'))).toEqual([]);
    expect(q.github.exchanges.length).toBeGreaterThan(10);
  });
});

describe('GitHub mode: webhooks', () => {
  test('a bad or missing signature is a 401 and changes nothing; a redelivery is applied once; unknown events are acknowledged', async () => {
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    const forged = await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'), 'forged', 'not-the-secret');
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toMatchObject({ code: 'unauthorized' });
    const unsigned = await q.app.inject({
      method: 'POST',
      url: '/github/webhooks',
      headers: { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': 'unsigned' },
      payload: '{}',
    });
    expect(unsigned.statusCode).toBe(401);
    expect(() => q.pr(1)).toThrow(/never submitted/);

    const payload = q.commentPayload(1, '/greenline merge');
    expect((await q.deliver('issue_comment', payload, 'same-delivery')).statusCode).toBe(202);
    q.engine.cancelPullRequest({ org: 'acme', repo: { host: 'github.com', owner: 'Codertocat', name: 'Hello-World' }, branch: 'main' }, 1);
    const again = await q.deliver('issue_comment', payload, 'same-delivery');
    expect(again.statusCode).toBe(200);
    expect(q.inputs('submitted')).toHaveLength(1);
    expect(q.pr(1).state).toBe('CANCELLED');

    const star = await q.deliver('star', { action: 'created', starred_at: null, repository: payload.repository, sender: payload.sender });
    expect(star.statusCode).toBe(202);
    // A week later, a delivery prunes the ids past their retention (GitHub redelivers within 3 days).
    expect(q.store.read((tx) => tx.get('webhookDeliveries', ['same-delivery']))).toBeDefined();
    q.clock.advanceBy(8 * 24 * 60 * 60_000);
    await q.deliver('star', { action: 'created', starred_at: null, repository: payload.repository, sender: payload.sender });
    expect(q.store.read((tx) => tx.get('webhookDeliveries', ['same-delivery']))).toBeUndefined();
  });

  test('commands need write access and commandsEnabled; a bad command is answered', async () => {
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    q.github.permissions.set('visitor', 'read');
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge', 'visitor'));
    expect(() => q.pr(1)).toThrow(/never submitted/);
    expect(q.github.comments.at(-1)?.body).toContain('only people with write access');
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge --priority 999'));
    expect(q.github.comments.at(-1)?.body).toContain('--priority takes 0 to 255');
    expect(q.github.comments.filter((comment) => comment.issue === 1)).toHaveLength(1);
    q.engine.updateQueue({ org: 'acme', repo: { host: 'github.com', owner: 'Codertocat', name: 'Hello-World' }, branch: 'main' }, { commandsEnabled: false });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(() => q.pr(1)).toThrow(/never submitted/);
    expect(q.github.comments.at(-1)?.body).toContain('no merge queue with commands enabled');
  });

  test('labels: the enqueueing label submits, removing it cancels (labelCommandsEnabled)', async () => {
    const q = await started();
    q.createQueue({ labelCommandsEnabled: true, enqueueingLabel: 'merge-me' });
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    const labeled = q.pullRequestPayload('labeled', 1);
    labeled.label = { ...labeled.label, name: 'merge-me' };
    await q.deliver('pull_request', labeled);
    expect(q.pr(1).state).toBe('TESTING');
    const unlabeled = q.pullRequestPayload('unlabeled', 1);
    unlabeled.label = { ...unlabeled.label, name: 'merge-me' };
    await q.deliver('pull_request', unlabeled);
    expect(q.pr(1).state).toBe('CANCELLED');
  });
});

describe('GitHub mode: state labels', () => {
  test('stateLabelsEnabled keeps one label naming the PR\'s queue state, through to merged', async () => {
    const q = await started();
    q.createQueue({ stateLabelsEnabled: true });
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    q.github.labels.byIssue.set(1, ['bug', 'greenline: failed']);
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.github.labels.of(1)).toEqual(['bug', 'greenline: testing']);
    await q.deliver('check_suite', q.checkSuitePayload(q.runOf(1).testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.labels.of(1)).toEqual(['bug', 'greenline: merged']);
    const effects = q.github.count('issues/add-labels');
    // Repeated (the outbox retries an effect whose result it had not stored): nothing changes.
    await q.host.setStateLabel(q.key.repo, 1, 'MERGED');
    expect(q.github.count('issues/add-labels')).toBe(effects);
    expect(q.github.labels.of(1)).toEqual(['bug', 'greenline: merged']);
  });

  test('without stateLabelsEnabled no label is touched', async () => {
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.github.count('issues/list-labels-on-issue')).toBe(0);
  });
});

describe('GitHub mode: merge methods', () => {
  test('squash: one commit per PR on the test branch; main fast-forwards to it and the PR is closed', async () => {
    const q = await started();
    q.createQueue({ mergeMethod: 'squash' });
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    const built = q.github.git.commits.get(run.testBranchSha)!;
    expect(built.parents).toEqual([run.baseSha]);
    expect(built.message).toBe('Add a.txt (#1)');
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
    expect(q.github.pulls.get(1)).toMatchObject({ state: 'closed' });
  });

  test('rebase: each PR\'s commits replayed in order on the test branch; main fast-forwards PR by PR and the PRs are closed', async () => {
    const q = await started();
    // Optimistic merge: the run of #2 (on top of #1) passing first vouches for #1, which merges from that branch.
    q.createQueue({ mergeMethod: 'rebase', concurrency: 2, canOptimisticallyMerge: true });
    const first = q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    q.github.pushToPull(1, { 'a.txt': 'a2\n' });
    q.github.openPull(2, 'Edit shared.txt', { 'shared.txt': 'one\ntwo\nthree\nfour\n' });
    const base = q.github.head('main')!;
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    await q.deliver('issue_comment', q.commentPayload(2, '/greenline merge'));
    const [run1, run2] = [q.runOf(1), q.runOf(2)];
    const commits = (sha: string, until: string) => {
      const chain = [];
      for (let at = sha; at !== until; at = q.github.git.commits.get(at)!.parents[0]!) chain.unshift(q.github.git.commits.get(at)!);
      return chain;
    };
    expect(commits(run1.testBranchSha, base).map((commit) => [commit.message, commit.parents.length, commit.author])).toEqual([
      ['Add a.txt', 1, 'Codertocat'],
      ['update #1', 1, 'Codertocat'],
    ]);
    expect(commits(run1.testBranchSha, base)[0]!.sha).not.toBe(first.head);
    expect(commits(run2.testBranchSha, base).map((commit) => commit.message)).toEqual(['Add a.txt', 'update #1', 'Edit shared.txt']);
    expect(q.github.files(run2.testBranch)).toEqual({ ...q.github.files('main'), 'a.txt': 'a2\n', 'shared.txt': 'one\ntwo\nthree\nfour\n' });
    await q.deliver('check_suite', q.checkSuitePayload(run2.testBranchSha, 'success'));
    expect([q.pr(1).state, q.pr(2).state]).toEqual(['MERGED', 'MERGED']);
    expect(q.pr(1).mergedSha).toBe(commits(run2.testBranchSha, base)[1]!.sha);
    expect(q.github.head('main')).toBe(run2.testBranchSha);
    expect([q.github.pulls.get(1)!.state, q.github.pulls.get(2)!.state]).toEqual(['closed', 'closed']);
  });

  test('rebase: a PR whose replayed commit conflicts fails, naming the PR', async () => {
    const q = await started();
    q.createQueue({ mergeMethod: 'rebase', concurrency: 2 });
    q.github.openPull(1, 'One', { 'shared.txt': 'ONE\n' });
    q.github.openPull(2, 'Two', { 'shared.txt': 'TWO\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    await q.deliver('issue_comment', q.commentPayload(2, '/greenline merge'));
    expect(q.pr(2).state).toBe('FAILED');
    expect(q.pr(2).reason).toContain('#2 conflicts with main + #1');
  });

  test('protection that forbids updating main directly: the tested PR merges through GitHub\'s merge API', async () => {
    const q = await started();
    q.createQueue();
    q.github.pullRequestsOnly.add('main');
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.count('git/update-ref', 422)).toBe(1);
    expect(q.github.count('pulls/merge', 200)).toBe(1);
    expect(q.github.pulls.get(1)).toMatchObject({ state: 'closed', merged: true });
    expect(q.github.files('main')).toEqual(q.github.git.commits.get(run.testBranchSha)!.files);
    expect(q.pr(1).mergedSha).toBe(q.github.head('main'));
  });

  test('a merge GitHub refuses every time: the PR is tested again a bounded number of times, then leaves saying why', async () => {
    const q = await started();
    q.createQueue();
    q.github.pullRequestsOnly.add('main');
    q.github.fail({ method: 'PUT', path: /\/pulls\/1\/merge$/, status: 405, times: 100, body: { message: 'At least 1 approving review is required', documentation_url: 'https://docs.github.com/rest' } });
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    for (let round = 0; round < 10 && q.pr(1).state === 'TESTING'; round++) {
      await q.deliver('check_suite', q.checkSuitePayload(q.runOf(1).testBranchSha, 'success'));
    }
    expect(q.pr(1).state).toBe('CANCELLED');
    expect(q.pr(1).reason).toContain('refused to merge it 3 times');
    expect(q.pr(1).reason).toContain('At least 1 approving review is required');
    expect(q.github.count('pulls/merge', 405)).toBe(3);
    expect(q.github.comments.find((comment) => comment.issue === 1)?.body).toContain('refused to merge it 3 times');
  });

  test('createPrsForTestingBranches: a draft PR of each test branch, closed when the branch is deleted', async () => {
    const q = await started();
    q.createQueue({ createPrsForTestingBranches: true });
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    const draft = [...q.github.pulls.values()].find((pull) => pull.headRef === run.testBranch);
    expect(draft).toMatchObject({ draft: true, state: 'open', base: 'main', head: run.testBranchSha, title: `Greenline test run ${run.id}` });
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(draft!.state).toBe('closed');
    expect([...q.github.pulls.values()].filter((pull) => pull.author === 'greenline[bot]')).toHaveLength(1);
  });

  test('a direct merge (directMergeMode always) goes through GitHub\'s merge API, pinned to the checked head', async () => {
    const q = await started();
    q.createQueue({ directMergeMode: 'always' });
    const pull = q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    const before = q.github.head('main');
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.count('pulls/merge', 200)).toBe(1);
    expect(q.github.pulls.get(1)).toMatchObject({ state: 'closed', merged: true });
    expect(q.github.git.commits.get(q.github.head('main')!)!.parents).toEqual([before, pull.head]);
  });
});

describe('GitHub mode: what goes wrong', () => {
  test('a conflict with the PR ahead fails the later PR; the first merges', async () => {
    const q = await started();
    q.createQueue({ concurrency: 2 });
    q.github.openPull(1, 'One', { 'shared.txt': 'ONE\n' });
    q.github.openPull(2, 'Two', { 'shared.txt': 'TWO\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    await q.deliver('issue_comment', q.commentPayload(2, '/greenline merge'));
    expect(q.pr(2)).toMatchObject({ state: 'FAILED' });
    expect(q.pr(2).reason).toContain('#2 conflicts with main + #1');
    const run = q.runOf(1);
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.files('main')?.['shared.txt']).toBe('ONE\n');
  });

  test('a push to a PR while it is tested: it is checked again in its place and the old results do not count', async () => {
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    q.github.openPull(2, 'Add b.txt', { 'b.txt': 'b\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    await q.deliver('issue_comment', q.commentPayload(2, '/greenline merge'));
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
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' }).draft = true;
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.pr(1)).toMatchObject({ state: 'NOT_READY', readiness: { gitHubMergeability: 'not_mergeable' } });
    q.github.pulls.get(1)!.draft = false;
    await q.deliver('pull_request', q.pullRequestPayload('ready_for_review', 1));
    expect(q.pr(1).state).toBe('TESTING');
  });

  test('required approving reviews: a PR lacking them waits as not ready, saying so; an approval lets it in', async () => {
    const q = await started();
    q.github.reviews.protection.set('main', 1);
    q.github.reviews.rulesets.set('main', 2);
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
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
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    q.github.pulls.get(1)!.state = 'closed';
    await q.deliver('pull_request', q.pullRequestPayload('closed', 1));
    expect(q.pr(1).state).toBe('CANCELLED');
    expect(q.github.head(run.testBranch)).toBeUndefined();
  });

  test('GitHub closing a PR that Greenline is merging changes nothing: the merge goes on', async () => {
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    q.github.fail({ method: 'PATCH', path: /\/git\/refs\/heads%2Fmain$/, status: 502, body: { message: 'Server Error' } });
    await q.send('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1)).toMatchObject({ state: 'TESTS_PASSED', mergeRequested: true });
    const closed = q.pullRequestPayload('closed', 1);
    closed.pull_request.merged = true;
    expect((await q.deliver('pull_request', closed)).statusCode).toBe(202);
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
  });

  test('a push to main before the merge: nothing untested merges; the PR is tested again on the new head', async () => {
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
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
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
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
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    q.github.fail({
      method: 'POST',
      path: /\/merges$/,
      status: 403,
      headers: { 'retry-after': '30' },
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest' },
    });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.github.count('repos/merge', 403)).toBe(1);
    expect(q.github.count('repos/merge', 201)).toBe(1);
    expect(q.pr(1).state).toBe('TESTING');
  });

  test('GitHub down for an hour: effects wait in the outbox and nothing is lost', async () => {
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
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
    const q = await started();
    q.github.installed = false;
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    q.engine.submitPullRequest({ org: 'acme', repo: { host: 'github.com', owner: 'Codertocat', name: 'Hello-World' }, branch: 'main' }, 1);
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
    const q = await started();
    q.createQueue();
    q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    await q.halt();
    await q.boot();
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
  });
});
