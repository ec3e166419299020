/**
 * Merging finds the commits tested for a PR however long its test branch is (engine/providers/github/gitHubMerges.ts): the
 * branch's commits above the expected head are listed page by page (`octokit.paginate` over the comparison), not by a
 * walk of at most 200 commits. Against the stricter stand-in, which checks every query and page against GitHub's
 * OpenAPI description and pages by at most 100.
 */
import { describe, expect, test } from 'vitest';
import { closeQueuesAfterEach, opened } from './fixture.js';

closeQueuesAfterEach();

describe('GitHub mode: the tested commit of a long test branch', () => {
  test('rebase: a PR of 230 commits (over 200, three pages) merges, main fast-forwarded to its last replayed commit', async () => {
    const q = await opened({ mergeMethod: 'rebase' }, { 1: ['Commit 1', { 'f1.txt': '1\n' }] });
    for (let n = 2; n <= 230; n++) q.github.pushToPull(1, { [`f${n}.txt`]: `${n}\n` });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    const compares = q.github.count('repos/compare-commits-with-basehead');
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
    expect(q.github.files('main')).toMatchObject({ 'f1.txt': '1\n', 'f230.txt': '230\n' });
    // The test branch's 230 commits in three pages, then the PR's own 230 in three more.
    expect(q.github.count('repos/compare-commits-with-basehead') - compares).toBe(6);
  });
});
