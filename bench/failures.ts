/**
 * The queue under failures (issue 14): for each workload, runs per change, time to merge and merges per hour on the
 * real engine (simulator, virtual clock), beside the oracle and the closed forms of sim/theory.ts, and each goal
 * with its figure. `npm run bench:failures [-- --seed N]`; also part of `npm run bench`.
 *
 * These are benchmarks, not tests: the figures vary with the seed, and the goals are checked on several.
 */
import { pathToFileURL } from 'node:url';
import { drawArrivals } from '../sim/arrivals.js';
import { runOracle } from '../sim/oracle.js';
import { runQueue, type QueueOutcome } from '../sim/queueRun.js';
import { mergeTimes, percentilesOf } from '../sim/report.js';
import { parseScenario, type Scenario } from '../sim/scenario.js';
import { fullResetRunsPerResolved, halvingRunsPerChange, skipRedundantRunsPerChange } from '../sim/theory.js';
import type { QueuePatch } from '../engine/model/queues.js';

const HOUR_MS = 3_600_000;
const CI = { medianMinutes: 20, p90Minutes: 20 };

export interface Figures {
  runsPerChange: number;
  runsPerMerge: number;
  p50: string;
  p90: string;
  p50Minutes: number;
  mergedPerHour: number;
  merged: number;
  goodKicked: number;
  cancelledRuns: number;
  saturated: boolean;
}

export function figuresOf(outcome: QueueOutcome): Figures {
  const resolved = outcome.prs.filter(
    (pr) => pr.state === 'MERGED' || pr.state === 'FAILED' || pr.state === 'CANCELLED',
  ).length;
  const merged = outcome.prs.filter((pr) => pr.state === 'MERGED').length;
  const ttm = percentilesOf(mergeTimes(outcome));
  const show = (name: 'p50' | 'p90') =>
    ttm[name] === null ? '-' : `${ttm.censored.includes(name) ? '>' : ''}${(ttm[name] as number).toFixed(0)}`;
  return {
    runsPerChange: outcome.runs.length / Math.max(1, resolved),
    runsPerMerge: outcome.runs.length / Math.max(1, merged),
    p50: show('p50'),
    p90: show('p90'),
    p50Minutes: ttm.p50 ?? Infinity,
    mergedPerHour: merged / (outcome.endAt / HOUR_MS),
    merged,
    goodKicked: outcome.prs.filter((pr) => !pr.broken && pr.state === 'FAILED').length,
    cancelledRuns: outcome.runs.filter((run) => run.status === 'cancelled').length,
    saturated: outcome.saturated,
  };
}

interface Goal {
  text: string;
  figure: string;
  met: boolean;
}

interface Workload {
  name: string;
  scenario: Omit<Scenario, 'seed' | 'configs' | 'drainHours' | 'saturationDepth'> & { targets?: Scenario['targets'] };
  configs: { name: string; settings: QueuePatch }[];
  /** A reference for runs per change, when one applies. */
  reference?: (settings: QueuePatch) => { name: string; value: number };
  goals: (rows: Map<string, Figures>, oracle: Figures, scenario: Scenario) => Goal[];
}

const batch = (size: number, skip: boolean): QueuePatch => ({
  batch: true,
  batchingMinSize: size,
  concurrency: 1,
  bisectionConcurrency: size,
  batchingMaxWaitTimeMinutes: 600,
  ...(skip ? { optimizationMode: 'bisection_skip_redundant_tests' as const } : {}),
});
const antiFlake: QueuePatch = { concurrency: 40, pendingFailureDepth: 1, canOptimisticallyMerge: true };
const ratio = (value: number, of: number) => `${value.toFixed(3)} = ${(value / of).toFixed(2)}× ${of.toFixed(3)}`;

function batching(p: number, size: number): Workload {
  const plain = halvingRunsPerChange(p, size);
  return {
    name: `200 h, 12 PRs/h, ${p * 100}% broken, batch ${size}`,
    scenario: { name: `batch${size}`, hours: 200, arrivalsPerHour: 12, ci: CI, brokenRate: p, flakeRate: 0 },
    configs: [
      { name: `batch${size}`, settings: batch(size, false) },
      { name: `batch${size}-skip`, settings: batch(size, true) },
    ],
    reference: (settings) =>
      settings.optimizationMode === 'bisection_skip_redundant_tests'
        ? { name: 'skip closed form', value: skipRedundantRunsPerChange(p, size) }
        : { name: 'halving closed form', value: plain },
    goals: (rows) => [
      {
        text: `plain ≤ 1.25× the halving closed form ${plain.toFixed(2)}`,
        figure: ratio(rows.get(`batch${size}`)!.runsPerChange, plain),
        met: rows.get(`batch${size}`)!.runsPerChange <= 1.25 * plain,
      },
      {
        text: `skip-redundant ≤ 1.05× the halving closed form ${plain.toFixed(2)}`,
        figure: ratio(rows.get(`batch${size}-skip`)!.runsPerChange, plain),
        met: rows.get(`batch${size}-skip`)!.runsPerChange <= 1.05 * plain,
      },
    ],
  };
}

export const WORKLOADS: Workload[] = [
  batching(0.05, 8),
  batching(0.02, 16),
  {
    name: '200 h, 12 PRs/h, 5% broken, batch 4 × concurrency 2, wait 30 min',
    scenario: { name: 'batch4x2', hours: 200, arrivalsPerHour: 12, ci: CI, brokenRate: 0.05, flakeRate: 0 },
    configs: [
      {
        name: 'batch4x2',
        settings: { batch: true, batchingMinSize: 4, concurrency: 2, batchingMaxWaitTimeMinutes: 30 },
      },
    ],
    reference: () => ({ name: 'halving closed form', value: halvingRunsPerChange(0.05, 4) }),
    goals: (rows, oracle) => {
      const row = rows.get('batch4x2')!;
      const bound = 2 * oracle.p50Minutes + 10;
      return [
        { text: 'never saturated', figure: row.saturated ? 'saturated' : 'kept up', met: !row.saturated },
        {
          text: `P50 ≤ 2× the oracle's + 10 min (${bound.toFixed(0)})`,
          figure: `${row.p50} min`,
          met: row.p50Minutes <= bound,
        },
      ];
    },
  },
  {
    name: '48 h, 30 PRs/h, 0 broken, 5% flaky runs, anti-flake on',
    scenario: {
      name: 'flaky',
      hours: 48,
      arrivalsPerHour: 30,
      ci: CI,
      brokenRate: 0,
      flakeRate: 0.05,
      targets: { count: 200, perPr: 3, allShare: 0, skew: 0 },
    },
    configs: [
      { name: 'single-antiflake', settings: antiFlake },
      { name: 'parallel-antiflake', settings: { ...antiFlake, mode: 'parallel' } },
    ],
    goals: (rows) =>
      [...rows].flatMap(([name, row]) => [
        { text: `${name}: no good PR kicked`, figure: `${row.goodKicked} kicked`, met: row.goodKicked === 0 },
        { text: `${name}: ≤ 1.15 runs per merge`, figure: row.runsPerMerge.toFixed(3), met: row.runsPerMerge <= 1.15 },
      ]),
  },
  {
    name: 'deep window: 150 PRs/h for 3 h, concurrency 100, 5% broken, 2% flaky',
    scenario: { name: 'deep', hours: 3, arrivalsPerHour: 150, ci: CI, brokenRate: 0.05, flakeRate: 0.02 },
    configs: [{ name: 'predictive100', settings: { concurrency: 100 } }],
    reference: () => ({
      name: 'full-reset bound w·q/(1−(1−q)^w)',
      value: fullResetRunsPerResolved(1 - 0.95 * 0.98, 100),
    }),
    goals: (rows) => {
      const bound = fullResetRunsPerResolved(1 - 0.95 * 0.98, 100);
      const row = rows.get('predictive100')!;
      return [
        {
          text: `runs per PR resolved within 1.2× the full-reset bound ${bound.toFixed(2)}`,
          figure: ratio(row.runsPerChange, bound),
          met: row.runsPerChange <= 1.2 * bound,
        },
      ];
    },
  },
  {
    name: 'parallel, decoupled graph (uniform targets, no ALL), 150 PRs/h for 24 h, 5% broken, 2% flaky',
    scenario: {
      name: 'decoupled',
      hours: 24,
      arrivalsPerHour: 150,
      ci: CI,
      brokenRate: 0.05,
      flakeRate: 0.02,
      targets: { count: 10_000, perPr: 3, allShare: 0, skew: 0 },
    },
    configs: [{ name: 'lanes', settings: { mode: 'parallel', concurrency: 100 } }],
    goals: (rows, oracle) => {
      const row = rows.get('lanes')!;
      return [
        {
          text: "≥ 0.95× the oracle's merges",
          figure: `${row.merged} = ${(row.merged / oracle.merged).toFixed(3)}× ${oracle.merged}`,
          met: row.merged >= 0.95 * oracle.merged,
        },
        {
          text: "P50 ≤ 1.1× the oracle's",
          figure: `${row.p50} = ${(row.p50Minutes / oracle.p50Minutes).toFixed(2)}× ${oracle.p50}`,
          met: row.p50Minutes <= 1.1 * oracle.p50Minutes,
        },
      ];
    },
  },
];

export async function benchFailures(seed = 1): Promise<boolean> {
  console.log(
    `\nThe queue under failures (seed ${seed}; constant 20-minute CI): runs per change over PRs resolved, time to merge in minutes over every good PR`,
  );
  let allMet = true;
  for (const workload of WORKLOADS) {
    const scenario = parseScenario({
      ...workload.scenario,
      seed,
      configs: workload.configs.map((config) => ({ name: config.name, ...config.settings })),
    });
    const arrivals = drawArrivals(scenario, seed);
    const oracle = figuresOf(runOracle(scenario, seed, arrivals, 300));
    const rows = new Map<string, Figures>();
    console.log(
      `\n${workload.name} (${arrivals.length} PRs, ${arrivals.filter((arrival) => arrival.broken).length} broken)`,
    );
    console.log(
      `${'configuration'.padEnd(20)} ${'runs/change'.padStart(11)} ${'reference'.padStart(30)} ${'p50'.padStart(6)} ${'p90'.padStart(6)} ${'merged/h'.padStart(9)} ${'kicked good'.padStart(11)} ${'cancelled runs'.padStart(14)}`,
    );
    for (const config of workload.configs) {
      const figures = figuresOf(await runQueue({ scenario, seed, settings: config.settings, arrivals }));
      rows.set(config.name, figures);
      const reference = workload.reference?.(config.settings);
      const versus =
        reference === undefined
          ? ''
          : `${(figures.runsPerChange / reference.value).toFixed(2)}× ${reference.value.toFixed(3)}`;
      console.log(
        `${config.name.padEnd(20)} ${figures.runsPerChange.toFixed(3).padStart(11)} ${versus.padStart(30)} ${figures.p50.padStart(6)} ${figures.p90.padStart(6)} ${figures.mergedPerHour.toFixed(2).padStart(9)} ${String(figures.goodKicked).padStart(11)} ${String(figures.cancelledRuns).padStart(14)}${figures.saturated ? '  (saturated)' : ''}`,
      );
    }
    console.log(
      `${'oracle'.padEnd(20)} ${oracle.runsPerChange.toFixed(3).padStart(11)} ${''.padStart(30)} ${oracle.p50.padStart(6)} ${oracle.p90.padStart(6)} ${oracle.mergedPerHour.toFixed(2).padStart(9)}`,
    );
    for (const goal of workload.goals(rows, oracle, scenario)) {
      allMet &&= goal.met;
      console.log(`  goal: ${goal.text}: ${goal.figure} — ${goal.met ? 'met' : 'NOT MET'}`);
    }
  }
  return allMet;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--seed');
  const seed = at === -1 ? 1 : Number(process.argv[at + 1]);
  const met = await benchFailures(seed);
  console.log(`\n${met ? 'every goal met' : 'some goals NOT met'} (seed ${seed})`);
}
