/**
 * GitHub mode's merge methods end to end against the stand-in (every request checked against GitHub's OpenAPI
 * description): squash and rebase on the test branch, refusals that name the PR, merging through GitHub's merge API
 * when protection forbids updating main, draft PRs of test branches, and direct merges.
 */
import { describe, expect, test } from 'vitest';
import { ADD_A, closeQueuesAfterEach, ONE_AND_TWO, opened, submitted, type Pulls } from './fixture.js';

closeQueuesAfterEach();

describe('GitHub mode: merge methods', () => {
  test('squash: one commit per PR on the test branch; main fast-forwards to it and the PR is closed', async () => {
    const q = await submitted({ mergeMethod: 'squash' });
    const run = q.runOf(1);
    const built = q.github.git.commits.get(run.testBranchSha)!;
    expect(built.parents).toEqual([run.baseSha]);
    expect(built.message).toBe('Add a.txt (#1)');
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.head('main')).toBe(run.testBranchSha);
    expect(q.github.pulls.get(1)).toMatchObject({ state: 'closed' });
  });

  test("rebase: each PR's commits replayed in order on the test branch; main fast-forwards PR by PR and the PRs are closed", async () => {
    // Optimistic merge: the run of #2 (on top of #1) passing first vouches for #1, which merges from that branch.
    const q = await opened(
      { mergeMethod: 'rebase', concurrency: 2, canOptimisticallyMerge: true },
      { ...ADD_A, 2: ['Edit shared.txt', { 'shared.txt': 'one\ntwo\nthree\nfour\n' }] },
    );
    const first = q.github.pulls.get(1)!;
    q.github.pushToPull(1, { 'a.txt': 'a2\n' });
    const base = q.github.head('main')!;
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    await q.deliver('issue_comment', q.commentPayload(2, '/greenline merge'));
    const [run1, run2] = [q.runOf(1), q.runOf(2)];
    const commits = (sha: string, until: string) => {
      const chain = [];
      for (let at = sha; at !== until; at = q.github.git.commits.get(at)!.parents[0]!)
        chain.unshift(q.github.git.commits.get(at)!);
      return chain;
    };
    expect(
      commits(run1.testBranchSha, base).map((commit) => [commit.message, commit.parents.length, commit.author]),
    ).toEqual([
      ['Add a.txt', 1, 'Codertocat'],
      ['update #1', 1, 'Codertocat'],
    ]);
    expect(commits(run1.testBranchSha, base)[0]!.sha).not.toBe(first.head);
    expect(commits(run2.testBranchSha, base).map((commit) => commit.message)).toEqual([
      'Add a.txt',
      'update #1',
      'Edit shared.txt',
    ]);
    expect(q.github.files(run2.testBranch)).toEqual({
      ...q.github.files('main'),
      'a.txt': 'a2\n',
      'shared.txt': 'one\ntwo\nthree\nfour\n',
    });
    await q.deliver('check_suite', q.checkSuitePayload(run2.testBranchSha, 'success'));
    expect([q.pr(1).state, q.pr(2).state]).toEqual(['MERGED', 'MERGED']);
    expect(q.pr(1).mergedSha).toBe(commits(run2.testBranchSha, base)[1]!.sha);
    expect(q.github.head('main')).toBe(run2.testBranchSha);
    expect([q.github.pulls.get(1)!.state, q.github.pulls.get(2)!.state]).toEqual(['closed', 'closed']);
  });

  test.each(['merge_commit', 'squash', 'rebase'] as const)(
    '%s, concurrency 3: each run builds on the very commits of the runs ahead, so every PR is tested once and merges by a fast-forward',
    async (mergeMethod) => {
      const pulls: Pulls = { ...ADD_A, 2: ['Add b.txt', { 'b.txt': 'b\n' }], 3: ['Add c.txt', { 'c.txt': 'c\n' }] };
      const q = await submitted({ mergeMethod, concurrency: 3 }, pulls);
      const runs = [1, 2, 3].map((number) => q.runOf(number));
      expect(runs.map((run) => [run.prs, run.basePrs])).toEqual([
        [[1], []],
        [[2], [1]],
        [[3], [1, 2]],
      ]);
      const parent = (sha: string) => q.github.git.commits.get(sha)!.parents[0];
      // #2's run holds exactly the commit #1's run built on main (the same SHA), and #3's run the one of #2's.
      expect(parent(runs[1]!.testBranchSha)).toBe(runs[0]!.testBranchSha);
      expect(parent(runs[2]!.testBranchSha)).toBe(runs[1]!.testBranchSha);

      for (const run of runs) await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
      expect([1, 2, 3].map((number) => q.pr(number).state)).toEqual(['MERGED', 'MERGED', 'MERGED']);
      expect([1, 2, 3].map((number) => q.pr(number).mergedSha)).toEqual(runs.map((run) => run.testBranchSha));
      // One run per PR: none was tested again after the merges ahead of it.
      const built = q.inputs('branchBuilt') as { input: { runId: string } }[];
      expect(built.map((event) => q.engine.getTestRun(q.key, event.input.runId).run.prs)).toEqual([[1], [2], [3]]);
      expect(q.github.head('main')).toBe(runs[2]!.testBranchSha);
      expect(q.github.files('main')).toEqual({
        'README.md': 'hello\n',
        'shared.txt': 'one\ntwo\nthree\n',
        'a.txt': 'a\n',
        'b.txt': 'b\n',
        'c.txt': 'c\n',
      });
      expect(q.github.count('pulls/merge')).toBe(0);
    },
  );

  test('rebase: a PR whose replayed commit conflicts fails, naming the PR', async () => {
    const q = await submitted({ mergeMethod: 'rebase', concurrency: 2 }, ONE_AND_TWO);
    expect(q.pr(2).state).toBe('FAILED');
    expect(q.pr(2).reason).toContain('#2 conflicts with main + #1');
  });

  test('rebase: a PR whose commits change nothing on main fails at once rather than merging nothing', async () => {
    const q = await submitted({ mergeMethod: 'rebase' }, { 1: ['Nothing new', { 'README.md': 'hello\n' }] });
    expect(q.pr(1).state).toBe('FAILED');
    expect(q.pr(1).reason).toContain('#1 changes nothing on top of main');
  });

  test("a test branch without the PR's commits, main where expected: a plain refusal (bounded by the engine), not a moved target", async () => {
    const q = await opened();
    const head = q.github.head('main')!;
    const pull = q.github.pulls.get(1)!;
    const result = await q.host.merge({
      repo: q.key.repo,
      targetBranch: 'main',
      expectedHead: head,
      pullRequest: { number: 1, sha: pull.head, title: pull.title },
      testBranchSha: head,
      mergeMethod: 'merge_commit',
    });
    expect(result).toEqual({ ok: false, reason: 'the commits tested for #1 are not found on its test branch' });
    expect(q.github.head('main')).toBe(head);
  });

  test("protection that forbids updating main directly: the tested PR merges through GitHub's merge API", async () => {
    const q = await opened();
    q.github.pullRequestsOnly.add('main');
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
    const q = await opened();
    q.github.pullRequestsOnly.add('main');
    q.github.fail({
      method: 'PUT',
      path: /\/pulls\/1\/merge$/,
      status: 405,
      times: 100,
      body: { message: 'At least 1 approving review is required', documentation_url: 'https://docs.github.com/rest' },
    });
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
    const q = await submitted({ createPrsForTestingBranches: true });
    const run = q.runOf(1);
    const draft = [...q.github.pulls.values()].find((pull) => pull.headRef === run.testBranch);
    expect(draft).toMatchObject({
      draft: true,
      state: 'open',
      base: 'main',
      head: run.testBranchSha,
      title: `Greenline test run ${run.id}`,
    });
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(draft!.state).toBe('closed');
    expect([...q.github.pulls.values()].filter((pull) => pull.author === 'greenline[bot]')).toHaveLength(1);
  });

  test("a direct merge (directMergeMode always) goes through GitHub's merge API, pinned to the checked head", async () => {
    const q = await opened({ directMergeMode: 'always' });
    const [pull, before] = [q.github.pulls.get(1)!, q.github.head('main')];
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.count('pulls/merge', 200)).toBe(1);
    expect(q.github.pulls.get(1)).toMatchObject({ state: 'closed', merged: true });
    expect(q.github.git.commits.get(q.github.head('main')!)!.parents).toEqual([before, pull.head]);
  });
});
