/**
 * A good group of a bisection that goes back behind the runs in progress waits for them (engine/planner/waitingPass.ts):
 * if they fail it merges on its bisection run, if one passes it is tested again on top of it.
 */
import { describe, expect, test } from 'vitest';
import { KEY, QueueHarness } from './queueHarness.js';

const activeRuns = (h: QueueHarness) => h.activeRuns().map((run) => [run.kind, run.prs, run.basePrs]);
const runsOf = (h: QueueHarness, number: number) => h.runs().filter((run) => run.prs.includes(number)).length;

async function failedBatchWithRunBehind(): Promise<QueueHarness> {
  const h = new QueueHarness();
  await h.create({
    batch: true,
    batchingMinSize: 2,
    batchingMaxSize: 2,
    concurrency: 1,
    bisectionConcurrency: 2,
    batchingMaxWaitTimeMinutes: 1,
  });
  await h.submit(1, 2);
  await h.fail(1, 2);
  await h.submit(3, 4);
  expect(activeRuns(h)).toEqual([
    ['bisection', [1], []],
    ['bisection', [2], []],
    ['main', [3, 4], []],
  ]);
  // Standing would cost the run behind it, testing #1 again half a batch: #1 goes behind [3, 4], and its pass waits.
  await h.pass(1);
  expect(h.engine.getQueue(KEY).queue.runtime.lineup).toEqual([2, 3, 4, 1]);
  expect(h.states(1)).toEqual(['TESTS_PASSED']);
  expect(activeRuns(h)).toEqual([
    ['bisection', [2], []],
    ['main', [3, 4], []],
  ]);
  return h;
}

describe('a good group behind the runs in progress waits for them', () => {
  test('they fail: it merges on its bisection run, without a second one', async () => {
    const h = await failedBatchWithRunBehind();
    await h.fail(2);
    await h.fail(3, 4);
    expect(h.states(1)).toEqual(['MERGED']);
    expect(runsOf(h, 1)).toBe(2);
    // [3, 4] is bisected on top of #1, which merged.
    expect(activeRuns(h)).toEqual([
      ['bisection', [3], []],
      ['bisection', [4], []],
    ]);
    expect(h.runOf(3).baseSha).toBe(h.pr(1).mergedSha);
  });

  test('they pass: it is tested again on top of them, before they merge', async () => {
    const h = await failedBatchWithRunBehind();
    await h.fail(2);
    await h.pass(3, 4);
    expect(h.mergeOrder()).toEqual([3, 4]);
    // Alone, it waits for a batch to fill (at most batchingMaxWaitTimeMinutes).
    await h.advanceMinutes(1);
    expect(activeRuns(h)).toEqual([['main', [1], []]]);
    expect(h.runOf(1).baseSha).toBe(h.pr(4).mergedSha);
    await h.pass(1);
    expect(h.mergeOrder()).toEqual([3, 4, 1]);
    expect(runsOf(h, 1)).toBe(3);
  });
});
