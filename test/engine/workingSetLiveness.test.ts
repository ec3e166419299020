/**
 * A working set is used only while the store still holds its version of the queue: a commit by another engine on the
 * same store (another process) makes the first engine read the queue record again, and rebuild its set, before it acts.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { newLikelihoodModel } from '../../engine/model/likelihoodModel.js';
import { newRuntime } from '../../engine/model/queues.js';
import { newBisection } from '../../engine/planner/bisectionMemory.js';
import { copyRuntime } from '../../engine/runtime/workingSet.js';
import { KEY, QueueHarness } from './queueHarness.js';
import { expectWorkingSetCurrent } from './workload.js';

describe('working set liveness', () => {
  it('sees commits made by another engine on the same store, and acts on them', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    expectWorkingSetCurrent(h);
    const before = h.engine.workingSetsOf(h.queueId).live;
    // Another process: its own engine over the same store (its effects are not run: only its commits matter here).
    const other = new Engine(h.store, { scheduler: h.scheduler });
    other.submitPullRequest(KEY, 3);
    other.cancelPullRequest(KEY, 1);
    const { pr: three } = h.engine.getSubmittedPullRequest(KEY, 3);
    expect(three.number).toBe(3);
    // The first engine's next transaction starts from the store's state, with PR 3 in and PR 1 out.
    h.engine.submitPullRequest(KEY, 4);
    await h.engine.settle();
    const live = h.engine.workingSetsOf(h.queueId).live;
    expect(live).not.toBe(before);
    expect(live?.queue.runtime.lineup.includes(1)).toBe(false);
    expect([...(live?.queue.runtime.waiting ?? []), ...(live?.queue.runtime.lineup ?? [])].sort()).toEqual(
      expect.arrayContaining([2, 3, 4]),
    );
    expectWorkingSetCurrent(h);
  });

  it('is not live once the event log holds an event past its version', async () => {
    const h = new QueueHarness();
    await h.create();
    await h.submit(1);
    const set = h.engine.workingSetsOf(h.queueId).live;
    expect(h.store.read((tx) => set?.liveIn(tx))).toBe(true);
    new Engine(h.store, { scheduler: h.scheduler }).submitPullRequest(KEY, 2);
    expect(h.store.read((tx) => set?.liveIn(tx))).toBe(false);
  });
});

describe('copyRuntime', () => {
  it('copies what a transaction changes in place, so the working set keeps its record as committed', () => {
    const runtime = {
      ...newRuntime(),
      lineup: [1, 2],
      waiting: [3],
      activeRuns: ['r1'],
      merged: [9],
      bisections: { b0: newBisection() },
      likelihood: newLikelihoodModel(),
    };
    const before = structuredClone(runtime);
    const copy = copyRuntime(runtime);
    copy.lineup.push(4);
    copy.waiting.splice(0, 1);
    copy.activeRuns.push('r2');
    copy.merged.push(10);
    copy.counters.event++;
    copy.bisections.b0?.merged.push(7);
    copy.bisections.b1 = newBisection();
    expect(runtime).toEqual(before);
    // The model is shared: training replaces it (transaction/likelihoodTx.ts), which leaves the original as it was.
    expect(copy.likelihood).toBe(runtime.likelihood);
  });
});
