/** A push to the target branch reported by the git host (GitHub's push webhook): the input `targetPushed`. */
import { describe, expect, test } from 'vitest';
import { KEY, QueueHarness } from './queueHarness.js';

const PUSHED = 'f'.repeat(40);

describe('a push to the target branch', () => {
  test('runs on the old head are cancelled and their PRs tested again on the pushed head', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    await h.pass(2);
    const before = h.runOf(1);
    expect(h.states(1, 2)).toEqual(['TESTING', 'TESTS_PASSED']);
    h.engine.targetPushed(KEY, PUSHED);
    await h.engine.settle();
    expect(h.runs().find((run) => run.id === before.id)?.status).toBe('cancelled');
    expect(h.states(1, 2)).toEqual(['TESTING', 'TESTING']);
    expect(h.activeRuns().map((run) => run.baseSha)).toEqual([PUSHED, PUSHED]);
    await h.pass(1);
    await h.pass(2);
    expect(h.mergeOrder()).toEqual([1, 2]);
  });

  test('the head the queue is on, and heads its own merges made (a late webhook), change nothing', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    await h.pass(1);
    const firstMerge = h.pr(1).mergedSha!;
    await h.submit(3);
    const runs = h.activeRuns().map((run) => run.id);
    h.engine.targetPushed(KEY, firstMerge);
    h.engine.targetPushed(KEY, h.engine.getQueue(KEY).queue.runtime.targetHead);
    await h.engine.settle();
    expect(h.activeRuns().map((run) => run.id)).toEqual(runs);
    expect(h.states(2, 3)).toEqual(['TESTING', 'TESTING']);
  });
});
