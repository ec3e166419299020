/** Direct bases and speculation along the build graph (parallelBases: direct, issue 28), on the engine. */
import { describe, expect, test } from 'vitest';
import { bases, enqueue, QueueHarness } from './queueHarness.js';

async function queue(parallelBases: 'transitive' | 'direct', concurrency = 8): Promise<QueueHarness> {
  const h = new QueueHarness();
  await h.create({ mode: 'parallel', concurrency, parallelBases });
  return h;
}

describe('direct bases', () => {
  test('a failure resets only the runs that overlap the failed PR; a run built without it stands', async () => {
    const h = await queue('direct');
    await enqueue(h, { 1: ['//x'], 2: ['//x', '//y'], 3: ['//y'], 4: ['//z'] });
    // 2 would rest on 1, whose outcome is open: it is tested alone first (lineSpeculation.ts), and 3 without it.
    expect(bases(h)).toEqual({ '1': [], '2': [], '3': [], '4': [] });
    const third = h.runOf(3).id;
    await h.fail(1);
    expect(h.states(1)).toEqual(['FAILED']);
    expect(bases(h)).toEqual({ '2': [], '3': [], '4': [] });
    expect(h.runOf(3).id).toBe(third);
    // 3 passed on the target branch and overlaps nothing ahead: it merges, on exactly the tree it was tested on.
    await h.pass(3);
    expect(h.mergeOrder()).toEqual([3]);
    // 2 passed alone, but 3 (which it overlaps) merged meanwhile: it is tested again on top of it, then merges.
    await h.pass(2);
    expect(h.states(2)).toEqual(['TESTING']);
    expect(h.runOf(2).baseSha).toBe(h.pr(3).mergedSha);
    await h.pass(2);
    expect(h.mergeOrder()).toEqual([3, 2]);
  });

  test('with transitive bases (the default) the same failure restarts everything downstream of it', async () => {
    const h = await queue('transitive');
    await enqueue(h, { 1: ['//x'], 2: ['//x', '//y'], 3: ['//y'], 4: ['//z'] });
    const third = h.runOf(3).id;
    await h.fail(1);
    expect(bases(h)).toEqual({ '2': [], '3': [2], '4': [] });
    expect(h.runOf(3).id).not.toBe(third);
  });

  test('a failure on top of PRs still testing keeps the failed PR in the bases behind it until it is settled', async () => {
    const h = await queue('direct');
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'], 4: ['//x'] });
    // 2, 3 and 4 pass alone and go back behind 1, each on top of the PRs ahead of it.
    for (const n of [2, 3, 4]) await h.pass(n);
    expect(bases(h)).toEqual({ '1': [], '2': [1], '3': [1, 2], '4': [1, 2, 3] });
    const fourth = h.runOf(4).id;
    // 3 fails while 1 and 2, under it, still test: they are likelier the cause than 3, which passed alone.
    await h.fail(3);
    expect(h.states(3)).toEqual(['PENDING_FAILURE']);
    expect(h.runOf(4).id).toBe(fourth);
    // 1 fails (settled: kicked): 2, 3 and 4 are tested again without it, once.
    await h.fail(1);
    expect(h.states(1, 2, 3, 4)).toEqual(['FAILED', 'TESTING', 'TESTING', 'TESTING']);
    expect(bases(h)).toEqual({ '2': [], '3': [2], '4': [2, 3] });
    for (const n of [4, 3, 2]) await h.pass(n);
    expect(h.mergeOrder()).toEqual([2, 3, 4]);
  });

  test('an ALL PR does not serialise the queue: tested alone first, then on every PR ahead of it when it is back', async () => {
    const h = await queue('direct');
    await enqueue(h, { 1: ['//a'], 2: ['//b'], 3: 'ALL', 4: ['//a'], 5: ['//c'] });
    // 3 would rest on 1 and 2 and 4 on 1, untested: both are tested alone first; 5 rests on nothing that is open.
    expect(bases(h)).toEqual({ '1': [], '2': [], '3': [], '4': [], '5': [] });
    await h.pass(3);
    await h.pass(4);
    // Back behind the runs in progress: the ALL PR on every PR ahead, 4 on the PRs ahead it overlaps.
    expect(bases(h)).toEqual({ '1': [], '2': [], '3': [1, 2, 5], '4': [1, 3], '5': [] });
    for (const n of [5, 2, 1, 3, 4]) await h.pass(n);
    // 5 was not held behind the ALL PR: it merged first.
    expect(h.mergeOrder()).toEqual([5, 2, 1, 3, 4]);
  });
});
