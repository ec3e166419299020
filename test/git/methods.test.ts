/** Merge methods, conflicts, mergeability, direct merges and batches on real repositories. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { GitQueue, KEY } from './helpers.js';

let queue: GitQueue | undefined;
afterEach(async () => {
  await queue?.close();
  queue = undefined;
});

const SHARED = 'one\ntwo\nthree\nfour\nfive\n';

/** A base with a shared file, PR 1 with two commits (another author), PR 2 from the same base touching the same file elsewhere. */
async function twoPullRequests(q: GitQueue) {
  const base = await q.clone.commit('Initial', { 'shared.txt': SHARED });
  await q.clone.pushBase();
  await q.clone.checkout(base);
  await q.clone.commit('Add a', { 'a.txt': 'a\n' }, { name: 'Grace Hopper', email: 'grace@example.com' });
  await q.clone.commit(
    'Edit the first line',
    { 'shared.txt': SHARED.replace('one', 'ONE') },
    { name: 'Grace Hopper', email: 'grace@example.com' },
  );
  const head1 = await q.clone.pushPr(1);
  const head2 = await q.clone.pr(
    2,
    base,
    { 'b.txt': 'b\n', 'shared.txt': SHARED.replace('five', 'FIVE') },
    'Edit the last line',
  );
  return { base, head1, head2 };
}

describe('merge methods', () => {
  test('squash: one commit per PR, its message starting with the PR title, the tested trees on the target', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ concurrency: 2, requiredStatuses: ['ci'], mergeMethod: 'squash' });
    const { base } = await twoPullRequests(q);
    await q.submit(1, 2);
    const [run1, run2] = [q.runOf(1), q.runOf(2)];
    const trees = [await q.treeOf(run1.testBranchSha), await q.treeOf(run2.testBranchSha)];
    await q.report(run1, 'success');
    expect((await q.target()).tree).toBe(trees[0]);
    await q.report(run2, 'success');
    expect((await q.target()).tree).toBe(trees[1]);

    const [first, second] = (await q.clone.bare('rev-list', '--reverse', 'main', `^${base}`)).split('\n');
    expect(await q.clone.bare('log', '-1', '--format=%P|%an', first!)).toBe(`${base}|Grace Hopper`);
    expect(await q.message(first!)).toBe('Edit the first line (#1)\n\n* Add a\n* Edit the first line\n');
    expect(await q.message(second!)).toBe('Edit the last line (#2)\n');
    expect(await q.clone.bare('show', 'main:shared.txt')).toBe(
      SHARED.replace('one', 'ONE').replace('five', 'FIVE').trimEnd(),
    );
    expect(q.errors).toEqual([]);
  });

  test('rebase: the PR commits replayed (messages and authors kept), also onto the PRs ahead', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ concurrency: 2, requiredStatuses: ['ci'], mergeMethod: 'rebase' });
    const { base, head1 } = await twoPullRequests(q);
    await q.submit(1, 2);
    const [run1, run2] = [q.runOf(1), q.runOf(2)];
    // PR 1 was based on the target: its replayed commits are its own trees, in order.
    const replayed = (await q.clone.bare('rev-list', '--reverse', run1.testBranchSha, `^${base}`)).split('\n');
    const originals = (await q.clone.bare('rev-list', '--reverse', head1, `^${base}`)).split('\n');
    expect(await Promise.all(replayed.map((sha) => q.treeOf(sha)))).toEqual(
      await Promise.all(originals.map((sha) => q.treeOf(sha))),
    );

    await q.report(run1, 'success');
    await q.report(run2, 'success');
    expect((await q.target()).tree).toBe(await q.treeOf(run2.testBranchSha));
    const log = await q.clone.bare('log', '--reverse', '--format=%s|%an|%P', 'main', `^${base}`);
    const lines = log.split('\n').map((line) => line.split('|'));
    expect(lines.map((line) => line.slice(0, 2))).toEqual([
      ['Add a', 'Grace Hopper'],
      ['Edit the first line', 'Grace Hopper'],
      ['Edit the last line', 'Ada Lovelace'],
    ]);
    expect(lines.every((line) => line[2]!.split(' ').length === 1)).toBe(true);
    expect(await q.clone.bare('show', 'main:shared.txt')).toBe(
      SHARED.replace('one', 'ONE').replace('five', 'FIVE').trimEnd(),
    );
    expect(q.errors).toEqual([]);
  });

  test('rebase keeps any commit date, even one git would misread (before 1973)', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ requiredStatuses: ['ci'], mergeMethod: 'rebase' });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    await q.clone.checkout(base);
    await writeFile(join(q.clone.dir, 'old.txt'), 'old\n');
    await q.clone.git('add', 'old.txt');
    await q.clone.git('commit', '--quiet', '--date=@0 +0000', '-m', 'From 1970');
    await q.clone.commit('Then a file', { 'a.txt': 'a\n' });
    await q.clone.pushPr(1);
    await q.submit(1);
    await q.report(q.runOf(1), 'success');
    expect(q.pr(1).state).toBe('MERGED');
    expect(await q.clone.bare('log', '-1', '--skip=1', '--format=%at %s', 'main')).toBe('0 From 1970');
  });

  test('batches merge PR by PR; after the last one the target holds the batch tree', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ batch: true, batchingMinSize: 2, requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.clone.pr(2, base, { 'b.txt': 'b\n' });
    await q.submit(1, 2);
    const run = q.runOf(1, 2);
    await q.report(run, 'success');
    expect([q.pr(1).state, q.pr(2).state]).toEqual(['MERGED', 'MERGED']);
    expect(q.pr(2).mergedSha).toBe(run.testBranchSha);
    expect((await q.target()).head).toBe(run.testBranchSha);
    expect(await q.clone.bare('rev-parse', `${run.testBranchSha}^1`)).toBe(q.pr(1).mergedSha);
  });

  test('directMergeMode always: an up-to-date PR merges without a test run', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ directMergeMode: 'always', requiredStatuses: ['ci'], mergeMethod: 'squash' });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    const head = await q.clone.pr(1, base, { 'a.txt': 'a\n' }, 'Direct');
    await q.submit(1);
    expect(q.pr(1)).toMatchObject({ state: 'MERGED', upToDate: true });
    expect(q.runs()).toEqual([]);
    const target = await q.target();
    expect(target.tree).toBe(await q.treeOf(head));
    expect(await q.clone.bare('log', '-1', '--format=%s|%P', 'main')).toBe(`Direct (#1)|${base}`);
  });
});

describe('conflicts and mergeability', () => {
  test('a PR conflicting with the PR ahead fails naming the files; the runs behind are rebuilt without it', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ concurrency: 3, requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'shared.txt': SHARED });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'shared.txt': SHARED.replace('two', 'TWO by 1') });
    await q.clone.pr(2, base, { 'shared.txt': SHARED.replace('two', 'TWO by 2'), 'b.txt': 'b\n' });
    await q.clone.pr(3, base, { 'c.txt': 'c\n' });
    await q.submit(1, 2, 3);

    expect(q.pr(2)).toMatchObject({ state: 'FAILED', reason: '#2 conflicts with main + #1 in shared.txt' });
    expect(q.timeline(2).map((entry) => entry.event)).toEqual(
      expect.arrayContaining(['testing', 'failed', 'comment', 'status_check']),
    );
    const run3 = q.runOf(3);
    expect(run3.basePrs).toEqual([1]);
    expect(await q.clone.bare('ls-tree', '--name-only', run3.testBranchSha)).toBe('c.txt\nshared.txt');
    await q.report(q.runOf(1), 'success');
    await q.report(run3, 'success');
    expect([q.pr(1).state, q.pr(3).state]).toEqual(['MERGED', 'MERGED']);
    expect((await q.target()).tree).toBe(await q.treeOf(run3.testBranchSha));
    expect(await q.testBranches()).toEqual([]);
    expect(q.errors).toEqual([]);
  });

  test('squash: a PR whose changes are already on the target fails: there is nothing to merge', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ requiredStatuses: ['ci'], mergeMethod: 'squash' });
    const base = await q.clone.commit('Initial', { 'shared.txt': SHARED });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.clone.checkout(base);
    await q.clone.commit('The same change, pushed directly', { 'a.txt': 'a\n' });
    await q.clone.pushBase();
    await q.submit(1);
    expect(q.pr(1)).toMatchObject({ state: 'FAILED', reason: '#1 changes nothing on top of main' });
  });

  test('rebase: a conflict while replaying names the files and the commit', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ concurrency: 2, requiredStatuses: ['ci'], mergeMethod: 'rebase' });
    const base = await q.clone.commit('Initial', { 'shared.txt': SHARED });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'shared.txt': SHARED.replace('three', 'III') });
    await q.clone.pr(2, base, { 'shared.txt': SHARED.replace('three', '3') }, 'Number three');
    await q.submit(1, 2);
    expect(q.pr(2).state).toBe('FAILED');
    expect(q.pr(2).reason).toMatch(
      /^#2 conflicts with main \+ #1 in shared\.txt \(replaying [0-9a-f]{10} "Number three"\)$/,
    );
  });

  test('a missing head or a conflict with the target is NOT_READY, not_mergeable; submitting again after a push looks again', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ requiredStatuses: ['ci'] });
    // No target branch yet: not mergeable, and the queue learns the head once it exists.
    const base = await q.clone.commit('Initial', { 'shared.txt': SHARED });
    await q.clone.pr(3, base, { 'c.txt': 'c\n' });
    await q.submit(3);
    expect(q.pr(3)).toMatchObject({ state: 'NOT_READY', readiness: { gitHubMergeability: 'not_mergeable' } });
    expect(q.timeline(3).at(-1)?.message).toContain('the target branch main does not exist yet');
    await q.clone.checkout(base);
    await q.clone.pushBase();
    q.engine.restartTestsOnPullRequest(KEY, 3);
    await q.engine.settle();
    expect(q.pr(3).state).toBe('TESTING');
    expect(q.runOf(3).baseSha).toBe(base);

    await q.submit(4);
    expect(q.pr(4)).toMatchObject({
      state: 'NOT_READY',
      baseBranch: 'main',
      readiness: { gitHubMergeability: 'not_mergeable' },
    });
    expect(q.timeline(4).at(-1)?.message).toBe(
      'not ready: the git host reports it not mergeable: its head refs/pull/4/head does not exist in the repository',
    );

    await q.clone.pr(5, base, { 'shared.txt': SHARED.replace('four', 'IV') });
    await q.clone.checkout(base);
    await q.clone.commit('Change four on main', { 'shared.txt': SHARED.replace('four', '4') });
    await q.clone.pushBase();
    await q.submit(5);
    expect(q.pr(5)).toMatchObject({ state: 'NOT_READY', readiness: { gitHubMergeability: 'not_mergeable' } });
    expect(q.timeline(5).at(-1)?.message).toBe(
      'not ready: the git host reports it not mergeable: it conflicts with main in shared.txt',
    );

    // The missing head is pushed; submitting again looks again.
    await q.clone.pr(4, base, { 'd.txt': 'd\n' });
    await q.submit(4);
    expect(q.pr(4).state).toBe('PENDING');
    expect(q.errors).toEqual([]);
  });
});

describe('idempotence', () => {
  test('building, merging and deleting again answer as the first time', async () => {
    const q = (queue = await GitQueue.create());
    await q.create();
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    const head = await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    const request = {
      repo: KEY.repo,
      targetBranch: 'main',
      runId: 'tr_manual_1',
      baseSha: base,
      pullRequests: [{ number: 1, sha: head }],
      mergeMethod: 'merge_commit' as const,
    };
    const built = await q.host.buildTestBranch(request);
    expect(built).toMatchObject({ ok: true, branch: 'greenline/main/tr_manual_1' });
    expect(await q.host.buildTestBranch(request)).toEqual(built);
    if (!built.ok) throw new Error('not built');
    await q.host.deleteTestBranch(KEY.repo, built.branch);
    await q.host.deleteTestBranch(KEY.repo, built.branch);
    const merge = {
      repo: KEY.repo,
      targetBranch: 'main',
      expectedHead: base,
      pullRequest: { number: 1, sha: head, title: 'Change 1' },
      testBranchSha: built.sha,
      mergeMethod: 'merge_commit' as const,
    };
    const merged = await q.host.merge(merge);
    expect(merged).toEqual({ ok: true, head: built.sha, target: { head: built.sha, requiredStatuses: null } });
    expect(await q.host.merge(merge)).toEqual(merged);
    expect((await q.target()).head).toBe(built.sha);
    // A direct merge done before is recognised too.
    await q.clone.git('fetch', '--quiet', q.clone.remote, 'main');
    const head2 = await q.clone.pr(2, built.sha, { 'b.txt': 'b\n' });
    const direct = {
      ...merge,
      expectedHead: built.sha,
      pullRequest: { number: 2, sha: head2, title: 'Change 2' },
      testBranchSha: null,
    };
    const first = await q.host.merge(direct);
    expect(first.ok).toBe(true);
    expect(await q.host.merge(direct)).toEqual(first);
  });
});
