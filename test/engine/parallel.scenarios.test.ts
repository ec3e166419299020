/** Parallel mode, scenario by scenario: impacted targets, the dependency graph, lanes, and switching modes. */
import { describe, expect, test } from 'vitest';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import type { PullRequestFacts } from '../../engine/providers/types.js';
import type { RepoRef } from '../../engine/model/queues.js';
import { bases, enqueue, KEY, QueueHarness } from './queueHarness.js';

async function parallel(patch: Record<string, unknown> = {}): Promise<QueueHarness> {
  const h = new QueueHarness();
  await h.create({ mode: 'parallel', concurrency: 4, ...patch });
  return h;
}

describe('parallel mode', () => {
  test('a PR waits NOT_READY for targets of its head SHA; an upload for another SHA does not count', async () => {
    const h = await parallel();
    await h.submit(1);
    expect(h.pr(1)).toMatchObject({
      state: 'NOT_READY',
      readiness: { requiresImpactedTargets: true, hasImpactedTargets: false, gitHubMergeability: 'mergeable' },
    });
    await h.targets(1, ['//app'], 'f'.repeat(40));
    expect(h.pr(1).state).toBe('NOT_READY');
    await h.targets(1, ['//app']);
    expect(h.pr(1)).toMatchObject({ state: 'TESTING', readiness: { hasImpactedTargets: true } });
  });

  test('targets uploaded before the submission count at once', async () => {
    const h = await parallel();
    await enqueue(h, { 1: ['//a'] });
    expect(h.pr(1).state).toBe('TESTING');
  });

  test('PRs with disjoint targets test side by side and merge without waiting for each other', async () => {
    const h = await parallel();
    await enqueue(h, { 1: ['//frontend'], 2: ['//backend'], 3: ['//frontend', '//shared'] });
    expect(bases(h)).toEqual({ '1': [], '2': [], '3': [1] });
    await h.pass(2);
    expect(h.mergeOrder()).toEqual([2]);
    expect(h.states(1, 3)).toEqual(['TESTING', 'TESTING']);
    await h.pass(3);
    // 3 passed, but it depends on 1, which is still testing.
    expect(h.states(3)).toEqual(['TESTS_PASSED']);
    await h.pass(1);
    expect(h.mergeOrder()).toEqual([2, 1, 3]);
  });

  test('dependencies are transitive: a PR is tested on everything its code may need', async () => {
    const h = await parallel();
    await enqueue(h, { 1: ['//x'], 2: ['//x', '//y'], 3: ['//y'], 4: ['//z'] });
    expect(bases(h)).toEqual({ '1': [], '2': [1], '3': [1, 2], '4': [] });
  });

  test('ALL depends on everything ahead and everything after depends on it; [] on nothing', async () => {
    const h = await parallel({ concurrency: 5 });
    await enqueue(h, { 1: ['//a'], 2: ['//b'], 3: 'ALL', 4: ['//c'], 5: [] });
    expect(bases(h)).toEqual({ '1': [], '2': [], '3': [1, 2], '4': [1, 2, 3], '5': [] });
    await h.pass(5);
    expect(h.mergeOrder()).toEqual([5]);
  });

  test('a failure restarts only the runs that contained the failed PR', async () => {
    const h = await parallel();
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//z'] });
    const unrelated = h.runOf(3).id;
    await h.fail(1);
    expect(h.states(1)).toEqual(['FAILED']);
    expect(bases(h)).toEqual({ '2': [], '3': [] });
    expect(h.runOf(3).id).toBe(unrelated);
  });

  test('concurrency bounds runs across all lanes', async () => {
    const h = await parallel({ concurrency: 2 });
    await enqueue(h, { 1: ['//a'], 2: ['//b'], 3: ['//c'] });
    expect(h.activeRuns()).toHaveLength(2);
    expect(h.states(3)).toEqual(['PENDING']);
    await h.pass(2);
    expect(h.states(3)).toEqual(['TESTING']);
  });

  test('batches form only within a lane', async () => {
    const h = await parallel({ batch: true, batchingMinSize: 2, concurrency: 2 });
    await enqueue(h, { 1: ['//a'], 2: ['//b'], 3: ['//a'], 4: ['//b'] });
    expect(bases(h)).toEqual({ '1+3': [], '2+4': [] });
    await h.fail(1, 3);
    // The failed batch is bisected within its lane, each half on the known-good line; the other lane goes on.
    expect(h.runOf(2, 4).basePrs).toEqual([]);
    expect(bases(h)).toMatchObject({ '1': [], '3': [] });
  });

  test('a batch waiting for its lane holds back only that lane', async () => {
    const h = await parallel({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 10 });
    await enqueue(h, { 1: ['//a'], 2: ['//a'], 3: ['//b'], 4: ['//b'], 5: ['//b'] });
    expect(bases(h)).toEqual({ '3+4+5': [] });
    await h.advanceMinutes(10);
    expect(bases(h)).toEqual({ '3+4+5': [], '1+2': [] });
  });

  test('directMergeMode always merges the head of a lane at once', async () => {
    const h = await parallel({ directMergeMode: 'always', concurrency: 1 });
    await enqueue(h, { 1: ['//a'], 2: ['//a'], 3: ['//b'] });
    // 1 and 3 head their lanes and are up to date: both merge without a run; 2 then heads its lane.
    expect(h.mergeOrder()).toEqual([1, 2, 3]);
    expect(h.runs()).toHaveLength(0);
  });

  test('new targets for the head SHA replace the old ones and replan', async () => {
    const h = await parallel();
    await enqueue(h, { 1: ['//a'], 2: ['//b'] });
    expect(bases(h)).toEqual({ '1': [], '2': [] });
    await h.targets(2, ['//b', '//a']);
    expect(bases(h)).toEqual({ '1': [], '2': [1] });
  });

  test('switching modes on a busy queue waits for runs in flight, then applies; nothing is lost', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2, 3);
    await h.targets(3, ['//c']);
    await h.update({ mode: 'parallel' });
    expect(h.engine.getQueue(KEY).queue.state).toBe('switching_modes');
    expect(h.activeRuns().map((run) => run.prs)).toEqual([[1], [2]]);
    await h.pass(1);
    await h.pass(2);
    // In parallel mode now: 3 has targets; a PR queued without them counts as impacting everything.
    expect(h.engine.getQueue(KEY).queue).toMatchObject({ state: 'running', settings: { mode: 'parallel' } });
    expect(h.mergeOrder()).toEqual([1, 2]);
    await h.submit(4);
    expect(h.states(3, 4)).toEqual(['TESTING', 'NOT_READY']);
    await h.targets(4, ['//d']);
    expect(bases(h)).toEqual({ '3': [], '4': [] });
    await h.update({ mode: 'single' });
    await h.pass(3);
    await h.pass(4);
    expect(h.mergeOrder()).toEqual([1, 2, 3, 4]);
  });

  test('back to single mode, PRs waiting only for targets become ready', async () => {
    const h = await parallel();
    await h.submit(1);
    expect(h.pr(1).state).toBe('NOT_READY');
    await h.update({ mode: 'single' });
    expect(h.pr(1)).toMatchObject({ state: 'TESTING', readiness: { requiresImpactedTargets: false } });
  });

  test('a new head SHA needs targets of its own', async () => {
    const heads = new Map<number, string>();
    class MovingHost extends SimGitHost {
      override async pullRequest(repo: RepoRef, number: number, branch: string): Promise<PullRequestFacts> {
        const facts = await super.pullRequest(repo, number, branch);
        return { ...facts, sha: heads.get(number) ?? facts.sha };
      }
    }
    const h = new QueueHarness(undefined, new MovingHost());
    await h.create({ mode: 'parallel' });
    await enqueue(h, { 1: ['//a'] });
    expect(h.pr(1).state).toBe('TESTING');
    await h.engine.cancelPullRequest(KEY, 1);
    heads.set(1, 'c'.repeat(40));
    await h.submit(1);
    expect(h.pr(1)).toMatchObject({
      state: 'NOT_READY',
      sha: 'c'.repeat(40),
      readiness: { hasImpactedTargets: false },
    });
    await h.targets(1, ['//a'], 'C'.repeat(40));
    expect(h.pr(1).state).toBe('TESTING');
  });
});
