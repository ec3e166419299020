/** The failure policy (engine/planner/failures.ts, failurePolicy.ts, bisectionMemory.ts), one rule per scenario, on a virtual clock. */
import { describe, expect, test } from 'vitest';
import { KEY, QueueHarness } from './queueHarness.js';

const activeRuns = (h: QueueHarness) => h.activeRuns().map((run) => [run.kind, run.prs, run.basePrs]);

describe('a failed batch leaves the main line', () => {
  test('the PRs behind it are retested without it at once; its halves are tested on the known-good line', async () => {
    const h = new QueueHarness();
    await h.create({
      batch: true,
      batchingMinSize: 2,
      concurrency: 2,
      bisectionConcurrency: 2,
      batchingMaxWaitTimeMinutes: 1,
    });
    await h.submit(1, 2, 3, 4);
    expect(activeRuns(h)).toEqual([
      ['main', [1, 2], []],
      ['main', [3, 4], [1, 2]],
    ]);
    await h.fail(1, 2);
    // One failure, one reset: [3, 4] restarts on the target without [1, 2]; the halves of [1, 2] do not stack.
    expect(activeRuns(h)).toEqual([
      ['main', [3, 4], []],
      ['bisection', [1], []],
      ['bisection', [2], []],
    ]);
    expect(h.runs().find((run) => run.prs.join() === '3,4' && run.basePrs.join() === '1,2')?.status).toBe('cancelled');
  });

  test('a pass off the main line that costs no more than a second run stands: it merges on that run, and the run behind it is tested again on top of it', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2, pendingFailureDepth: 1 });
    await h.submit(1);
    await h.fail(1);
    // Nothing behind #1 can vouch for it: it is retested alone, off the main line, and #2 goes on without it.
    await h.submit(2);
    expect(activeRuns(h)).toEqual([
      ['bisection', [1], []],
      ['main', [2], []],
    ]);
    await h.pass(1);
    // Testing #1 again would cost a run, as does testing #2 again on top of it: #1, the older, merges on its retest.
    expect(h.states(1)).toEqual(['MERGED']);
    expect(h.runs().filter((run) => run.prs.includes(1))).toHaveLength(2);
    expect(activeRuns(h)).toEqual([['main', [2], [1]]]);
    await h.pass(2);
    expect(h.mergeOrder()).toEqual([1, 2]);
  });

  test('a good group whose pass would cost more runs behind it than its share of a batch returns behind the runs in progress, and is tested again on top of them', async () => {
    const h = new QueueHarness();
    await h.create({
      batch: true,
      batchingMinSize: 2,
      batchingMaxSize: 2,
      concurrency: 2,
      bisectionConcurrency: 2,
      batchingMaxWaitTimeMinutes: 1,
    });
    await h.submit(1, 2, 3, 4, 5, 6);
    await h.fail(1, 2);
    expect(activeRuns(h)).toEqual([
      ['main', [3, 4], []],
      ['main', [5, 6], [3, 4]],
      ['bisection', [1], []],
      ['bisection', [2], []],
    ]);
    await h.submit(7);
    await h.pass(1);
    // Standing would cost the two runs behind it, testing #1 again half a batch: #1 goes behind them, ahead of #7
    // (waiting), and is tested again.
    expect(h.engine.getQueue(KEY).queue.runtime.lineup).toEqual([2, 3, 4, 5, 6, 1, 7]);
    await h.fail(2);
    await h.pass(3, 4);
    await h.pass(5, 6);
    await h.advanceMinutes(1);
    expect(h.runOf(1, 7).basePrs).toEqual([3, 4, 5, 6]);
    await h.pass(1, 7);
    expect(h.mergeOrder()).toEqual([3, 4, 5, 6, 1, 7]);
  });

  test('a good group merges on its bisection run when nothing changed under it', async () => {
    const h = new QueueHarness();
    await h.create({ batch: true, batchingMinSize: 4, concurrency: 1, bisectionConcurrency: 2 });
    await h.submit(1, 2, 3, 4);
    await h.fail(1, 2, 3, 4);
    await h.pass(1, 2);
    expect(h.states(1, 2)).toEqual(['MERGED', 'MERGED']);
    expect(h.runs().filter((run) => run.prs.includes(1))).toHaveLength(2);
  });
});

describe('bisection_skip_redundant_tests', () => {
  const skip = {
    batch: true,
    batchingMinSize: 4,
    concurrency: 1,
    bisectionConcurrency: 4,
    optimizationMode: 'bisection_skip_redundant_tests' as const,
  };

  test('a single PR known to fail without a run is the culprit; the last PR of a batch is never tested alone', async () => {
    const h = new QueueHarness();
    await h.create(skip);
    await h.submit(1, 2, 3, 4);
    await h.fail(1, 2, 3, 4);
    await h.pass(1, 2);
    expect(activeRuns(h)).toEqual([['bisection', [3], []]]);
    await h.pass(3);
    expect(h.states(1, 2, 3, 4)).toEqual(['MERGED', 'MERGED', 'MERGED', 'FAILED']);
    expect(h.runs().some((run) => run.prs.join() === '4')).toBe(false);
    expect(h.pr(4).reason).toContain('known to fail without a run');
  });

  test('when the first half fails too, the second is tested: it may hold another culprit', async () => {
    const h = new QueueHarness();
    await h.create(skip);
    await h.submit(1, 2, 3, 4);
    await h.fail(1, 2, 3, 4);
    await h.fail(1, 2);
    // [1] is tested first: [3, 4] could pass along with it, and the first to merge would move the base the other
    // was tested on, so [3, 4] waits for its verdict (as the closed form counts: one group after another).
    expect(activeRuns(h).map(([, prs]) => prs)).toEqual([[1]]);
    await h.pass(1);
    // [2] is known to fail without a run; [3, 4] is tested on top of [1], which merged.
    expect(h.states(1, 2)).toEqual(['MERGED', 'FAILED']);
    expect(activeRuns(h)).toEqual([['bisection', [3, 4], []]]);
  });

  test('a cached failure is forgotten when the base changes: nothing is inferred on another base', async () => {
    const h = new QueueHarness();
    await h.create(skip);
    await h.submit(1, 2, 3, 4);
    await h.fail(1, 2, 3, 4);
    // An urgent PR goes ahead of the bisection: [1, 2] is tested again on top of it.
    h.engine.submitPullRequest(KEY, 9, { priority: 'urgent', noBatch: true });
    await h.engine.settle();
    expect(activeRuns(h)).toEqual([
      ['main', [9], []],
      ['bisection', [1, 2], [9]],
    ]);
    await h.pass(1, 2);
    // [1, 2] passed on [9], not on the base [1, 2, 3, 4] failed on: [3, 4] is tested, not inferred.
    expect(activeRuns(h).filter(([kind]) => kind === 'bisection')).toEqual([['bisection', [3, 4], [9]]]);
    expect(h.states(3, 4)).toEqual(['TESTING', 'TESTING']);
  });
});

describe('one failure, one reset', () => {
  test('a run that fails on top of a PR that failed first is not blamed: its PR is tested again without it', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true });
    await h.submit(1, 2);
    await h.fail(1);
    await h.fail(2);
    // #2 failed with #1 in its base: it waits in PENDING, not PENDING_FAILURE, and goes on without #1.
    const requeued = h.timeline().filter((entry) => entry.key[1] === 2 && entry.value.event === 'requeued');
    expect(requeued.map((entry) => entry.value.message).join()).toContain('#1 in its base, which had failed first');
    expect(h.timeline().some((entry) => entry.key[1] === 2 && entry.value.event === 'pending_failure')).toBe(false);
    expect(h.runOf(2).basePrs).toEqual([]);
    expect(h.runs().filter((run) => run.prs.join() === '2')).toHaveLength(2);
  });

  test('a failure behind a PR still testing: the PRs behind go on without it, and it is kicked only once the PR ahead passed', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 3 });
    await h.submit(1, 2, 3);
    await h.fail(2);
    expect(h.states(1, 2, 3)).toEqual(['TESTING', 'PENDING_FAILURE', 'TESTING']);
    expect(h.runOf(3).basePrs).toEqual([1]);
    await h.pass(1);
    expect(h.states(1, 2)).toEqual(['MERGED', 'FAILED']);
  });

  test('if the PR ahead fails too, the later failure is retested, not kicked', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 3 });
    await h.submit(1, 2, 3);
    await h.fail(2);
    await h.fail(1);
    expect(h.states(1, 2, 3)).toEqual(['FAILED', 'TESTING', 'TESTING']);
    expect(h.runOf(3).basePrs).toEqual([2]);
  });
});

describe('anti-flake protection when nothing behind can vouch', () => {
  test('the last PR of the queue is retested alone before it is kicked, and merges when a retest passes', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true });
    await h.submit(1);
    await h.fail(1);
    expect(activeRuns(h)).toEqual([['bisection', [1], []]]);
    await h.pass(1);
    expect(h.states(1)).toEqual(['MERGED']);
  });

  test('it is kicked once depth + 1 further runs failed', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2, pendingFailureDepth: 1 });
    await h.submit(1);
    await h.fail(1);
    await h.fail(1);
    expect(h.states(1)).toEqual(['TESTING']);
    await h.fail(1);
    expect(h.states(1)).toEqual(['FAILED']);
    expect(h.runs()).toHaveLength(3);
  });

  test('in parallel mode, the head of a lane with nothing behind it is retested too', async () => {
    const h = new QueueHarness();
    await h.create({ mode: 'parallel', concurrency: 4, pendingFailureDepth: 1, canOptimisticallyMerge: true });
    await h.submit(1, 2);
    await h.targets(1, ['//a']);
    await h.targets(2, ['//b']);
    await h.fail(1);
    expect(activeRuns(h)).toEqual([
      ['main', [2], []],
      ['bisection', [1], []],
    ]);
    await h.pass(1);
    await h.pass(2);
    expect(h.states(1, 2)).toEqual(['MERGED', 'MERGED']);
  });
});
