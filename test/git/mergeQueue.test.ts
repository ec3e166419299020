/** The merge queue on real repositories: test branches are real commits, merges move the target to the tested trees. */
import { afterEach, describe, expect, test } from 'vitest';
import { existsSync } from 'node:fs';
import { GitQueue, KEY } from './helpers.js';

let queue: GitQueue | undefined;
afterEach(async () => {
  await queue?.close();
  queue = undefined;
});

describe('the local git host', () => {
  test('createQueue creates the bare repository; PR facts come from refs/pull/N/head', async () => {
    const q = (queue = await GitQueue.create());
    const path = q.host.repositoryPath(KEY.repo);
    expect(path).toBe(`${q.dataDir}/repos/github.com/acme/widgets.git`);
    expect(existsSync(path)).toBe(false);
    await q.create({ requiredStatuses: ['ci'] });
    expect(await q.clone.bare('rev-parse', '--is-bare-repository')).toBe('true');

    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    const head = await q.clone.pr(7, base, { 'a.txt': 'a\n' }, 'Add a.txt\n\nWith a body.');
    await q.submit(7);
    expect(q.pr(7)).toMatchObject({
      state: 'TESTING',
      title: 'Add a.txt',
      author: 'Ada Lovelace',
      sha: head,
      baseBranch: 'main',
      readiness: { gitHubMergeability: 'mergeable', doesBaseBranchMatch: true },
    });
    expect(q.errors).toEqual([]);
  });

  test('predictive runs are real commits; each merge leaves the target at exactly the tested tree', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ concurrency: 3, requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n', 'shared.txt': 'one\ntwo\nthree\n' });
    await q.clone.pushBase();
    const heads = [
      await q.clone.pr(1, base, { 'a.txt': 'a\n' }),
      await q.clone.pr(2, base, { 'b.txt': 'b\n', 'shared.txt': 'ONE\ntwo\nthree\n' }),
      await q.clone.pr(3, base, { 'c.txt': 'c\n', 'shared.txt': 'one\ntwo\nTHREE\n' }),
    ];
    await q.submit(1, 2, 3);
    const runs = [q.runOf(1), q.runOf(2), q.runOf(3)];
    expect(runs.map((run) => run.basePrs)).toEqual([[], [1], [1, 2]]);
    expect(await q.testBranches()).toEqual(runs.map((run) => `refs/heads/greenline/main/${run.id}`));

    // The third run's branch: the base, then one merge commit per PR in order, second parents the PR heads.
    const chain = (
      await q.clone.bare('rev-list', '--first-parent', '--parents', `${runs[2]!.testBranchSha}`, `^${base}`)
    ).split('\n');
    expect(chain.map((line) => line.split(' ')[2])).toEqual([heads[2], heads[1], heads[0]]);
    expect(await q.clone.bare('show', `${runs[2]!.testBranchSha}:shared.txt`)).toBe('ONE\ntwo\nTHREE');
    expect(await q.clone.bare('log', '-1', '--format=%B', runs[0]!.testBranchSha)).toBe(
      'Merge pull request #1 from refs/pull/1/head\n\nChange 1\n',
    );

    const expectedTrees = await Promise.all(runs.map((run) => q.treeOf(run.testBranchSha)));
    for (const [index, run] of runs.entries()) {
      await q.report(run, 'success');
      const target = await q.target();
      expect(target.tree).toBe(expectedTrees[index]);
      expect(q.pr(index + 1)).toMatchObject({ state: 'MERGED', mergedSha: target.head });
    }
    // The first run was built on the head it merged onto: the target holds that very commit (a fast-forward).
    expect(q.pr(1).mergedSha).toBe(runs[0]!.testBranchSha);
    // Every merge kept the PR heads as second parents; the history is linear on the first parents.
    const merges = (await q.clone.bare('rev-list', '--first-parent', '--parents', 'main', `^${base}`))
      .split('\n')
      .reverse();
    expect(merges.map((line) => line.split(' ')[2])).toEqual(heads);
    expect(await q.testBranches()).toEqual([]);
    expect(q.errors).toEqual([]);
  });

  test('the target moved since the run was built: the PR is tested again, never merged untested', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.submit(1);
    const first = q.runOf(1);

    // Someone pushes to main directly while the run is testing.
    await q.clone.checkout(base);
    const outside = await q.clone.commit('Hotfix', { 'hotfix.txt': 'fix\n' });
    await q.clone.pushBase();
    await q.report(first, 'success');
    expect(q.pr(1).state).toBe('TESTING');
    const second = q.runOf(1);
    expect(second.id).not.toBe(first.id);
    expect(second.baseSha).toBe(outside);
    expect((await q.target()).head).toBe(outside);
    expect(q.timeline(1).map((entry) => entry.event)).toContain('requeued');

    await q.report(second, 'success');
    const target = await q.target();
    expect(q.pr(1).state).toBe('MERGED');
    expect(target.tree).toBe(await q.treeOf(second.testBranchSha));
    expect(await q.clone.bare('rev-parse', `${target.head}^1`)).toBe(outside);
    expect(q.errors).toEqual([]);
  });

  test('required statuses come from .greenline.yaml (service_config) below those set through the API', async () => {
    const q = (queue = await GitQueue.create());
    await q.create();
    const base = await q.clone.commit('Initial', { '.greenline.yaml': 'required_statuses: [build, test]\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.clone.pr(2, base, { 'b.txt': 'b\n' });
    await q.submit(1);
    const run = q.runOf(1);
    expect(run).toMatchObject({ requiredStatuses: ['build', 'test'], requiredStatusesSource: 'service_config' });
    expect(q.engine.getQueue(KEY).queue.repositoryConfig).toEqual({ sha: base, requiredStatuses: ['build', 'test'] });

    await q.report(run, 'success', 'build');
    expect(q.pr(1).state).toBe('TESTING');
    await q.report(run, 'success', 'test');
    expect(q.pr(1).state).toBe('MERGED');

    q.engine.updateQueue(KEY, { requiredStatuses: ['api'] });
    await q.submit(2);
    expect(q.runOf(2)).toMatchObject({ requiredStatuses: ['api'], requiredStatusesSource: 'merge_instance' });
    q.engine.updateQueue(KEY, { deleteRequiredStatuses: true });
    await q.report(q.runOf(2), 'success', 'api');
    expect(q.pr(2).state).toBe('MERGED');
    expect(q.errors).toEqual([]);
  });

  test('comments and the status check are recorded on the PR timeline when enabled', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.clone.pr(2, base, { 'b.txt': 'b\n' });
    await q.submit(1);
    await q.report(q.runOf(1), 'success');
    const notes = q.timeline(1).filter((entry) => entry.event === 'comment' || entry.event === 'status_check');
    expect(notes.map((entry) => entry.event)).toEqual(['status_check', 'comment', 'status_check']);
    expect(notes[0]!.message).toMatch(/^status check greenline: pending \(testing in tr_/);
    expect(notes[1]!.message).toMatch(/^comment: Greenline merged this pull request into main \([0-9a-f]{40}\)\.$/);
    expect(notes[2]!.message).toBe('status check greenline: success (merged)');

    q.engine.updateQueue(KEY, { commentsEnabled: false, statusCheckEnabled: false });
    await q.submit(2);
    await q.report(q.runOf(2), 'success');
    expect(q.pr(2).state).toBe('MERGED');
    expect(q.timeline(2).filter((entry) => entry.event === 'comment' || entry.event === 'status_check')).toEqual([]);
  });
});
