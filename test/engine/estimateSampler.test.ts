/**
 * The samples that calibrate the merge estimate's P90 are taken by the runtime's sampler
 * (engine/runtime/estimateSampler.ts), not inside the queue's transactions: a queue simulated on the real engine runs
 * no forecast while the store's write is held (the play, estimateMerges, counted), and each PR's sample at readiness
 * and at the head is taken at most SAMPLE_INTERVAL_MS of the queue's clock after the PR got there. Its merged PRs are
 * scored, and none keeps a sample once it left.
 */
import { expect, test, vi } from 'vitest';
import { readScores } from '../../engine/estimate/index.js';
import { SAMPLE_INTERVAL_MS } from '../../engine/runtime/estimateSampler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store, WriteTx } from '../../engine/store/store.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { runQueue } from '../../sim/queueRun.js';
import { parseScenario } from '../../sim/scenario.js';

const forecasts = vi.hoisted(() => ({ writing: 0, insideWrite: 0, outside: 0 }));

vi.mock('../../engine/estimate/model.js', async (importOriginal) => {
  const model = await importOriginal<typeof import('../../engine/estimate/model.js')>();
  return {
    ...model,
    estimateMerges: (...args: Parameters<typeof model.estimateMerges>) => {
      if (forecasts.writing > 0) forecasts.insideWrite++;
      else forecasts.outside++;
      return model.estimateMerges(...args);
    },
  };
});

const scenario = parseScenario({
  name: 'sampled',
  hours: 4,
  arrivalsPerHour: 10,
  priorityMix: { medium: 1 },
  ci: { medianMinutes: 20, p90Minutes: 40 },
  brokenRate: 0.05,
  flakeRate: 0.02,
  configs: [{ name: 'current', concurrency: 3 }],
});

/** A memory store whose writes are counted while they run. */
function countedStore(): Store {
  const inner = createMemoryStore();
  return new Proxy(inner, {
    get(target, name) {
      if (name === 'write')
        return <R>(fn: (tx: WriteTx) => R): R => {
          forecasts.writing++;
          try {
            return target.write(fn);
          } finally {
            forecasts.writing--;
          }
        };
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('no forecast runs inside a queue transaction, and samples are taken within the interval', async () => {
  const store = countedStore();
  /** When each PR's entry (PullRequestRecord.id) was first seen ready and at the head, and its samples' moments. */
  const reached = new Map<string, { ready: number; head?: number }>();
  const sampled = new Map<string, { ready?: number; head?: number }>();
  let queueId = '';
  await runQueue({
    sampleEstimates: true,
    scenario,
    seed: 3,
    settings: { concurrency: 3 },
    arrivals: drawArrivals(scenario, 3),
    store,
    onStep: (engine, key) => {
      const now = engine.scheduler.now();
      const { queue, enqueued } = engine.getQueue(key);
      queueId = queue.id;
      const head = queue.runtime.lineup[0];
      for (const pr of enqueued) {
        if (!queue.runtime.lineup.includes(pr.number) || pr.readyAt === null) continue;
        const seen = reached.get(pr.id) ?? { ready: pr.readyAt };
        if (pr.number === head) seen.head ??= now;
        reached.set(pr.id, seen);
      }
      store.read((tx) => {
        for (const { value } of tx.scan('estimateSamples', { prefix: [queue.id] }))
          sampled.set(value.entry, { ready: value.ready?.t, head: value.head?.t });
      });
    },
  });

  expect(forecasts.insideWrite).toBe(0);
  expect(forecasts.outside).toBeGreaterThan(0);
  // Once the queue has seen CI runs (its first sample), every PR that got ready or to the head is sampled within the
  // interval; one that left the stage sooner may have none.
  const first = Math.min(...[...sampled.values()].flatMap(({ ready, head }) => [ready ?? Infinity, head ?? Infinity]));
  expect(first).toBeLessThan(Infinity);
  let lags = 0;
  for (const [entry, seen] of reached) {
    const sample = sampled.get(entry);
    for (const stage of ['ready', 'head'] as const) {
      const at = seen[stage];
      const t = sample?.[stage];
      if (at === undefined || at < first || t === undefined) continue;
      expect(t).toBeGreaterThanOrEqual(at);
      expect(t - at).toBeLessThanOrEqual(SAMPLE_INTERVAL_MS);
      lags++;
    }
  }
  expect(lags).toBeGreaterThan(reached.size);
  const scores = store.read((tx) => ({
    scores: readScores(tx, queueId),
    left: tx.count('estimateSamples', { prefix: [queueId] }),
  }));
  expect(scores.scores.ready.length).toBeGreaterThan(reached.size / 2);
  expect(scores.scores.head.length).toBeGreaterThan(reached.size / 4);
  expect(scores.left).toBe(0);
});
