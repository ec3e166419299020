/**
 * GitHub mode end to end against the stand-in: webhooks signed with the secret, every request to "GitHub" checked
 * against GitHub's OpenAPI description (a request GitHub would reject is a violation and fails the test).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { COMMENT_MARKER } from '../../engine/providers/github/githubHost.js';
import { GitHubQueue } from './harness.js';

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
    q.createQueue();
    const pull = q.github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });

    const answer = await q.deliver('issue_comment', q.commentPayload(1, 'Looks good.\n/greenline merge --priority high'));
    expect(answer.statusCode).toBe(202);
    expect(q.pr(1)).toMatchObject({ state: 'TESTING', title: 'Add a.txt', author: 'Codertocat', sha: pull.head, priorityName: 'high' });
    const run = q.runOf(1);
    expect(run).toMatchObject({ requiredStatuses: ['ci'], requiredStatusesSource: 'repo_provider_branch_protection' });
    expect(q.github.head(run.testBranch)).toBe(run.testBranchSha);
    expect(q.github.files(run.testBranch)).toEqual({ ...q.github.files('main'), 'a.txt': 'a\n' });
    const built = q.github.git.commits.get(run.testBranchSha)!;
    expect(built.parents).toEqual([run.baseSha, pull.head]);
    expect(built.message).toBe('Merge pull request #1 from refs/pull/1/head\n\nAdd a.txt');

    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
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
