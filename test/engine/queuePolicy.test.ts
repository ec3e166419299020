/**
 * The queue policy a queue was created under (engine/model/policy.ts): a new queue records the current one with its
 * `created` input, so its log replays under it; a `created` input without one (a log recorded before versions) makes
 * a queue of policy 1, which decides as before (the v1 fixtures of replayV1Logs.test.ts replay unchanged).
 */
import { expect, test } from 'vitest';
import { batchingMaxSizeOf } from '../../engine/model/queues.js';
import { QUEUE_POLICY } from '../../engine/model/policy.js';
import { KEY, QueueHarness } from './queueHarness.js';

const settings = {
  requiredStatuses: ['ci'],
  batch: true,
  batchingMinSize: 2,
  batchingMaxWaitTimeMinutes: 1,
  concurrency: 1,
  bisectionConcurrency: 1,
};

async function queueOf(policy: number | null): Promise<QueueHarness> {
  const h = new QueueHarness();
  h.queueId =
    policy === QUEUE_POLICY
      ? h.engine.createQueue(KEY, settings).id
      : h.engine.createQueue(KEY, settings, undefined, policy).id;
  await h.engine.settle();
  return h;
}

const activeRuns = (h: QueueHarness) => h.activeRuns().map((run) => [run.kind, run.prs]);

test('a new queue records the current policy with its created input and runs one pool of CI slots', async () => {
  const h = await queueOf(QUEUE_POLICY);
  expect(h.engine.eventLog(h.queueId)[0]?.input).toMatchObject({ type: 'created', policy: QUEUE_POLICY });
  // Batches grow only where batchingMaxSize is set (planner/batches.ts): absent, the largest is batchingMinSize.
  expect(batchingMaxSizeOf(h.engine.getQueue(KEY).queue)).toBe(2);
  await h.submit(1, 2);
  await h.fail(1, 2);
  // A pool of concurrency 1 + bisectionConcurrency 1, the main line idle: both halves are tested at once.
  expect(activeRuns(h)).toEqual([
    ['bisection', [1]],
    ['bisection', [2]],
  ]);
});

test('a queue created without a recorded policy (a log recorded before versions) keeps policy 1: a bisection pool of its own', async () => {
  const h = await queueOf(null);
  expect(h.engine.eventLog(h.queueId)[0]?.input).not.toHaveProperty('policy');
  expect(batchingMaxSizeOf(h.engine.getQueue(KEY).queue)).toBe(2);
  await h.submit(1, 2);
  await h.fail(1, 2);
  expect(activeRuns(h)).toEqual([['bisection', [1]]]);
});
