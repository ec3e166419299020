/**
 * Main-line runs shared by the PRs that passed alone (queue policy 4, engine/planner/partners.ts): with optimistic
 * merge a passing run decides every PR of its base, so a PR that passed alone waits for a partner still in its run
 * alone, and one run covers both.
 */
import { describe, expect, test } from 'vitest';
import { QUEUE_POLICY } from '../../engine/model/policy.js';
import { enqueue, KEY, QueueHarness } from './queueHarness.js';

async function queue(policy: number): Promise<QueueHarness> {
  const h = new QueueHarness();
  const settings = {
    requiredStatuses: ['ci'],
    mode: 'parallel' as const,
    concurrency: 8,
    parallelBases: 'direct' as const,
    canOptimisticallyMerge: true,
  };
  h.queueId = h.engine.createQueue(KEY, settings, undefined, policy).id;
  await h.engine.settle();
  return h;
}

/** The main-line runs: PRs under test on top of their base. */
const mainRuns = (h: QueueHarness) =>
  h
    .runs()
    .filter((run) => run.kind === 'main')
    .map((run) => `${run.prs.join('+')} on [${run.basePrs.join(',')}] ${run.status}`);

describe('PRs that passed alone share a main-line run', () => {
  test('a PR that passed alone waits for a partner still alone; one run on top of both decides them', async () => {
    const h = await queue(QUEUE_POLICY);
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'] });
    // 1 heads the line; 2 and 3 rest on its open outcome: each is tested alone first.
    expect(h.runOf(2).kind).toBe('bisection');
    expect(h.runOf(3).kind).toBe('bisection');
    await h.pass(2);
    // 3 is still alone and overlaps 2: 2 starts no run of its own.
    expect(h.states(2)).toEqual(['PENDING']);
    expect(mainRuns(h)).toEqual(['1 on [] in_progress']);
    await h.pass(3);
    // 3 is back behind 2 in its line: its run covers both, and 2 still starts none.
    expect(mainRuns(h)).toEqual(['1 on [] in_progress', '3 on [1,2] in_progress']);
    await h.pass(1);
    await h.pass(3);
    expect(h.mergeOrder()).toEqual([1, 2, 3]);
    expect(mainRuns(h)).toHaveLength(2);
  });

  test('under queue policy 3 each PR that passed alone starts a run of its own', async () => {
    const h = await queue(3);
    await enqueue(h, { 1: ['//x'], 2: ['//x'], 3: ['//x'] });
    await h.pass(2);
    expect(h.states(2)).toEqual(['TESTING']);
    await h.pass(3);
    expect(mainRuns(h)).toEqual(['1 on [] in_progress', '2 on [1] in_progress', '3 on [1,2] in_progress']);
  });
});
