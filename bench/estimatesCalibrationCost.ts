/**
 * What the calibration record (engine/estimate/calibrationRecord.ts) costs: at each moment a PR becomes ready or
 * reaches the head of the line-up, a forecast of the line-up (forecastQueue) was run inside the commit (issue-32f).
 * Measured in one simulation of the bundled example: that forecast's time, beside the time of serving the estimates at
 * the same moments (engine.estimates, what each listPullRequests, dashboard view or check-run update pays: the
 * forecast, its calibration and the read of the record), with their ratio; and how many forecasts the runtime's
 * sampler (runtime/estimateSampler.ts, at most one per queue per 30 s, outside the queue's transactions) took instead:
 * the distinct moments of the samples it wrote.
 *
 * `npx tsx bench/estimatesCalibrationCost.ts [--only 'lanes4:1'] [--hours H]`
 */
import { performance } from 'node:perf_hooks';
import { forecastQueue } from '../engine/estimate/index.js';
import { createMemoryStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import { exampleQueue } from './estimates.js';

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(workload: string, seed: number, hours: number) {
  const { run } = exampleQueue(workload, seed, hours);
  const seen = new Set<number>();
  let head: number | undefined;
  const sample: number[] = [];
  const served: number[] = [];
  let deepest = 0;
  const sampledAt = new Set<number>();
  await run((engine, key) => {
    const { queue, enqueued } = engine.getQueue(key);
    // The engine's reads go through its store, which it keeps to itself: a benchmark reaches in.
    const store = (engine as unknown as { store: Store }).store;
    store.read((tx) => {
      for (const { value } of tx.scan('estimateSamples', { prefix: [queue.id] }))
        for (const given of [value.ready, value.head]) if (given !== undefined) sampledAt.add(given.t);
    });
    const lineup = queue.runtime.lineup;
    const moment = lineup.some((number) => !seen.has(number)) || (lineup[0] !== undefined && lineup[0] !== head);
    for (const number of lineup) seen.add(number);
    head = lineup[0];
    if (!moment) return;
    deepest = Math.max(deepest, lineup.length);
    const now = engine.scheduler.now();
    let started = performance.now();
    store.read((tx) => forecastQueue(tx, queue, enqueued, (runId) => engine.testRun(queue.id, runId), now));
    sample.push(performance.now() - started);
    started = performance.now();
    engine.estimates(key);
    served.push(performance.now() - started);
  }, createMemoryStore());
  for (const list of [sample, served]) list.sort((a, b) => a - b);
  const sum = (list: number[]) => list.reduce((total, value) => total + value, 0);
  const figure = (list: number[]) =>
    `median ${quantile(list, 0.5).toFixed(1)} ms, p90 ${quantile(list, 0.9).toFixed(1)} ms, max ${list.at(-1)!.toFixed(1)} ms`;
  console.log(
    `${workload} seed ${seed}: ${sample.length} moments (${seen.size} PRs, line-up up to ${deepest}); ` +
      `forecast at commit ${figure(sample)}; serving the estimates ${figure(served)}; ` +
      `total ${(sum(sample) / 1000).toFixed(2)} s vs ${(sum(served) / 1000).toFixed(2)} s (${(sum(sample) / sum(served)).toFixed(2)}×); ` +
      `the sampler's forecasts: ${sampledAt.size} (${(sampledAt.size / sample.length).toFixed(2)} per moment)`,
  );
}

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const hours = Number(option('--hours') ?? 12);
for (const run of (option('--only') ?? 'lanes4:1 batch8:1 predictive4:1').split(' ')) {
  const [workload, seeds] = run.split(':');
  for (const seed of (seeds ?? '1').split(',')) await measure(workload!, Number(seed), hours);
}
