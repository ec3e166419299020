/**
 * A PR whose pass could not stand (a group a bisection found good, tested again because the main line moved) waits for
 * a batch anew under queue policy 3 (engine/transaction/moves.ts requeue): it joins the PRs arriving instead of
 * starting a batch at once because its first wait ran out long ago, which split the new PRs into small batches.
 */
import { expect, test } from 'vitest';
import { KEY, QueueHarness } from './queueHarness.js';

const settings = { requiredStatuses: ['ci'], batch: true, batchingMinSize: 2, batchingMaxSize: 2, concurrency: 1, bisectionConcurrency: 2, batchingMaxWaitTimeMinutes: 30 };
const activeRuns = (h: QueueHarness) => h.activeRuns().map((run) => [run.kind, run.prs]);

/** #1 found good by a bisection waits behind [3, 4], which pass 35 minutes later: #1 is tested again. */
async function passThatCannotStand(policy?: number): Promise<QueueHarness> {
  const h = new QueueHarness();
  h.queueId = h.engine.createQueue(KEY, settings, undefined, policy).id;
  await h.engine.settle();
  await h.submit(1, 2);
  await h.fail(1, 2);
  await h.submit(3, 4);
  await h.pass(1);
  await h.fail(2);
  await h.advanceMinutes(35);
  await h.pass(3, 4);
  expect(h.mergeOrder()).toEqual([3, 4]);
  return h;
}

test('tested again, it waits for a batch to fill from then on, and takes the next PR with it', async () => {
  const h = await passThatCannotStand();
  expect(activeRuns(h)).toEqual([]);
  await h.submit(5);
  expect(activeRuns(h)).toEqual([['main', [1, 5]]]);
  await h.pass(1, 5);
  expect(h.mergeOrder()).toEqual([3, 4, 1, 5]);
});

test('alone, it waits at most batchingMaxWaitTimeMinutes from then on', async () => {
  const h = await passThatCannotStand();
  await h.advanceMinutes(29);
  expect(activeRuns(h)).toEqual([]);
  await h.advanceMinutes(1);
  expect(activeRuns(h)).toEqual([['main', [1]]]);
});

test('under queue policy 2 it started a batch at once, alone', async () => {
  const h = await passThatCannotStand(2);
  expect(activeRuns(h)).toEqual([['main', [1]]]);
});
