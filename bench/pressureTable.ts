/**
 * The rows `bench:pressure` prints for batching and bisection (bench/pressureBatching.ts), with the figures that tell
 * a policy's doing from the workload's: the closed form at the seed's own broken PRs (how the seed drew them is not a
 * policy's doing; the goal stays the closed form at the scenario's rate), and where the median PR's time to merge goes
 * (bench/pressureMedian.ts), beside the P50 of the same queue with every PR good.
 */
import type { Arrival } from '../sim/arrivals.js';
import { runQueue, type QueueOutcome } from '../sim/queueRun.js';
import type { Scenario } from '../sim/scenario.js';
import type { QueuePatch } from '../engine/model/queues.js';
import { figuresOf, type Figures } from './failures.js';
import { describeMedian, medianProfile } from './pressureMedian.js';
import type { PressureFigures } from './pressureBatching.js';
import { halvingRunsPerChange, skipRedundantRunsPerChange } from '../sim/theory.js';

const percent = (share: number | null) => (share === null ? '-' : `${(share * 100).toFixed(0)}%`);

/** The closed form that applies to `settings` (skip-redundant's or halving's) at the seed's share of broken PRs. */
export function closedFormAtSeed(settings: QueuePatch, arrivals: readonly Arrival[]): number {
  const p = arrivals.filter((arrival) => arrival.broken).length / Math.max(1, arrivals.length);
  const size = settings.batchingMinSize ?? 4;
  return settings.optimizationMode === 'bisection_skip_redundant_tests'
    ? skipRedundantRunsPerChange(p, size)
    : halvingRunsPerChange(p, size);
}

export function printHeader(): void {
  const columns = [
    'PRs',
    'runs/chg',
    'cf@seed',
    '×cf@seed',
    'p50',
    'p90',
    'oracle',
    'merged/h',
    'unfin.',
    'bis.wait',
    'retested',
    'main busy',
    'bis. busy',
    'cancelled',
  ];
  const widths = [5, 9, 8, 9, 6, 6, 7, 9, 7, 9, 9, 10, 10, 10];
  console.log(`  ${'seed'.padEnd(9)} ${columns.map((column, k) => column.padStart(widths[k] as number)).join(' ')}`);
}

/** One row of the table: a seed's figures under one queue policy; `atSeed` is closedFormAtSeed. */
export function printRow(
  label: string,
  arrivals: number,
  row: PressureFigures,
  oracle: Figures,
  atSeed: number,
  seconds: number,
): void {
  const wait = row.bisectionWaitMinutes === null ? '-' : row.bisectionWaitMinutes.toFixed(1);
  const cells = [
    String(arrivals).padStart(5),
    row.runsPerChange.toFixed(3).padStart(9),
    atSeed.toFixed(3).padStart(8),
    `${(row.runsPerChange / atSeed).toFixed(2)}×`.padStart(9),
    row.p50.padStart(6),
    row.p90.padStart(6),
    oracle.p50.padStart(7),
    row.mergedPerHour.toFixed(2).padStart(9),
    String(row.unfinished).padStart(7),
    wait.padStart(9),
    percent(row.retestedShare).padStart(9),
    percent(row.mainBusy).padStart(10),
    percent(row.bisectionBusy).padStart(10),
    String(row.cancelledRuns).padStart(10),
  ];
  console.log(`  ${label.padEnd(9)} ${cells.join(' ')}  (${seconds.toFixed(1)} s)`);
}

/**
 * Where the median PR's time went under the current policy, and the P50 of the same queue (same arrivals, settings
 * and policy) with every PR good: what batching and the CI times alone cost, no failure, no bisection.
 */
export async function printMedian(
  outcome: QueueOutcome,
  scenario: Scenario,
  seed: number,
  settings: QueuePatch,
  arrivals: readonly Arrival[],
  bound: number,
): Promise<void> {
  console.log(`    ${describeMedian(medianProfile(outcome, settings.batchingMaxWaitTimeMinutes ?? 5))}`);
  const good = arrivals.map((arrival) => ({ ...arrival, broken: false }));
  const clean = figuresOf(await runQueue({ scenario, seed, settings, arrivals: good }));
  console.log(
    `    every PR good (same arrivals and settings): P50 ${clean.p50} min against the bound ${bound.toFixed(0)}`,
  );
}
