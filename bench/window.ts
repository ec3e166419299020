/**
 * The adaptive window against fixed windows (issue 22), on the workloads of the failure-policy bench: for each, every
 * fixed window of the grid (powers of two up to the workload's concurrency) and the adaptive window (floor 1, up to
 * that concurrency), on the same arrivals. Prints P50, merges per hour and runs per change, and the adaptive row's
 * ratios against the best fixed window by P50 and against the fixed window with the fewest runs per change.
 * `npm run bench:window [-- --seed N]`.
 */
import { pathToFileURL } from 'node:url';
import { drawArrivals } from '../sim/arrivals.js';
import { runQueue } from '../sim/queueRun.js';
import { parseScenario } from '../sim/scenario.js';
import type { QueuePatch } from '../engine/model/queues.js';
import { figuresOf, WORKLOADS, type Figures } from './failures.js';

const windowsUpTo = (limit: number) => {
  const grid: number[] = [];
  for (let w = 1; w < limit; w *= 2) grid.push(w);
  return [...grid, limit];
};

export async function benchWindow(seed = 1): Promise<{ workload: string; adaptive: Figures; bestP50: Figures; worse: boolean }[]> {
  console.log(`\nAdaptive window vs fixed windows (seed ${seed}; failure-policy workloads with concurrency > 1)`);
  const results = [];
  for (const workload of WORKLOADS) {
    for (const config of workload.configs) {
      const limit = config.settings.concurrency ?? 1;
      if (limit <= 1) continue;
      const scenario = parseScenario({ ...workload.scenario, seed, configs: [{ name: config.name, ...config.settings }] });
      const arrivals = drawArrivals(scenario, seed);
      console.log(`\n${workload.name} — ${config.name} (${arrivals.length} PRs)`);
      console.log(`${'window'.padEnd(14)} ${'p50'.padStart(6)} ${'p90'.padStart(6)} ${'merged/h'.padStart(9)} ${'runs/change'.padStart(11)} ${'runs/merge'.padStart(10)}`);
      const row = async (label: string, settings: QueuePatch) => {
        const figures = figuresOf(await runQueue({ scenario, seed, settings, arrivals }));
        console.log(
          `${label.padEnd(14)} ${figures.p50.padStart(6)} ${figures.p90.padStart(6)} ${figures.mergedPerHour.toFixed(2).padStart(9)} ${figures.runsPerChange.toFixed(3).padStart(11)} ${figures.runsPerMerge.toFixed(3).padStart(10)}${figures.saturated ? '  (saturated)' : ''}`,
        );
        return figures;
      };
      const fixed: Figures[] = [];
      for (const w of windowsUpTo(limit)) fixed.push(await row(`fixed ${w}`, { ...config.settings, concurrency: w }));
      const adaptive = await row(`adaptive 1..${limit}`, { ...config.settings, adaptiveWindow: true, adaptiveWindowFloor: 1 });
      const kept = fixed.filter((figures) => !figures.saturated);
      const bestP50 = (kept.length > 0 ? kept : fixed).reduce((best, figures) => (figures.p50Minutes < best.p50Minutes || (figures.p50Minutes === best.p50Minutes && figures.runsPerChange < best.runsPerChange) ? figures : best));
      const cheapest = fixed.reduce((best, figures) => (figures.runsPerChange < best.runsPerChange ? figures : best));
      // Dominated: a fixed window at no more runs per change with a lower P50, or the adaptive one saturates alone.
      const dominatedBy = kept.find((figures) => figures.runsPerChange <= adaptive.runsPerChange && figures.p50Minutes < adaptive.p50Minutes * 0.98);
      console.log(`  dominated by a fixed window (no more runs/change, P50 ≥ 2% lower): ${adaptive.saturated && kept.length > 0 ? 'yes (it saturates)' : dominatedBy === undefined ? 'no' : `yes (P50 ${dominatedBy.p50}, runs/change ${dominatedBy.runsPerChange.toFixed(3)})`}`);
      const worse = adaptive.saturated || adaptive.p50Minutes > bestP50.p50Minutes * 1.05 || adaptive.mergedPerHour < bestP50.mergedPerHour * 0.98;
      console.log(
        `  adaptive vs best fixed by P50: P50 ${(adaptive.p50Minutes / bestP50.p50Minutes).toFixed(2)}×, merged/h ${(adaptive.mergedPerHour / bestP50.mergedPerHour).toFixed(2)}×, runs/change ${(adaptive.runsPerChange / bestP50.runsPerChange).toFixed(2)}×; vs the cheapest fixed: runs/change ${(adaptive.runsPerChange / cheapest.runsPerChange).toFixed(2)}×, P50 ${(adaptive.p50Minutes / cheapest.p50Minutes).toFixed(2)}× — ${worse ? 'WORSE than the best fixed window' : 'no worse than the best fixed window (P50 within 5%, merges within 2%)'}`,
      );
      results.push({ workload: `${workload.name} — ${config.name}`, adaptive, bestP50, worse });
    }
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--seed');
  await benchWindow(at === -1 ? 1 : Number(process.argv[at + 1]));
}
