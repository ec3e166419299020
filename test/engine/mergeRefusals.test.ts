/** A merge the git host refuses with the target where expected: tested again, a bounded number of times, then cancelled. */
import { describe, expect, test } from 'vitest';
import { MAX_MERGE_REFUSALS } from '../../engine/transaction/hostResults.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import type { MergeResult } from '../../engine/providers/types.js';
import { QueueHarness } from './queueHarness.js';

class RefusingHost extends SimGitHost {
  merges = 0;
  override async merge(): Promise<MergeResult> {
    this.merges++;
    return { ok: false, reason: 'required reviews are missing' };
  }
}

describe('merge refusals', () => {
  test(`after ${MAX_MERGE_REFUSALS} refusals the PR leaves the queue with the reason; the PR behind goes on`, async () => {
    const host = new RefusingHost();
    const h = new QueueHarness(undefined, host);
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    for (let round = 0; round < 10 && h.pr(1).state === 'TESTING'; round++) await h.pass(1);
    expect(host.merges).toBe(MAX_MERGE_REFUSALS);
    expect(h.pr(1).state).toBe('CANCELLED');
    expect(h.pr(1).reason).toBe(
      `the git host refused to merge it ${MAX_MERGE_REFUSALS} times; the last time: required reviews are missing`,
    );
    expect(h.pr(2).state).toBe('TESTING');
    expect(h.runOf(2).basePrs).toEqual([]);
  });
});
