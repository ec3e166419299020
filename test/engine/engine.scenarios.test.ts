/** The single-mode semantics of the spec and the addendum, one scenario each, on a virtual clock. */
import { describe, expect, test } from 'vitest';
import { KEY, QueueHarness } from './queueHarness.js';

describe('predictive testing', () => {
  test('each PR is tested on top of the ones ahead; a failure ahead retests the ones behind without it', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 3 });
    await h.submit(1, 2, 3);
    expect(h.activeRuns().map((run) => [run.prs, run.basePrs])).toEqual([
      [[1], []],
      [[2], [1]],
      [[3], [1, 2]],
    ]);
    await h.pass(3);
    expect(h.states(1, 2, 3)).toEqual(['TESTING', 'TESTING', 'TESTS_PASSED']);
    await h.fail(1);
    // 1 is kicked (nothing ahead of it); 2 and 3 are rescheduled on a base without it.
    expect(h.states(1, 2, 3)).toEqual(['FAILED', 'TESTING', 'TESTING']);
    expect(h.runOf(3).basePrs).toEqual([2]);
    await h.pass(2);
    await h.pass(3);
    expect(h.mergeOrder()).toEqual([2, 3]);
    expect(h.pr(1).reason).toContain('required status ci reported failure');
  });

  test('a failed PR waits in PENDING_FAILURE while a PR ahead may still be the cause', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    await h.fail(2);
    expect(h.states(1, 2)).toEqual(['TESTING', 'PENDING_FAILURE']);
    await h.pass(1);
    expect(h.states(1, 2)).toEqual(['MERGED', 'FAILED']);
  });

  test('when the PR ahead also failed, the one behind is retested without it', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    await h.fail(2);
    await h.fail(1);
    expect(h.states(1, 2)).toEqual(['FAILED', 'TESTING']);
    expect(h.runOf(2).basePrs).toEqual([]);
  });

  test('concurrency bounds the runs in progress', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2, 3, 4);
    expect(h.activeRuns()).toHaveLength(2);
    await h.pass(1);
    expect(h.activeRuns().map((run) => run.prs)).toEqual([[2], [3]]);
  });
});

describe('batching and bisection', () => {
  test('a batch forms at batchingMinSize, or when the oldest has waited batchingMaxWaitTimeMinutes', async () => {
    const h = new QueueHarness();
    await h.create({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 10 });
    await h.submit(1, 2);
    expect(h.activeRuns()).toHaveLength(0);
    await h.advanceMinutes(9);
    expect(h.activeRuns()).toHaveLength(0);
    await h.advanceMinutes(1);
    expect(h.runOf(1, 2).prs).toEqual([1, 2]);
    await h.submit(3, 4, 5);
    await h.pass(1, 2);
    // Predictive: the next batch starts on top of the passed one while it merges.
    expect(h.runOf(3, 4, 5).basePrs).toEqual([1, 2]);
    expect(h.mergeOrder()).toEqual([1, 2]);
  });

  test('a failed batch is bisected in halves, each on the known-good line, and only the culprit is kicked', async () => {
    const h = new QueueHarness();
    await h.create({ batch: true, batchingMinSize: 4, bisectionConcurrency: 2 });
    await h.submit(1, 2, 3, 4);
    await h.fail(1, 2, 3, 4);
    // Neither half is tested on top of the other, which is not proven.
    expect(h.activeRuns().map((run) => [run.kind, run.prs, run.basePrs])).toEqual([
      ['bisection', [1, 2], []],
      ['bisection', [3, 4], []],
    ]);
    await h.pass(1, 2);
    await h.fail(3, 4);
    await h.pass(3);
    await h.fail(4);
    expect(h.states(1, 2, 3, 4)).toEqual(['MERGED', 'MERGED', 'MERGED', 'FAILED']);
    expect(h.mergeOrder()).toEqual([1, 2, 3]);
  });

  test('bisection_skip_redundant_tests infers that the second half fails when the first passes', async () => {
    const run = async (optimizationMode: 'off' | 'bisection_skip_redundant_tests') => {
      const h = new QueueHarness();
      await h.create({ batch: true, batchingMinSize: 4, bisectionConcurrency: 2, optimizationMode });
      await h.submit(1, 2, 3, 4);
      await h.fail(1, 2, 3, 4);
      // With skip-redundant the second half waits for the first: [1, 2] passing says that [3, 4] fails.
      expect(h.activeRuns().map((run) => run.prs)).toEqual(
        optimizationMode === 'off'
          ? [
              [1, 2],
              [3, 4],
            ]
          : [[1, 2]],
      );
      await h.pass(1, 2);
      if (optimizationMode === 'off') await h.fail(3, 4);
      await h.pass(3);
      if (optimizationMode === 'off') await h.fail(4);
      expect(h.states(1, 2, 3, 4)).toEqual(['MERGED', 'MERGED', 'MERGED', 'FAILED']);
      return h.runs().length;
    };
    expect(await run('off')).toBe(5);
    expect(await run('bisection_skip_redundant_tests')).toBe(3);
  });

  test('noBatch PRs test alone', async () => {
    const h = new QueueHarness();
    await h.create({ batch: true, batchingMinSize: 2 });
    h.engine.submitPullRequest(KEY, 1, { noBatch: true });
    await h.engine.settle();
    expect(h.runOf(1).prs).toEqual([1]);
  });
});

describe('anti-flake protection', () => {
  test('with pendingFailureDepth and optimistic merge, a passing run behind vouches for a failed PR', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true });
    await h.submit(1, 2);
    await h.fail(1);
    expect(h.states(1, 2)).toEqual(['PENDING_FAILURE', 'TESTING']);
    await h.pass(2);
    expect(h.states(1, 2)).toEqual(['MERGED', 'MERGED']);
    expect(h.pr(1).mergedBy).toBe(h.pr(2).runId);
  });

  test('without optimistic merge a passing run behind cannot vouch; the failed PR is retested alone, and kicked once it fails again twice', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2, pendingFailureDepth: 1 });
    await h.submit(1, 2);
    await h.fail(1);
    await h.pass(2);
    // Its depth of runs behind ended: #2 goes on without it, and #1 is retested off the main line.
    expect(h.states(1, 2)).toEqual(['TESTING', 'TESTING']);
    expect(h.runOf(2).basePrs).toEqual([]);
    expect([h.runOf(1).kind, h.runOf(1).basePrs]).toEqual(['bisection', []]);
    await h.fail(1);
    await h.fail(1);
    expect(h.states(1)).toEqual(['FAILED']);
    await h.pass(2);
    expect(h.mergeOrder()).toEqual([2]);
  });

  test('optimistic merge alone: a passing run behind merges the PRs ahead still testing', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2, canOptimisticallyMerge: true });
    await h.submit(1, 2);
    await h.pass(2);
    expect(h.states(1, 2)).toEqual(['MERGED', 'MERGED']);
    expect(h.runs().find((run) => run.prs.join() === '1')?.status).toBe('cancelled');
  });
});

describe('priorities', () => {
  test('a higher priority starts before lower ones not yet testing; urgent interrupts runs in progress', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 1 });
    await h.submit(1, 2, 3);
    h.engine.submitPullRequest(KEY, 4, { priority: 'high' });
    await h.engine.settle();
    expect(h.engine.getQueue(KEY).enqueued.map((pr) => pr.number)).toEqual([1, 4, 2, 3]);
    expect(h.states(1)).toEqual(['TESTING']);
    h.engine.submitPullRequest(KEY, 5, { priority: 'urgent' });
    await h.engine.settle();
    expect(h.states(5, 1)).toEqual(['TESTING', 'PENDING']);
    await h.pass(5);
    await h.pass(1);
    await h.pass(4);
    expect(h.mergeOrder()).toEqual([5, 1, 4]);
  });
});

describe('cancel, restart, resubmit, timeout', () => {
  test('restart re-runs the PR on the same base without restarting the PRs behind; the replaced run reads cancelled', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    const first = h.runOf(1);
    const behind = h.runOf(2);
    h.engine.restartTestsOnPullRequest(KEY, 1);
    await h.engine.settle();
    expect(h.runs().find((run) => run.id === first.id)?.status).toBe('cancelled');
    expect(h.runOf(1).id).not.toBe(first.id);
    expect(h.runOf(2).id).toBe(behind.id);
  });

  test('cancel removes a PR; the runs behind it are retested without it', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    h.engine.cancelPullRequest(KEY, 1);
    await h.engine.settle();
    expect(h.states(1, 2)).toEqual(['CANCELLED', 'TESTING']);
    expect(h.runOf(2).basePrs).toEqual([]);
  });

  test('a run past testingTimeoutMinutes is cancelled and its PRs with it', async () => {
    const h = new QueueHarness();
    await h.create({ testingTimeoutMinutes: 30 });
    await h.submit(1, 2);
    await h.advanceMinutes(29);
    expect(h.states(1)).toEqual(['TESTING']);
    await h.advanceMinutes(1);
    expect(h.states(1, 2)).toEqual(['CANCELLED', 'TESTING']);
    expect(h.pr(1).reason).toContain('testing timeout');
  });

  test('submitting a queued PR again updates it without a second entry; after it left, it enters anew', async () => {
    const h = new QueueHarness();
    await h.create({ state: 'paused' });
    await h.submit(1, 1);
    const id = h.pr(1).id;
    expect(h.engine.getQueue(KEY).enqueued).toHaveLength(1);
    h.engine.cancelPullRequest(KEY, 1);
    await h.submit(1);
    expect(h.pr(1).id).not.toBe(id);
    expect(h.states(1)).toEqual(['PENDING']);
  });
});

describe('queue states and direct merge', () => {
  test('paused: nothing starts and nothing merges; running resumes', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1);
    await h.update({ state: 'paused' });
    await h.submit(2);
    await h.pass(1);
    expect(h.states(1, 2)).toEqual(['TESTS_PASSED', 'PENDING']);
    await h.update({ state: 'running' });
    expect(h.states(1, 2)).toEqual(['MERGED', 'TESTING']);
  });

  test('draining: refuses submissions, finishes runs, merges, then pauses', async () => {
    const h = new QueueHarness();
    await h.create();
    await h.submit(1, 2);
    await h.update({ state: 'draining' });
    expect(() => h.engine.submitPullRequest(KEY, 3)).toThrow(/draining/);
    await h.pass(1);
    expect(h.states(1, 2)).toEqual(['MERGED', 'PENDING']);
    expect(h.engine.getQueue(KEY).queue.state).toBe('paused');
  });

  test('a mode change waits in switching_modes for runs in flight, then applies', async () => {
    const h = new QueueHarness();
    await h.create();
    await h.submit(1, 2);
    await h.update({ mode: 'parallel' });
    expect(h.engine.getQueue(KEY).queue).toMatchObject({ state: 'switching_modes', settings: { mode: 'single' } });
    await h.pass(1);
    expect(h.engine.getQueue(KEY).queue).toMatchObject({ state: 'running', settings: { mode: 'parallel' } });
    expect(h.states(1, 2)).toEqual(['MERGED', 'TESTING']);
  });

  test('directMergeMode always merges an up-to-date PR with nothing ahead without a run', async () => {
    const h = new QueueHarness();
    await h.create({ directMergeMode: 'always' });
    await h.submit(1);
    expect(h.states(1)).toEqual(['MERGED']);
    expect(h.runs()).toHaveLength(0);
  });
});

describe('restore', () => {
  test('a deadline that passed while the engine was down fires when it starts again', async () => {
    const h = new QueueHarness();
    await h.create({ testingTimeoutMinutes: 30 });
    await h.submit(1);
    expect(h.states(1)).toEqual(['TESTING']);
    h.engine.stop(); // down: nothing fires while the clock moves past the run's deadline
    h.scheduler.advanceBy(31 * 60_000);
    await h.crashAndRestore();
    expect(h.states(1)).toEqual(['CANCELLED']);
    expect(h.pr(1).reason).toContain('no result before the testing timeout');
  });
});
