/** A push to the target branch reported by the git host (GitHub's push webhook): the input `targetPushed`. */
import { describe, expect, test } from 'vitest';
import { createMemoryStore } from '../../engine/store/index.js';
import type { CollectionName, Store } from '../../engine/store/store.js';
import { KEY, QueueHarness } from './queueHarness.js';

/** A memory store that counts the scans of each collection made inside write transactions. */
function countingStore(): { store: Store; scans: Map<CollectionName, number> } {
  const inner = createMemoryStore();
  const scans = new Map<CollectionName, number>();
  const store = Object.assign(Object.create(inner) as Store, {
    write: <R>(fn: Parameters<Store['write']>[0]) =>
      inner.write((tx) => {
        const counted = Object.assign(Object.create(tx) as typeof tx, {
          scan: (collection: CollectionName, options?: Parameters<typeof tx.scan>[1]) => {
            scans.set(collection, (scans.get(collection) ?? 0) + 1);
            return tx.scan(collection, options);
          },
        });
        return fn(counted) as R;
      }),
  });
  return { store, scans };
}

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

  test("a late webhook of the queue's own merge is known by one read of the merged heads, not a scan of every PR", async () => {
    const { store, scans } = countingStore();
    const h = new QueueHarness(store);
    await h.create();
    await h.submit(1);
    await h.pass(1);
    await h.submit(2);
    await h.pass(2);
    await h.submit(3);
    const run = h.runOf(3);
    scans.clear();
    h.engine.targetPushed(KEY, h.pr(1).mergedSha!);
    await h.engine.settle();
    expect(scans.get('pullRequests') ?? 0).toBe(0);
    expect(h.runOf(3).id).toBe(run.id);
    expect(h.engine.getQueue(KEY).queue.runtime.targetHead).toBe(h.pr(2).mergedSha);
  });
});
