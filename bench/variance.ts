/**
 * Common random numbers (issue 35): how much of a comparison between two configurations is luck. For each pair of
 * configurations and each seed, both run on the same arrivals, and the paired difference of their P50 times to merge
 * is taken; the standard deviation of that difference over the seeds is the noise of an A-against-B figure. It is
 * measured twice in the same run: with the scenario CI's draws before issue 35 (a flake per attempt of a set of PRs
 * under test: bench/setAttemptCi.ts) and with today's (a flake per verdict on a tested tree: sim/ci.ts). Lower is
 * better; the ratio after/before is printed per pair.
 * `npm run bench:variance [-- --seeds 1,2,3] [-- --pairs deep]`.
 */
import { pathToFileURL } from 'node:url';
import type { QueuePatch } from '../engine/model/queues.js';
import { drawArrivals } from '../sim/arrivals.js';
import { ScenarioCi } from '../sim/ci.js';
import { runQueue } from '../sim/queueRun.js';
import { parseScenario } from '../sim/scenario.js';
import { figuresOf, WORKLOADS } from './failures.js';
import { SetAttemptCi } from './setAttemptCi.js';

export interface Pair {
  name: string;
  scenario: Record<string, unknown>;
  a: { name: string; settings: QueuePatch };
  b: { name: string; settings: QueuePatch };
}

const deep = WORKLOADS.find((workload) => workload.scenario.name === 'deep');
if (deep === undefined) throw new Error('bench/failures.ts has no deep-window workload');

export const PAIRS: Pair[] = [
  {
    name: 'deep',
    scenario: deep.scenario,
    a: { name: 'fixed 64', settings: { concurrency: 64 } },
    b: { name: 'fixed 100', settings: { concurrency: 100 } },
  },
  {
    name: 'antiflake',
    scenario: {
      name: 'monorepo12',
      hours: 12,
      arrivalsPerHour: 12,
      ci: { medianMinutes: 30, p90Minutes: 50 },
      brokenRate: 0.05,
      flakeRate: 0.02,
    },
    a: { name: 'predictive12', settings: { concurrency: 12 } },
    b: {
      name: 'predictive12-antiflake',
      settings: { concurrency: 12, pendingFailureDepth: 1, canOptimisticallyMerge: true },
    },
  },
  {
    name: 'batches',
    scenario: {
      name: 'batches',
      hours: 12,
      arrivalsPerHour: 30,
      ci: { medianMinutes: 20, p90Minutes: 25 },
      brokenRate: 0.08,
      flakeRate: 0.03,
    },
    a: {
      name: 'batch 2 × 8',
      settings: { batch: true, batchingMinSize: 2, concurrency: 8, batchingMaxWaitTimeMinutes: 10 },
    },
    b: {
      name: 'batch 4 × 4',
      settings: { batch: true, batchingMinSize: 4, concurrency: 4, batchingMaxWaitTimeMinutes: 10 },
    },
  },
];

type Draws = 'before' | 'after' | 'unmerged';
const CIS: Record<Draws, NonNullable<Parameters<typeof runQueue>[0]['ci']>> = {
  before: (scheduler, options) => new SetAttemptCi(scheduler, options),
  after: (scheduler, options) => new ScenarioCi(scheduler, options),
  unmerged: (scheduler, options) => new ScenarioCi(scheduler, { ...options, treeScope: 'unmerged' }),
};

export interface PairFigures {
  pair: string;
  draws: Draws;
  /** Per seed: P50 of a, of b (minutes; a lower bound when censored), and whether either saturated. */
  seeds: { seed: number; a: number; b: number; saturated: boolean }[];
  meanDifference: number;
  sdDifference: number;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const sd = (values: readonly number[]) => {
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - m) ** 2, 0) / Math.max(1, values.length - 1));
};

export async function measurePair(pair: Pair, seeds: readonly number[], draws: Draws): Promise<PairFigures> {
  const rows: PairFigures['seeds'] = [];
  for (const seed of seeds) {
    const scenario = parseScenario({ ...pair.scenario, seed, configs: [{ name: 'a', ...pair.a.settings }] });
    const arrivals = drawArrivals(scenario, seed);
    const p50 = async (settings: QueuePatch) =>
      figuresOf(await runQueue({ scenario, seed, settings, arrivals, ci: CIS[draws] }));
    const a = await p50(pair.a.settings);
    const b = await p50(pair.b.settings);
    rows.push({ seed, a: a.p50Minutes, b: b.p50Minutes, saturated: a.saturated || b.saturated });
  }
  const differences = rows.map((row) => row.a - row.b);
  return { pair: pair.name, draws, seeds: rows, meanDifference: mean(differences), sdDifference: sd(differences) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const seeds = (option('--seeds') ?? '1,2,3,4,5,6,7,8,9,10').split(',').map(Number);
  const only = option('--pairs')?.split(',');
  const pairs = PAIRS.filter((pair) => only === undefined || only.includes(pair.name));
  const DRAWS = (option('--draws') ?? 'before,after').split(',') as Draws[];
  console.log(
    `Paired P50 difference (a − b, minutes) over seeds ${seeds.join(',')}: draws before issue 35 (per attempt of a set) and after (per verdict on a tree)`,
  );
  const summary: string[] = [];
  for (const pair of pairs) {
    const figures: Partial<Record<Draws, PairFigures>> = {};
    for (const draws of DRAWS) {
      const started = performance.now();
      const result = await measurePair(pair, seeds, draws);
      figures[draws] = result;
      console.log(
        `\n${pair.name}: ${pair.a.name} (a) vs ${pair.b.name} (b), draws ${draws} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
      );
      console.log(
        `${'seed'.padStart(4)} ${'a p50'.padStart(7)} ${'b p50'.padStart(7)} ${'a − b'.padStart(7)} ${'a / b'.padStart(6)}`,
      );
      for (const row of result.seeds) {
        console.log(
          `${String(row.seed).padStart(4)} ${row.a.toFixed(1).padStart(7)} ${row.b.toFixed(1).padStart(7)} ${(row.a - row.b).toFixed(1).padStart(7)} ${(row.a / row.b).toFixed(2).padStart(6)}${row.saturated ? '  (saturated)' : ''}`,
        );
      }
      const ratios = result.seeds.map((row) => row.a / row.b);
      console.log(
        `  mean a − b ${result.meanDifference.toFixed(2)}, sd ${result.sdDifference.toFixed(2)}; a/b from ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}`,
      );
    }
    const before = figures.before;
    for (const draws of DRAWS.filter((draws) => draws !== 'before')) {
      const after = figures[draws] as PairFigures;
      summary.push(
        `${pair.name.padEnd(10)} ${`${pair.a.name} vs ${pair.b.name}`.padEnd(40)} ${draws.padEnd(8)} sd ${after.sdDifference.toFixed(2).padStart(6)}${before === undefined ? '' : ` against before ${before.sdDifference.toFixed(2).padStart(6)} = ${(after.sdDifference / Math.max(1e-9, before.sdDifference)).toFixed(2)}×`}   mean a − b ${after.meanDifference.toFixed(2)}${before === undefined ? '' : ` (before ${before.meanDifference.toFixed(2)})`}`,
      );
    }
  }
  console.log(
    `\nStandard deviation of the paired P50 difference (minutes), after against before:\n${summary.join('\n')}`,
  );
}
