/**
 * A PR being merged cannot be cancelled: the PR machine's guard, not a check in a handler. The API's cancel and
 * restart are refused, and a run of the PR that ends without a verdict while its merge is under way (an optimistic
 * merge, vouched for by a run behind it, asked while its own run was still testing) leaves it waiting for the git
 * host's answer instead of cancelling it. (Before the guard, it was cancelled, and the host's answer then failed its
 * transaction: "pullRequest in state CANCELLED does not accept MERGE", although the host had merged it.)
 */
import { expect, test } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { EngineError } from '../../engine/model/errors.js';
import type { Scheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { KEY } from './queueHarness.js';

class Clock implements Scheduler {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
  schedule(): void {}
  cancel(): void {}
  clear(): void {}
}

test('an optimistic merge under way survives its own run timing out, and completes', () => {
  const clock = new Clock(Date.parse('2026-11-22T00:00:00.000Z'));
  const engine = new Engine(createMemoryStore(), {
    scheduler: clock,
    holdEffects: true,
    onError: (message, error) => {
      throw new Error(`${message}: ${String(error)}`);
    },
  });
  engine.start();
  const queueId = engine.createQueue(KEY, {
    requiredStatuses: ['ci'],
    concurrency: 2,
    canOptimisticallyMerge: true,
    testingTimeoutMinutes: 30,
  }).id;
  engine.replayInput(queueId, { type: 'targetHead', sha: 'a'.repeat(40) });
  for (const number of [1, 2]) {
    engine.submitPullRequest(KEY, number);
    const entryId = engine.getSubmittedPullRequest(KEY, number).pr.id;
    engine.replayInput(queueId, {
      type: 'prChecked',
      number,
      entryId,
      facts: {
        title: `#${number}`,
        author: 'ann',
        sha: String(number).repeat(40),
        baseBranch: 'main',
        mergeable: true,
        upToDate: false,
      },
    });
  }
  const runOf = (number: number) => engine.getSubmittedPullRequest(KEY, number).pr.runId as string;
  for (const number of [1, 2]) {
    engine.replayInput(queueId, {
      type: 'branchBuilt',
      runId: runOf(number),
      result: { ok: true, branch: `greenline/main/${runOf(number)}`, sha: `${number}b`.repeat(20) },
    });
  }
  // The run of 2 (on top of 1) passes: it vouches for 1, whose own run is still testing.
  engine.replayInput(queueId, {
    type: 'status',
    runId: runOf(2),
    context: 'ci',
    state: 'success',
    url: '',
    description: '',
  });
  expect(engine.getSubmittedPullRequest(KEY, 1).pr).toMatchObject({
    state: 'TESTING',
    mergeRequested: true,
    mergedBy: runOf(2),
  });
  expect(() => engine.cancelPullRequest(KEY, 1)).toThrow(EngineError);
  expect(() => engine.restartTestsOnPullRequest(KEY, 1)).toThrow(/being merged/);

  // Its own run times out: it waits for the merge's answer (in PENDING), it is not cancelled.
  const own = runOf(1);
  clock.time += 31 * 60_000;
  engine.replayInput(queueId, { type: 'timer', name: `run:${own}` });
  expect(engine.getTestRun(KEY, own).run.status).toBe('cancelled');
  expect(engine.getSubmittedPullRequest(KEY, 1).pr).toMatchObject({ state: 'PENDING', mergeRequested: true });

  const entryId = engine.getSubmittedPullRequest(KEY, 1).pr.id;
  engine.replayInput(queueId, { type: 'merged', number: 1, entryId, result: { ok: true, head: '1b'.repeat(20) } });
  expect(engine.getSubmittedPullRequest(KEY, 1).pr).toMatchObject({
    state: 'MERGED',
    mergeRequested: false,
    mergedBy: runOf(2),
  });
  engine.stop();
});
