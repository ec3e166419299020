/**
 * Batching and bisection under pressure (issue 28): on workloads the failure policy was not tuned on, runs per change
 * against the closed forms of sim/theory.ts, time to merge against the oracle's, and how long a failed batch waits for
 * its bisection with the default `bisectionConcurrency`. Each figure is printed beside its goal, per seed.
 * `tsx bench/pressureBatching.ts [-- --seeds 1,2,3]`; part of `npm run bench:pressure`.
 *
 * These are benchmarks, not tests: the figures vary with the seed, and the goals are checked on several.
 */
import { pathToFileURL } from 'node:url';
import { drawArrivals } from '../sim/arrivals.js';
import { runOracle } from '../sim/oracle.js';
import { runQueue, type QueueOutcome } from '../sim/queueRun.js';
import { parseScenario, type Scenario } from '../sim/scenario.js';
import { halvingRunsPerChange, skipRedundantRunsPerChange } from '../sim/theory.js';
import { QUEUE_POLICY } from '../engine/model/policy.js';
import { largestBatch } from '../engine/planner/batches.js';
import type { QueuePatch } from '../engine/model/queues.js';
import { figuresOf, type Figures } from './failures.js';
import { describeExcess, excessProfile } from './pressureExcess.js';
import { closedFormAtSeed, printHeader, printMedian, printRow } from './pressureTable.js';

const MINUTE_MS = 60_000;

interface Goal {
  text: string;
  figure: string;
  met: boolean;
}

type ScenarioShape = Omit<Scenario, 'seed' | 'configs' | 'drainHours' | 'saturationDepth'>;

export interface PressureWorkload {
  name: string;
  scenario: ScenarioShape;
  settings: QueuePatch;
  goals: (row: PressureFigures, oracle: Figures, scenario: Scenario) => Goal[];
  /** The P50 bound, where the workload has one: 2× the oracle's + the fill time. */
  p50Bound?: (oracle: Figures) => number;
}

/** The figures of one run of a workload: the failure bench's, and what bisection did. */
export interface PressureFigures extends Figures {
  unfinished: number;
  /** Median minutes from a failed batch's run ending to its bisection's first run starting (null: none failed). */
  bisectionWaitMinutes: number | null;
  /** Of the PRs a bisection run found good, the share tested again on the main line. */
  retestedShare: number | null;
  /** Busy share of the main line's and the bisections' runs, over `concurrency` slots each. */
  mainBusy: number;
  bisectionBusy: number;
}

/** The mean of the scenario's log-normal CI duration, minutes (median e^(σ²/2), σ from the 90th percentile). */
export function meanCiMinutes(ci: Scenario['ci']): number {
  const sigma = Math.log(ci.p90Minutes / ci.medianMinutes) / 1.2815515655446004;
  return ci.medianMinutes * Math.exp((sigma * sigma) / 2);
}

/** The closed form that applies to a batching configuration: skip-redundant's or halving's. */
export function closedFormOf(settings: QueuePatch, p: number): { name: string; value: number } {
  const size = settings.batchingMinSize ?? 4;
  return settings.optimizationMode === 'bisection_skip_redundant_tests'
    ? { name: 'skip-redundant', value: skipRedundantRunsPerChange(p, size) }
    : { name: 'halving', value: halvingRunsPerChange(p, size) };
}

/**
 * Arrivals per hour at `load` of a batching queue's capacity: its CI slots (the main line's and the bisections') each
 * run 60 / mean CI runs an hour, and each change costs the closed form's runs.
 */
export function rateAt(load: number, settings: QueuePatch, p: number, ci: Scenario['ci']): number {
  const slots = (settings.concurrency ?? 1) + (settings.bisectionConcurrency ?? settings.concurrency ?? 1);
  return (load * slots * (60 / meanCiMinutes(ci))) / closedFormOf(settings, p).value;
}

/** The time a batch takes to fill: the lesser of the longest wait and batchingMinSize − 1 arrivals. */
export function fillMinutes(settings: QueuePatch, arrivalsPerHour: number): number {
  const size = settings.batchingMinSize ?? 4;
  return Math.min(settings.batchingMaxWaitTimeMinutes ?? 5, ((size - 1) / arrivalsPerHour) * 60);
}

function underCapacity(name: string, p: number, ci: Scenario['ci'], settings: QueuePatch): PressureWorkload {
  const arrivalsPerHour = Math.round(rateAt(0.5, settings, p, ci) * 10) / 10;
  return {
    name: `${name}: ${arrivalsPerHour} PRs/h (half of capacity) for 48 h, CI median ${ci.medianMinutes} p90 ${ci.p90Minutes}, ${p * 100}% broken`,
    scenario: { name, hours: 48, arrivalsPerHour, ci, brokenRate: p, flakeRate: 0 },
    settings,
    p50Bound: (oracle) => 2 * oracle.p50Minutes + fillMinutes(settings, arrivalsPerHour),
    goals: (row, oracle) => {
      const form = closedFormOf(settings, p);
      const fill = fillMinutes(settings, arrivalsPerHour);
      const bound = 2 * oracle.p50Minutes + fill;
      return [
        {
          text: `runs per change ≤ 1.1× the ${form.name} closed form ${form.value.toFixed(3)}`,
          figure: `${row.runsPerChange.toFixed(3)} = ${(row.runsPerChange / form.value).toFixed(2)}×`,
          met: row.runsPerChange <= 1.1 * form.value,
        },
        {
          text: `P50 ≤ 2× the oracle's ${oracle.p50} + fill ${fill.toFixed(0)} = ${bound.toFixed(0)} min`,
          figure: `${row.p50} min = ${(row.p50Minutes / oracle.p50Minutes).toFixed(2)}× the oracle's`,
          met: row.p50Minutes <= bound,
        },
        {
          text: 'nothing unfinished',
          figure: `${row.unfinished} unfinished${row.saturated ? ' (saturated)' : ''}`,
          met: row.unfinished === 0 && !row.saturated,
        },
      ];
    },
  };
}

const CONSTANT = { medianMinutes: 20, p90Minutes: 20 };
const HEAVY_TAIL = { medianMinutes: 20, p90Minutes: 90 };
const batching = (size: number, concurrency: number, extra: QueuePatch = {}): QueuePatch => ({
  batch: true,
  batchingMinSize: size,
  concurrency,
  batchingMaxWaitTimeMinutes: 30,
  ...extra,
});
const SKIP: QueuePatch = { optimizationMode: 'bisection_skip_redundant_tests' };

export const PRESSURE_WORKLOADS: PressureWorkload[] = [
  underCapacity('batch8-10pct', 0.1, CONSTANT, batching(8, 2)),
  underCapacity('batch8-10pct-skip', 0.1, CONSTANT, batching(8, 2, SKIP)),
  underCapacity('batch4-2pct', 0.02, CONSTANT, batching(4, 2)),
  underCapacity('heavy-tail-batch8-5pct', 0.05, HEAVY_TAIL, batching(8, 2)),
  {
    name: 'default bisectionConcurrency: batch 8 × concurrency 2, 12 PRs/h for 200 h, 10% broken, CI 20 min',
    scenario: {
      name: 'default-bisection',
      hours: 200,
      arrivalsPerHour: 12,
      ci: CONSTANT,
      brokenRate: 0.1,
      flakeRate: 0,
    },
    settings: { batch: true, batchingMinSize: 8, concurrency: 2 },
    goals: (row, _oracle, scenario) => {
      const bound = 1.5 * scenario.ci.medianMinutes;
      const wait = row.bisectionWaitMinutes;
      return [
        {
          text: `median wait for a failed batch's first bisection run ≤ 1.5 CI medians (${bound} min)`,
          figure: wait === null ? 'no failed batch' : `${wait.toFixed(1)} min`,
          met: wait === null || wait <= bound,
        },
        {
          text: '0 unfinished',
          figure: `${row.unfinished} unfinished${row.saturated ? ' (saturated)' : ''}`,
          met: row.unfinished === 0 && !row.saturated,
        },
      ];
    },
  },
];

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * For each failed main-line batch (several PRs), the minutes until the first bisection run testing some of its PRs
 * started; a batch whose PRs were tested again on the main line first (its failure was blamed on a PR ahead) is not
 * counted.
 */
export function bisectionWaits(outcome: QueueOutcome): number[] {
  const runs = [...outcome.runs].sort((a, b) => a.startedAt - b.startedAt);
  const waits: number[] = [];
  for (const failed of runs) {
    if (failed.kind !== 'main' || failed.status !== 'failed' || failed.prs.length < 2) continue;
    const members = new Set(failed.prs);
    const next = runs.find((run) => run.startedAt >= failed.endedAt && run.prs.some((number) => members.has(number)));
    if (next?.kind === 'bisection') waits.push((next.startedAt - failed.endedAt) / MINUTE_MS);
  }
  return waits;
}

/** Of the PRs a passing bisection run tested, the share that a later main-line run tested again. */
export function retestedShare(outcome: QueueOutcome): number | null {
  const passedAt = new Map<number, number>();
  for (const run of outcome.runs) {
    if (run.kind !== 'bisection' || run.status !== 'succeeded') continue;
    for (const number of run.prs) passedAt.set(number, Math.min(passedAt.get(number) ?? Infinity, run.endedAt));
  }
  if (passedAt.size === 0) return null;
  const retested = new Set<number>();
  for (const run of outcome.runs) {
    if (run.kind !== 'main') continue;
    for (const number of run.prs) if ((passedAt.get(number) ?? Infinity) <= run.startedAt) retested.add(number);
  }
  return retested.size / passedAt.size;
}

function busy(outcome: QueueOutcome, kind: 'main' | 'bisection', slots: number): number {
  const total = outcome.runs
    .filter((run) => run.kind === kind)
    .reduce((sum, run) => sum + (run.endedAt - run.startedAt), 0);
  return total / (slots * Math.max(1, outcome.endAt));
}

export function pressureFiguresOf(outcome: QueueOutcome, settings: QueuePatch): PressureFigures {
  const concurrency = settings.concurrency ?? 1;
  return {
    ...figuresOf(outcome),
    unfinished: outcome.prs.filter((pr) => pr.leftAt === null).length,
    bisectionWaitMinutes: median(bisectionWaits(outcome)),
    retestedShare: retestedShare(outcome),
    mainBusy: busy(outcome, 'main', concurrency),
    bisectionBusy: busy(outcome, 'bisection', settings.bisectionConcurrency ?? concurrency),
  };
}

/**
 * Runs every workload on each seed, under the queue policy before issue 28 (1: a bisection pool of its own, batches
 * of batchingMinSize; engine/model/policy.ts), the one before the current one (QUEUE_POLICY − 1, main's before the
 * current one was added) and the current one, in the same run, and prints each figure of the current one beside its
 * goal, with what is still in excess; whether every goal was met.
 */
export async function benchPressureBatching(seeds: readonly number[] = [1, 2, 3]): Promise<boolean> {
  console.log(
    '\nBatching and bisection under pressure (issue 28): time to merge in minutes over every good PR; "v1" is queue policy 1, "before" the policy before the current one (main\'s), "after" the current one',
  );
  let allMet = true;
  for (const workload of PRESSURE_WORKLOADS) {
    console.log(`\n${workload.name}\n  settings ${JSON.stringify(workload.settings)}`);
    printHeader();
    for (const seed of seeds) {
      const scenario = parseScenario({
        ...workload.scenario,
        seed,
        configs: [{ name: 'queue', ...workload.settings }],
      });
      const arrivals = drawArrivals(scenario, seed);
      const oracle = figuresOf(runOracle(scenario, seed, arrivals, workload.settings.testingTimeoutMinutes ?? 300));
      const rows: PressureFigures[] = [];
      let outcome: QueueOutcome | undefined;
      for (const [label, policy] of [
        [`${seed} v1`, 1],
        [`${seed} before`, QUEUE_POLICY - 1],
        [`${seed} after`, QUEUE_POLICY],
      ] as const) {
        const started = performance.now();
        outcome = await runQueue({ scenario, seed, settings: workload.settings, arrivals, policy });
        const row = pressureFiguresOf(outcome, workload.settings);
        printRow(
          label,
          arrivals.length,
          row,
          oracle,
          closedFormAtSeed(workload.settings, arrivals),
          (performance.now() - started) / 1000,
        );
        rows.push(row);
      }
      const [, before, after] = rows as [PressureFigures, PressureFigures, PressureFigures];
      console.log(
        `    after/before: runs per change ${(after.runsPerChange / before.runsPerChange).toFixed(2)}×, P50 ${(after.p50Minutes / before.p50Minutes).toFixed(2)}×, merged/h ${(after.mergedPerHour / before.mergedPerHour).toFixed(2)}×`,
      );
      for (const goal of workload.goals(after, oracle, scenario)) {
        allMet &&= goal.met;
        console.log(`    goal: ${goal.text}: ${goal.figure} — ${goal.met ? 'met' : 'NOT MET'}`);
      }
      if (outcome?.runs.some((run) => run.kind === 'bisection') === true)
        console.log(
          `    ${describeExcess(excessProfile(outcome, workload.settings.optimizationMode === 'bisection_skip_redundant_tests', workload.settings.batchingMinSize ?? 4, scenario.brokenRate, largestBatch({ batchingMinSize: workload.settings.batchingMinSize ?? 4, batchingMaxSize: workload.settings.batchingMaxSize ?? undefined })))}`,
        );
      if (outcome !== undefined && workload.p50Bound !== undefined)
        await printMedian(outcome, scenario, seed, workload.settings, arrivals, workload.p50Bound(oracle));
    }
  }
  return allMet;
}

export function seedsOf(argv: readonly string[]): number[] {
  const at = argv.indexOf('--seeds');
  if (at === -1) return [1, 2, 3];
  return String(argv[at + 1] ?? '')
    .split(',')
    .map(Number)
    .filter((seed) => Number.isInteger(seed) && seed >= 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const met = await benchPressureBatching(seedsOf(process.argv));
  console.log(`\n${met ? 'every goal met' : 'some goals NOT met'}`);
}
