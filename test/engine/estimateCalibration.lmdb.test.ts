/**
 * The record that calibrates the merge estimate's P90 (engine/estimate/calibrationRecord.ts) is kept in the store by
 * the queue's own transactions: a queue simulated on the real engine into an LMDB data folder scores its merged PRs'
 * estimates, keeps no sample of a PR once it left, and after the store is closed and opened again serves the same
 * calibrated P90, not the play's own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { factorOf, MIN_SCORES } from '../../engine/estimate/calibration.js';
import { estimateQueue, forecastQueue, type MergeEstimate, readScores } from '../../engine/estimate/index.js';
import type { PullRequestRecord } from '../../engine/model/pullRequests.js';
import type { QueueRecord } from '../../engine/model/queues.js';
import { openLmdbStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { runQueue } from '../../sim/queueRun.js';
import { parseScenario } from '../../sim/scenario.js';

const scenario = parseScenario({
  name: 'calibrated',
  hours: 4,
  arrivalsPerHour: 10,
  priorityMix: { medium: 1 },
  ci: { medianMinutes: 20, p90Minutes: 40 },
  brokenRate: 0.05,
  flakeRate: 0.02,
  configs: [{ name: 'current', concurrency: 3 }],
});

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-calibration-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The estimates, served and the play's, of two PRs placed at the end of the queue's line-up, just after its last run. */
function estimatesOf(store: Store) {
  return store.read((tx) => {
    const queue = [...tx.scan('queues')][0]!.value;
    const lastRun = Math.max(...[...tx.scan('metricsLog', { prefix: [queue.id] })].map(({ key }) => Number(key[1])));
    const now = lastRun + 1;
    const lined: QueueRecord = { ...queue, runtime: { ...queue.runtime, lineup: [9001, 9002] } };
    const enqueued = [9001, 9002].map(
      (number) =>
        ({ number, state: 'PENDING', runId: null, readyAt: now, group: null }) as unknown as PullRequestRecord,
    );
    const of = (estimate: typeof estimateQueue) => [...estimate(tx, lined, enqueued, () => undefined, now).entries()];
    return {
      queueId: queue.id,
      scores: readScores(tx, queue.id),
      samples: tx.count('estimateSamples', { prefix: [queue.id] }),
      served: of(estimateQueue),
      play: of(forecastQueue),
    };
  });
}

test('the calibration record survives a reopen of the LMDB store', async () => {
  const data = join(dir, 'data');
  const store = openLmdbStore({ dir: data });
  let before: ReturnType<typeof estimatesOf>;
  try {
    await runQueue({
      sampleEstimates: true,
      scenario,
      seed: 7,
      settings: { concurrency: 3 },
      arrivals: drawArrivals(scenario, 7),
      store,
    });
    before = estimatesOf(store);
  } finally {
    await store.close();
  }
  // Every PR merged or left: each merged one with an estimate at readiness was scored, and no sample is left.
  expect(before.scores.ready.length).toBeGreaterThanOrEqual(MIN_SCORES);
  expect(before.samples).toBe(0);
  expect(factorOf(before.scores.ready)).not.toBe(1);
  const p90s = (rows: [number, MergeEstimate][]) => rows.map(([, estimate]) => estimate.p90);
  expect(p90s(before.served)).not.toEqual(p90s(before.play));

  const reopened = openLmdbStore({ dir: data });
  try {
    const after = estimatesOf(reopened);
    expect(after.scores).toEqual(before.scores);
    expect(after.served).toEqual(before.served);
  } finally {
    await reopened.close();
  }
});
