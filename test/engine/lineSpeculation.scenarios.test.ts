/**
 * Speculation along the build graph in a coupled line (parallelBases: direct, issue 28): the PRs behind a PR whose
 * outcome is open are tested without it first (alone), so that its failure resets nothing behind it.
 */
import { describe, expect, test } from 'vitest';
import { bases, enqueue, QueueHarness } from './queueHarness.js';

async function queue(
  parallelBases: 'transitive' | 'direct',
  patch: Record<string, unknown> = {},
): Promise<QueueHarness> {
  const h = new QueueHarness();
  await h.create({ mode: 'parallel', concurrency: 8, parallelBases, ...patch });
  return h;
}

/** Runs by kind and status, and how many were cancelled. */
const cancelled = (h: QueueHarness) => h.runs().filter((run) => run.status === 'cancelled').length;

describe('speculation along the build graph', () => {
  test('in a line, the PRs behind an untested PR are tested alone first: its failure resets nothing', async () => {
    const h = await queue('direct');
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'], 4: ['//x'] });
    // 1 heads the line; 2, 3 and 4 would rest on it (an open outcome): each is tested alone, on the target branch.
    expect(bases(h)).toEqual({ '1': [], '2': [], '3': [], '4': [] });
    expect(h.runOf(2).kind).toBe('bisection');
    const alone = [2, 3, 4].map((n) => h.runOf(n).id);
    await h.fail(1);
    expect(h.states(1)).toEqual(['FAILED']);
    expect([2, 3, 4].map((n) => h.runOf(n).id)).toEqual(alone);
    expect(cancelled(h)).toBe(0);
    // 2 passes alone and nothing it overlaps merged meanwhile: that pass is the tree it merges.
    await h.pass(2);
    expect(h.states(2)).toEqual(['MERGED']);
    expect(h.pr(2).runId).toBe(alone[0]);
    // 3 passes alone after 2 merged: tested again on top of it (the target now holds 2), then merges.
    await h.pass(3);
    expect(h.states(3)).toEqual(['TESTING']);
    expect(bases(h)['3']).toEqual([]);
    expect(h.runOf(3).baseSha).toBe(h.pr(2).mergedSha);
    await h.pass(3);
    await h.pass(4);
    await h.pass(4);
    expect(h.mergeOrder()).toEqual([2, 3, 4]);
    expect(cancelled(h)).toBe(0);
  });

  test('with transitive bases the same failure restarts every run behind it', async () => {
    const h = await queue('transitive');
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'], 4: ['//x'] });
    expect(bases(h)).toEqual({ '1': [], '2': [1], '3': [1, 2], '4': [1, 2, 3] });
    await h.fail(1);
    expect(cancelled(h)).toBe(3);
  });

  test('a PR that passed alone goes back behind the runs in progress and is tested on top of its line', async () => {
    const h = await queue('direct');
    await enqueue(h, { 1: ['//x'], 2: ['//x', '//y'] });
    await h.pass(2);
    // 1 is still testing: 2 now rests on it, on a base that holds unless 1 fails.
    expect(bases(h)).toEqual({ '1': [], '2': [1] });
    expect(h.states(2)).toEqual(['TESTING']);
    // A PR arriving now rests on 2 (it passed alone) but not on 1's open outcome unless it overlaps 1.
    await enqueue(h, { 3: ['//y'], 4: ['//x'] });
    expect(bases(h)).toEqual({ '1': [], '2': [1], '3': [2], '4': [] });
    expect(h.runOf(4).kind).toBe('bisection');
    await h.pass(3);
    await h.pass(1);
    await h.pass(2);
    expect(h.mergeOrder()).toEqual([1, 2, 3]);
  });

  test('a PR that passed alone and fails on top of an untested PR still testing waits for it', async () => {
    const h = await queue('direct');
    await enqueue(h, { 1: ['//x'], 2: ['//x'] });
    await h.pass(2);
    expect(bases(h)).toEqual({ '1': [], '2': [1] });
    // 2 passed alone: 1, still testing, is the likelier cause; 2 waits for it rather than being kicked.
    await h.fail(2);
    expect(h.states(2)).toEqual(['PENDING_FAILURE']);
    await h.fail(1);
    expect(h.states(1, 2)).toEqual(['FAILED', 'TESTING']);
    expect(bases(h)).toEqual({ '2': [] });
    await h.pass(2);
    expect(h.mergeOrder()).toEqual([2]);
  });

  test('a broken PR tested alone first is kicked after its anti-flake retests; nothing behind it reset', async () => {
    const h = await queue('direct', { pendingFailureDepth: 1, canOptimisticallyMerge: true });
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'] });
    await h.fail(2);
    await h.fail(2);
    await h.fail(2);
    expect(h.states(2)).toEqual(['FAILED']);
    expect(cancelled(h)).toBe(0);
    await h.pass(1);
    await h.pass(3);
    await h.pass(3);
    expect(h.mergeOrder()).toEqual([1, 3]);
  });

  test('a pass alone stands when only PRs it does not overlap merged meanwhile', async () => {
    const h = await queue('direct');
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//z'] });
    await h.pass(3);
    await h.fail(1);
    expect(h.mergeOrder()).toEqual([3]);
    const alone = h.runOf(2).id;
    await h.pass(2);
    // 3 merged during 2's run alone, but touches none of its targets: the run decides, as any run of a lane would.
    expect(h.mergeOrder()).toEqual([3, 2]);
    expect(h.pr(2).runId).toBe(alone);
  });
});
