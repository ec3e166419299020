/**
 * A bisection group waits for a group of its own bisection being tested (one that could pass along with it) only while
 * the main line is quiet (queue policy 3, engine/planner/starts.ts siblingsWait). With a main-line run in flight the
 * base moves under both anyway, and the wait cost every PR of the waiting group a CI duration (bench:failures,
 * skip-redundant P90 126 → 148 min under policy 2). On a quiet queue, the closed forms' setting, it still waits.
 */
import { describe, expect, test } from 'vitest';
import { KEY, QueueHarness } from './queueHarness.js';

const settings = {
  requiredStatuses: ['ci'],
  batch: true,
  batchingMinSize: 4,
  concurrency: 1,
  bisectionConcurrency: 4,
  batchingMaxWaitTimeMinutes: 1,
  optimizationMode: 'bisection_skip_redundant_tests' as const,
};
const activeRuns = (h: QueueHarness) => h.activeRuns().map((run) => [run.kind, run.prs]);

async function queueOf(policy?: number): Promise<QueueHarness> {
  const h = new QueueHarness();
  h.queueId = h.engine.createQueue(KEY, settings, undefined, policy).id;
  await h.engine.settle();
  return h;
}

/** [1, 2, 3, 4] failed; its first half [1, 2] fails too, with `mainLine` submitted (and tested) meanwhile. */
async function firstHalfFails(h: QueueHarness, mainLine: number[]): Promise<void> {
  await h.submit(1, 2, 3, 4);
  await h.fail(1, 2, 3, 4);
  // Skip-redundant: the second half waits for the first.
  expect(activeRuns(h)).toEqual([['bisection', [1, 2]]]);
  if (mainLine.length > 0) {
    await h.submit(...mainLine);
    expect(activeRuns(h)).toEqual([
      ['bisection', [1, 2]],
      ['main', mainLine],
    ]);
  }
  await h.fail(1, 2);
}

describe('a group waits for its sibling only while the main line is quiet', () => {
  test('a main-line run in flight: the second half is tested beside the quarter at once', async () => {
    const h = await queueOf();
    await firstHalfFails(h, [5, 6, 7, 8]);
    expect(activeRuns(h)).toEqual([
      ['main', [5, 6, 7, 8]],
      ['bisection', [1]],
      ['bisection', [3, 4]],
    ]);
    // Both pass: [5..8] merges first, so neither pass stands and both are tested again; nothing merges untested.
    await h.pass(1);
    await h.pass(3, 4);
    await h.pass(5, 6, 7, 8);
    expect(h.mergeOrder().slice(0, 4)).toEqual([5, 6, 7, 8]);
  });

  test('under queue policy 2 the second half waited for the quarter whatever the main line did', async () => {
    const h = await queueOf(2);
    await firstHalfFails(h, [5, 6, 7, 8]);
    expect(activeRuns(h)).toEqual([
      ['main', [5, 6, 7, 8]],
      ['bisection', [1]],
    ]);
  });

  test('a quiet main line: the second half waits for the quarter, as the closed forms count', async () => {
    const h = await queueOf();
    await firstHalfFails(h, []);
    expect(activeRuns(h)).toEqual([['bisection', [1]]]);
    // #1 passes and merges: #2 is known to fail without a run (skip-redundant), and the second half is tested.
    await h.pass(1);
    expect(h.mergeOrder()).toEqual([1]);
    expect(h.states(2)).toEqual(['FAILED']);
    expect(activeRuns(h)).toEqual([['bisection', [3, 4]]]);
    await h.pass(3, 4);
    expect(h.mergeOrder()).toEqual([1, 3, 4]);
    // The batch, its halves, #1: the closed form's four runs, none tested twice.
    expect(h.runs().length).toBe(4);
  });
});
