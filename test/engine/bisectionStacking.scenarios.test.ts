/**
 * Queue policy 4: the halves of a failed batch are tested on the main-line runs in flight behind it, when the runs a
 * pass that stands saves outweigh the runs lost if one of those fails (transaction/bisectionMoves.ts, from the PRs'
 * failure likelihoods: here the prior, 5 %). Under policy 3 they were tested on the settled head of the line, and a
 * main-line run that passed during their run made their pass stale.
 */
import { describe, expect, test } from 'vitest';
import { KEY, QueueHarness } from './queueHarness.js';

const SETTINGS = { requiredStatuses: ['ci'], batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 1, concurrency: 2, bisectionConcurrency: 2 };
const activeRuns = (h: QueueHarness) => h.activeRuns().map((run) => [run.kind, run.prs, run.basePrs]);
const runsOf = (h: QueueHarness, number: number) => h.runs().filter((run) => run.prs.includes(number)).length;

/** [1, 2] fails under [3, 4], which is tested again without it, and [1, 2] is bisected. */
async function failedBatchUnderRun(policy?: number): Promise<QueueHarness> {
  const h = new QueueHarness();
  h.queueId = policy === undefined ? h.engine.createQueue(KEY, SETTINGS).id : h.engine.createQueue(KEY, SETTINGS, undefined, policy).id;
  await h.engine.settle();
  await h.submit(1, 2, 3, 4);
  expect(activeRuns(h)).toEqual([
    ['main', [1, 2], []],
    ['main', [3, 4], [1, 2]],
  ]);
  await h.fail(1, 2);
  return h;
}

describe('a bisection tested on the main-line runs in flight (queue policy 4)', () => {
  test('its halves are tested on the run in flight, and a good half merges on its bisection run once that run merged', async () => {
    const h = await failedBatchUnderRun();
    expect(h.engine.getQueue(KEY).queue.runtime.lineup).toEqual([3, 4, 1, 2]);
    expect(activeRuns(h)).toEqual([
      ['main', [3, 4], []],
      ['bisection', [1], [3, 4]],
      ['bisection', [2], [3, 4]],
    ]);
    await h.pass(1);
    await h.fail(2);
    // Its pass waits for the run under it: [3, 4] merges first, then #1 on the run that tested it on top of them.
    expect(h.states(1)).toEqual(['TESTS_PASSED']);
    await h.pass(3, 4);
    expect(h.mergeOrder()).toEqual([3, 4, 1]);
    expect(runsOf(h, 1)).toBe(2);
    expect(h.states(2)).toEqual(['FAILED']);
  });

  test('the run under it fails: its halves are tested again on the base that is left', async () => {
    const h = await failedBatchUnderRun();
    await h.fail(3, 4);
    expect(activeRuns(h).filter(([kind, prs]) => kind === 'bisection' && (prs as number[]).some((n) => n <= 2))).toEqual([
      ['bisection', [1], []],
      ['bisection', [2], []],
    ]);
    await h.pass(1);
    await h.fail(2);
    expect(h.states(1)).toEqual(['MERGED']);
    expect(runsOf(h, 1)).toBe(3);
  });

  test('under queue policy 3 the halves are tested on the settled head, and the pass is stale once [3, 4] merged', async () => {
    const h = await failedBatchUnderRun(3);
    expect(activeRuns(h)).toEqual([
      ['main', [3, 4], []],
      ['bisection', [1], []],
      ['bisection', [2], []],
    ]);
    await h.pass(3, 4);
    await h.pass(1);
    await h.fail(2);
    await h.advanceMinutes(1);
    expect(h.states(1)).toEqual(['TESTING']);
    expect(runsOf(h, 1)).toBe(3);
  });
});
