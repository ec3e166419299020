/**
 * Fidelity: one scenario played twice — in the simulator (the real engine on a virtual clock with the simulated host
 * and the scenario CI) and in real time on a running `greenline serve` with the local git host and the built-in CI
 * (fidelityReal.ts) — and the two compared: the PRs merged, the order they merged in, the runs, and the P50 time to
 * merge. Both meet the same luck: durations and flakes come from the same counter-based generator, keyed by the PRs
 * under test and by the tested tree (ci.ts), which the real run's scripted command reads from the checked-out tree.
 */
import { createMemoryStore } from '../engine/store/index.js';
import { drawArrivals, type Arrival } from './arrivals.js';
import { outcomeOf, type FidelityOutcome } from './fidelityOutcome.js';
import { runReal, type RealRun } from './fidelityReal.js';
import { runQueue, SIM_KEY, SIM_START } from './queueRun.js';
import { mergeTimes, percentileOf } from './report.js';
import { settingsOf, type QueueConfig, type Scenario } from './scenario.js';

/** The scenario in the simulator, read back as the real run is. */
export async function simulateOne(
  scenario: Scenario,
  config: QueueConfig,
  seed: number,
  arrivals: readonly Arrival[],
): Promise<FidelityOutcome> {
  const store = createMemoryStore();
  const outcome = await runQueue({ scenario, seed, settings: settingsOf(config), arrivals, store });
  return outcomeOf(store, SIM_KEY, SIM_START, arrivals, outcome.endAt);
}

export interface FidelityRow {
  name: string;
  prs: number;
  mergedReal: number;
  mergedSim: number;
  /** The same set of PRs merged. */
  sameMerged: boolean;
  /** The merges in the same order. */
  sameOrder: boolean;
  runsReal: number;
  runsSim: number;
  /** P50 time to merge (minutes, over every good PR, as the simulator's report counts it); null: not reached. */
  p50Real: number | null;
  p50Sim: number | null;
  /** p50Real / p50Sim. */
  ratio: number | null;
  /**
   * Where the real service's time goes, against the simulator's (mean seconds over the runs and PRs both have): how
   * much later a run started, how much later it ended (its verdict, or its cancellation), and how much later a PR left
   * the queue (merged or kicked). The simulator spends no time between events; the service runs git and processes.
   */
  lag: { start: number | null; end: number | null; left: number | null };
  /** Each difference found, in words (empty when the two agree on merges, order and runs). */
  differences: string[];
}

function runsPerPr(outcome: FidelityOutcome): Map<number, number> {
  const counts = new Map<number, number>();
  for (const run of outcome.runs) for (const number of run.prs) counts.set(number, (counts.get(number) ?? 0) + 1);
  return counts;
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length / 1000;

/** The lags of the real run behind the simulated one: runs matched by what they test (and their rank among those). */
export function lagsOf(real: FidelityOutcome, sim: FidelityOutcome): FidelityRow['lag'] {
  const keyed = (outcome: FidelityOutcome) => {
    const seen = new Map<string, number>();
    return new Map(
      [...outcome.runs]
        .sort((a, b) => a.startedAt - b.startedAt)
        .map((run) => {
          const key = `${run.kind}:${run.basePrs.join(',')}|${run.prs.join(',')}`;
          const rank = seen.get(key) ?? 0;
          seen.set(key, rank + 1);
          return [`${key}#${rank}`, run] as const;
        }),
    );
  };
  const simRuns = keyed(sim);
  const start: number[] = [];
  const end: number[] = [];
  for (const [key, run] of keyed(real)) {
    const other = simRuns.get(key);
    if (other === undefined) continue;
    start.push(run.startedAt - other.startedAt);
    end.push(run.endedAt - other.endedAt);
  }
  const simLeft = new Map(sim.prs.map((pr) => [pr.number, pr.leftAt]));
  const left = real.prs.flatMap((pr) => {
    const other = simLeft.get(pr.number);
    return pr.leftAt === null || other === undefined || other === null ? [] : [pr.leftAt - other];
  });
  return { start: mean(start), end: mean(end), left: mean(left) };
}

export function compare(name: string, real: FidelityOutcome, sim: FidelityOutcome): FidelityRow {
  // Unrounded (the report rounds to 0.1 minute, too coarse for runs of seconds).
  const p50Real = percentileOf(mergeTimes(real), 50).minutes;
  const p50Sim = percentileOf(mergeTimes(sim), 50).minutes;
  const mergedOf = (outcome: FidelityOutcome) => [...outcome.mergeOrder].sort((a, b) => a - b).join(',');
  const differences: string[] = [];
  const simStates = new Map(sim.prs.map((pr) => [pr.number, pr.state]));
  for (const pr of real.prs) {
    const other = simStates.get(pr.number);
    if (other !== pr.state) differences.push(`#${pr.number}: ${pr.state} for real, ${other} simulated`);
  }
  const order = real.mergeOrder.findIndex((number, index) => sim.mergeOrder[index] !== number);
  if (order >= 0)
    differences.push(`merge ${order + 1} is #${real.mergeOrder[order]} for real, #${sim.mergeOrder[order]} simulated`);
  const realRuns = runsPerPr(real);
  const simRuns = runsPerPr(sim);
  for (const number of new Set([...realRuns.keys(), ...simRuns.keys()])) {
    const a = realRuns.get(number) ?? 0;
    const b = simRuns.get(number) ?? 0;
    if (a !== b) differences.push(`#${number} was tested by ${a} runs for real, ${b} simulated`);
  }
  return {
    name,
    prs: real.prs.length,
    mergedReal: real.mergeOrder.length,
    mergedSim: sim.mergeOrder.length,
    sameMerged: mergedOf(real) === mergedOf(sim),
    sameOrder: real.mergeOrder.join(',') === sim.mergeOrder.join(','),
    runsReal: real.runs.length,
    runsSim: sim.runs.length,
    p50Real,
    p50Sim,
    ratio: p50Real === null || p50Sim === null || p50Sim === 0 ? null : p50Real / p50Sim,
    lag: lagsOf(real, sim),
    differences,
  };
}

export interface FidelityRun {
  row: FidelityRow;
  real: RealRun;
  sim: FidelityOutcome;
}

/** Plays `config` of `scenario` in the simulator and on the real service (in `dir`, an empty folder), and compares. */
export async function checkFidelity(
  scenario: Scenario,
  config: QueueConfig,
  dir: string,
  options: { seed?: number; from?: 'dist' | 'source'; onProgress?: (message: string) => void } = {},
): Promise<FidelityRun> {
  const seed = options.seed ?? scenario.seed;
  const arrivals = drawArrivals(scenario, seed);
  const sim = await simulateOne(scenario, config, seed, arrivals);
  const real = await runReal({
    scenario,
    config,
    seed,
    arrivals,
    dir,
    ...(options.from === undefined ? {} : { from: options.from }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  return { row: compare(`${scenario.name}/${config.name}`, real, sim), real, sim };
}

const seconds = (minutes: number | null) => (minutes === null ? '-' : (minutes * 60).toFixed(1));

const lagText = (lag: number | null) => (lag === null ? '-' : lag.toFixed(2));

/** The table of rows: PRs, merges, whether the order is equal, runs and P50 (seconds) real against simulated. */
export function fidelityTable(rows: readonly FidelityRow[]): string {
  const header = [
    'scenario',
    'PRs',
    'merged real',
    'merged sim',
    'same PRs',
    'same order',
    'runs real',
    'runs sim',
    'P50 real s',
    'P50 sim s',
    'ratio',
    'lag: start s',
    'verdict s',
    'left s',
  ];
  const lines = rows.map((row) => [
    row.name,
    String(row.prs),
    String(row.mergedReal),
    String(row.mergedSim),
    row.sameMerged ? 'yes' : 'NO',
    row.sameOrder ? 'yes' : 'NO',
    String(row.runsReal),
    String(row.runsSim),
    seconds(row.p50Real),
    seconds(row.p50Sim),
    row.ratio === null ? '-' : row.ratio.toFixed(3),
    lagText(row.lag.start),
    lagText(row.lag.end),
    lagText(row.lag.left),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] as string).length)),
  );
  const format = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number),
      )
      .join('  ');
  return [format(header), ...lines.map(format)].join('\n');
}
