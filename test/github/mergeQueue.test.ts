/**
 * GitHub mode end to end against the stand-in: webhooks signed with the secret, every request to "GitHub" checked
 * against GitHub's OpenAPI description (a request GitHub would reject is a violation and fails the test). What goes
 * wrong is in mergeQueue.failures.test.ts; the merge methods and merging through GitHub's API in mergeMethods.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { COMMENT_MARKER } from '../../engine/providers/github/githubHost.js';
import { closeQueuesAfterEach, opened, submitted } from './fixture.js';
import { example } from './webhookExamples.js';

closeQueuesAfterEach();

describe('GitHub mode', () => {
  test('a comment submits a PR, a check suite passes its run, and main is fast-forwarded to the tested commit', async () => {
    const q = await opened();
    q.github.protection.set('main', ['ci']);
    q.github.rulesets.set('main', ['lint']);
    const pull = q.github.pulls.get(1)!;

    const answer = await q.deliver(
      'issue_comment',
      q.commentPayload(1, 'Looks good.\n/greenline merge --priority high'),
    );
    expect(answer.statusCode).toBe(202);
    expect(q.pr(1)).toMatchObject({
      state: 'TESTING',
      title: 'Add a.txt',
      author: 'Codertocat',
      sha: pull.head,
      priorityName: 'high',
    });
    const run = q.runOf(1);
    expect(run).toMatchObject({
      requiredStatuses: ['ci', 'lint'],
      requiredStatusesSource: 'repo_provider_branch_protection',
    });
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
    const q = await opened();
    const forged = await q.deliver(
      'issue_comment',
      q.commentPayload(1, '/greenline merge'),
      'forged',
      'not-the-secret',
    );
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
    q.engine.cancelPullRequest(q.key, 1);
    const again = await q.deliver('issue_comment', payload, 'same-delivery');
    expect(again.statusCode).toBe(200);
    expect(q.inputs('submitted')).toHaveLength(1);
    expect(q.pr(1).state).toBe('CANCELLED');

    const star = await q.deliver('star', {
      action: 'created',
      starred_at: null,
      repository: payload.repository,
      sender: payload.sender,
    });
    expect(star.statusCode).toBe(202);
    // A week later, a delivery prunes the ids past their retention (GitHub redelivers within 3 days).
    expect(q.store.read((tx) => tx.get('webhookDeliveries', ['same-delivery']))).toBeDefined();
    q.clock.advanceBy(8 * 24 * 60 * 60_000);
    await q.deliver('star', {
      action: 'created',
      starred_at: null,
      repository: payload.repository,
      sender: payload.sender,
    });
    expect(q.store.read((tx) => tx.get('webhookDeliveries', ['same-delivery']))).toBeUndefined();
  });

  test('commands need write access and commandsEnabled; a bad command is answered', async () => {
    const q = await opened();
    q.github.permissions.set('visitor', 'read');
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge', 'visitor'));
    expect(() => q.pr(1)).toThrow(/never submitted/);
    expect(q.github.comments.at(-1)?.body).toContain('only people with write access');
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge --priority 999'));
    expect(q.github.comments.at(-1)?.body).toContain('--priority takes 0 to 255');
    expect(q.github.comments.filter((comment) => comment.issue === 1)).toHaveLength(1);
    q.engine.updateQueue(q.key, { commandsEnabled: false });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(() => q.pr(1)).toThrow(/never submitted/);
    expect(q.github.comments.at(-1)?.body).toContain('no merge queue with commands enabled');
  });

  test('labels: the enqueueing label submits, removing it cancels (labelCommandsEnabled)', async () => {
    const q = await opened({ labelCommandsEnabled: true, enqueueingLabel: 'merge-me' });
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
  test("stateLabelsEnabled keeps one label naming the PR's queue state, through to merged", async () => {
    const q = await opened({ stateLabelsEnabled: true });
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
    const q = await submitted();
    expect(q.github.count('issues/list-labels-on-issue')).toBe(0);
  });
});
