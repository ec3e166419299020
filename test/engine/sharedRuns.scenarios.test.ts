/**
 * One main-line run for the PRs of a line that passed alone (queue policy 3, engine/planner/sharedRuns.ts): a PR
 * that passed alone waits for a PR it overlaps still in its first run alone, and one run on top of both merges both;
 * a PR in the base of a run in progress starts no run of its own. Under policy 2 each starts its own run.
 */
import { describe, expect, test } from 'vitest';
import { QUEUE_POLICY } from '../../engine/model/policy.js';
import type { QueuePatch } from '../../engine/model/queues.js';
import { SHARED_RUNS_POLICY } from '../../engine/planner/sharedRuns.js';
import { bases, enqueue, KEY, QueueHarness } from './queueHarness.js';

const SETTINGS: QueuePatch = { mode: 'parallel', concurrency: 8, parallelBases: 'direct', pendingFailureDepth: 1, canOptimisticallyMerge: true };

async function queue(policy: number, patch: QueuePatch = {}): Promise<QueueHarness> {
  const h = new QueueHarness();
  h.queueId = h.engine.createQueue(KEY, { requiredStatuses: ['ci'], ...SETTINGS, ...patch }, undefined, policy).id;
  await h.engine.settle();
  return h;
}

const mainRuns = (h: QueueHarness) => h.runs().filter((run) => run.kind === 'main');

describe('shared main-line runs of PRs that passed alone', () => {
  test('the current policy shares them', () => {
    expect(QUEUE_POLICY).toBeGreaterThanOrEqual(SHARED_RUNS_POLICY);
  });

  test('a PR that passed alone waits for its partner alone; one run on top of both merges both', async () => {
    const h = await queue(SHARED_RUNS_POLICY);
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'] });
    // 1 heads the line; 2 and 3 are tested alone first (1's outcome is open).
    expect(bases(h)).toEqual({ '1': [], '2': [], '3': [] });
    await h.pass(2);
    // 2 passed alone; 3, which it overlaps, is still in its first run alone: 2 waits for it.
    expect(h.states(2)).toEqual(['PENDING']);
    expect(mainRuns(h).map((run) => run.prs)).toEqual([[1]]);
    await h.pass(3);
    // One main-line run covers both: the later of them, on top of 1 and the other.
    const shared = mainRuns(h).filter((run) => run.status === 'in_progress' && run.prs[0] !== 1);
    expect(shared).toHaveLength(1);
    const [covering] = shared;
    const covered = covering?.prs[0] === 3 ? 2 : 3;
    expect(covering?.basePrs).toEqual([1, covered]);
    expect(h.states(covered)).toEqual(['PENDING']);
    await h.pass(1);
    await h.pass(covering?.prs[0] as number);
    expect([...h.mergeOrder()].sort()).toEqual([1, 2, 3]);
    expect(h.mergeOrder()[0]).toBe(1);
    // Two runs alone and two on the main line, for three merges (policy 2: three on the main line).
    expect(mainRuns(h)).toHaveLength(2);
    expect(h.runs().filter((run) => run.status === 'cancelled')).toHaveLength(0);
  });

  test('a covering run that fails leaves the PR it covered to start its own', async () => {
    const h = await queue(SHARED_RUNS_POLICY);
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'] });
    await h.pass(2);
    await h.pass(3);
    const covering = mainRuns(h).find((run) => run.status === 'in_progress' && run.prs[0] !== 1);
    const covered = covering?.prs[0] === 3 ? 2 : 3;
    await h.pass(1);
    await h.fail(covering?.prs[0] as number);
    // The failure waits for its base: the PR it covered is tested on its own now.
    expect(h.states(covered)).toEqual(['TESTING']);
    expect(h.runOf(covered).kind).toBe('main');
    await h.pass(covered);
    expect(h.mergeOrder().slice(0, 2)).toEqual([1, covered]);
  });

  test('under policy 2 each PR that passed alone starts its own run at once', async () => {
    const h = await queue(2);
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'] });
    await h.pass(2);
    expect(h.states(2)).toEqual(['TESTING']);
    expect(bases(h)['2']).toEqual([1]);
    await h.pass(3);
    expect(bases(h)['3']).toEqual([1, 2]);
    await h.pass(1);
    await h.pass(2);
    await h.pass(3);
    expect(h.mergeOrder()).toEqual([1, 2, 3]);
    expect(mainRuns(h)).toHaveLength(3);
  });

  test('without optimistic merge nothing is shared', async () => {
    const h = await queue(SHARED_RUNS_POLICY, { canOptimisticallyMerge: false });
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'] });
    await h.pass(2);
    expect(h.states(2)).toEqual(['TESTING']);
  });
});
