/**
 * The adaptive window against fixed windows (issue 22), on the workloads of the failure-policy bench: for each, every
 * fixed window of the grid (powers of two up to the workload's concurrency) and the adaptive window (floor 1, up to
 * that concurrency), on the same arrivals. Prints P50, merges per hour and runs per change, and the adaptive row's
 * ratios against the best fixed window by P50 and against the fixed window with the fewest runs per change. Three
 * workloads invented for the adaptive window (not the failure-policy issue's) come after them, so that the rule is
 * not judged only on the workloads it was designed against. The goal: P50 within 3% of the best fixed window's and
 * merges per hour within 1%. The summary also gives the spread among the fixed windows (the fixed window at
 * `concurrency` against the best), which is how far hindsight alone can separate windows on that row.
 * `npm run bench:window [-- --seed N | --seeds 1,2,3]`.
 */
import { pathToFileURL } from 'node:url';
import { drawArrivals } from '../sim/arrivals.js';
import { runQueue } from '../sim/queueRun.js';
import { parseScenario } from '../sim/scenario.js';
import type { QueuePatch } from '../engine/model/queues.js';
import { figuresOf, WORKLOADS, type Figures } from './failures.js';

/**
 * Workloads of no earlier issue: a daily cycle with variable CI, small batches in a wide window, and (chosen after the
 * rule, as an out-of-sample check) slow CI with a high failure rate in a window deeper than it makes useful.
 */
export const INVENTED: Pick<(typeof WORKLOADS)[number], 'name' | 'scenario' | 'configs'>[] = [
  {
    name: 'invented: 48 h, 15 PRs/h on a daily cycle (amplitude 0.8), CI 30 min (p90 60), 6% broken, 1% flaky, concurrency 32',
    scenario: {
      name: 'cycle',
      hours: 48,
      arrivalsPerHour: 15,
      dailyCycle: { amplitude: 0.8, peakHour: 14 },
      ci: { medianMinutes: 30, p90Minutes: 60 },
      brokenRate: 0.06,
      flakeRate: 0.01,
    },
    configs: [{ name: 'cycle32', settings: { concurrency: 32 } }],
  },
  {
    name: 'invented: 12 h, 30 PRs/h, 8% broken, 3% flaky, batch 2 × concurrency 8, wait 10 min',
    scenario: {
      name: 'batch2x8',
      hours: 12,
      arrivalsPerHour: 30,
      ci: { medianMinutes: 20, p90Minutes: 25 },
      brokenRate: 0.08,
      flakeRate: 0.03,
    },
    configs: [
      {
        name: 'batch2x8',
        settings: { batch: true, batchingMinSize: 2, concurrency: 8, batchingMaxWaitTimeMinutes: 10 },
      },
    ],
  },
  {
    name: 'invented (out of sample): 72 h, 6 PRs/h, CI 45 min (p90 75), 15% broken, 5% flaky, concurrency 64',
    scenario: {
      name: 'failing64',
      hours: 72,
      arrivalsPerHour: 6,
      ci: { medianMinutes: 45, p90Minutes: 75 },
      brokenRate: 0.15,
      flakeRate: 0.05,
    },
    configs: [{ name: 'failing64', settings: { concurrency: 64 } }],
  },
];

const windowsUpTo = (limit: number) => {
  const grid: number[] = [];
  for (let w = 1; w < limit; w *= 2) grid.push(w);
  return [...grid, limit];
};

/** No worse than the best fixed window: P50 at most this many times its P50 ... */
export const P50_TOLERANCE = 1.03;
/** ... and merges per hour at least this many times its merges. */
export const MERGED_TOLERANCE = 0.99;

export interface WindowRow {
  workload: string;
  adaptive: Figures;
  bestP50: Figures;
  bestWindow: number;
  /** The fixed window at the workload's concurrency. */
  full: Figures;
  worse: boolean;
}

export async function benchWindow(seed = 1): Promise<WindowRow[]> {
  console.log(`\nAdaptive window vs fixed windows (seed ${seed}; failure-policy workloads with concurrency > 1)`);
  const results: WindowRow[] = [];
  for (const workload of [...WORKLOADS, ...INVENTED]) {
    for (const config of workload.configs) {
      const limit = config.settings.concurrency ?? 1;
      if (limit <= 1) continue;
      const scenario = parseScenario({
        ...workload.scenario,
        seed,
        configs: [{ name: config.name, ...config.settings }],
      });
      const arrivals = drawArrivals(scenario, seed);
      console.log(`\n${workload.name} — ${config.name} (${arrivals.length} PRs)`);
      console.log(
        `${'window'.padEnd(14)} ${'p50'.padStart(6)} ${'p90'.padStart(6)} ${'merged/h'.padStart(9)} ${'runs/change'.padStart(11)} ${'runs/merge'.padStart(10)}`,
      );
      const row = async (label: string, settings: QueuePatch) => {
        const figures = figuresOf(await runQueue({ scenario, seed, settings, arrivals }));
        console.log(
          `${label.padEnd(14)} ${figures.p50.padStart(6)} ${figures.p90.padStart(6)} ${figures.mergedPerHour.toFixed(2).padStart(9)} ${figures.runsPerChange.toFixed(3).padStart(11)} ${figures.runsPerMerge.toFixed(3).padStart(10)}${figures.saturated ? '  (saturated)' : ''}`,
        );
        return figures;
      };
      const fixed: { window: number; figures: Figures }[] = [];
      for (const window of windowsUpTo(limit))
        fixed.push({ window, figures: await row(`fixed ${window}`, { ...config.settings, concurrency: window }) });
      const adaptive = await row(`adaptive 1..${limit}`, {
        ...config.settings,
        adaptiveWindow: true,
        adaptiveWindowFloor: 1,
      });
      const kept = fixed.filter(({ figures }) => !figures.saturated);
      const best = (kept.length > 0 ? kept : fixed).reduce((best, other) =>
        other.figures.p50Minutes < best.figures.p50Minutes ||
        (other.figures.p50Minutes === best.figures.p50Minutes &&
          other.figures.runsPerChange < best.figures.runsPerChange)
          ? other
          : best,
      );
      const bestP50 = best.figures;
      const cheapest = fixed.reduce((best, other) =>
        other.figures.runsPerChange < best.figures.runsPerChange ? other : best,
      ).figures;
      // Dominated: a fixed window at no more runs per change with a lower P50, or the adaptive one saturates alone.
      const dominatedBy = kept.find(
        ({ figures }) =>
          figures.runsPerChange <= adaptive.runsPerChange && figures.p50Minutes < adaptive.p50Minutes * 0.98,
      )?.figures;
      console.log(
        `  dominated by a fixed window (no more runs/change, P50 ≥ 2% lower): ${adaptive.saturated && kept.length > 0 ? 'yes (it saturates)' : dominatedBy === undefined ? 'no' : `yes (P50 ${dominatedBy.p50}, runs/change ${dominatedBy.runsPerChange.toFixed(3)})`}`,
      );
      const worse =
        adaptive.saturated ||
        adaptive.p50Minutes > bestP50.p50Minutes * P50_TOLERANCE ||
        adaptive.mergedPerHour < bestP50.mergedPerHour * MERGED_TOLERANCE;
      console.log(
        `  adaptive vs best fixed by P50 (${best.window}): P50 ${(adaptive.p50Minutes / bestP50.p50Minutes).toFixed(2)}×, merged/h ${(adaptive.mergedPerHour / bestP50.mergedPerHour).toFixed(2)}×, runs/change ${(adaptive.runsPerChange / bestP50.runsPerChange).toFixed(2)}×; vs the cheapest fixed: runs/change ${(adaptive.runsPerChange / cheapest.runsPerChange).toFixed(2)}×, P50 ${(adaptive.p50Minutes / cheapest.p50Minutes).toFixed(2)}× — ${worse ? 'WORSE than the best fixed window' : 'no worse than the best fixed window (P50 within 3%, merges within 1%)'}`,
      );
      const full = (fixed.at(-1) as (typeof fixed)[number]).figures;
      results.push({
        workload: `${workload.name} — ${config.name}`,
        adaptive,
        bestP50,
        bestWindow: best.window,
        full,
        worse,
      });
    }
  }
  return results;
}

const times = (value: number, of: number) => `${(value / of).toFixed(2)}×`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--seed');
  const list = process.argv.indexOf('--seeds');
  const seeds =
    list !== -1
      ? (process.argv[list + 1] ?? '1').split(',').map(Number)
      : [at === -1 ? 1 : Number(process.argv[at + 1])];
  const summary: string[] = [];
  for (const seed of seeds) {
    for (const { workload, adaptive, bestP50, bestWindow, full, worse } of await benchWindow(seed)) {
      summary.push(
        `seed ${seed}  ${worse ? 'WORSE' : 'ok   '}  P50 ${adaptive.p50.padStart(5)} vs ${bestP50.p50.padStart(5)} (fixed ${String(bestWindow).padEnd(3)}) ${times(adaptive.p50Minutes, bestP50.p50Minutes)}  merged/h ${times(adaptive.mergedPerHour, bestP50.mergedPerHour)}  runs/change ${times(adaptive.runsPerChange, bestP50.runsPerChange)}  spread: fixed at concurrency P50 ${times(full.p50Minutes, bestP50.p50Minutes)} merged/h ${times(full.mergedPerHour, bestP50.mergedPerHour)}  ${workload}`,
      );
    }
  }
  console.log(
    `\nAdaptive window against the best fixed window by P50, every workload and seed:\n${summary.join('\n')}`,
  );
}
