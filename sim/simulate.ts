/**
 * A simulation: the arrivals drawn once from the seed, then each configuration and the single-queue baseline run on
 * the real engine (a fresh in-memory store each), and the oracle computed on the same arrivals.
 */
import type { QueuePatch } from '../engine/model/queues.js';
import { drawArrivals, type Arrival } from './arrivals.js';
import { oracleTimeoutMinutes, runOracle } from './oracle.js';
import { runQueue, type QueueOutcome } from './queueRun.js';
import { summarise, type SimulationReport } from './report.js';
import { configNameProblems, ScenarioError, settingsOf, type Scenario } from './scenario.js';

/** The single-queue baseline: one run at a time, no batching, every other setting at its default. */
export const SINGLE_QUEUE_SETTINGS: QueuePatch = { concurrency: 1, batch: false };

export interface Progress {
  /** The configuration being run. */
  label: string;
  /** Virtual time covered across every queue run so far, and the most there can be (ms). */
  done: number;
  total: number;
}

export interface SimulateOptions {
  /** Overrides the scenario's seed. */
  seed?: number;
  /** Keep each queue's event log with per-event digests (for `greenline replay`). */
  record?: boolean;
  /** The arrivals to use instead of drawing them from the scenario (tests with a workload of their own). */
  arrivals?: readonly Arrival[];
  onProgress?: (progress: Progress) => void;
}

export interface SimulatedQueue {
  name: string;
  kind: 'config' | 'singleQueue' | 'oracle';
  /** The updateQueue settings it ran with (none for the oracle, which is no queue). */
  settings?: QueuePatch;
  outcome: QueueOutcome;
}

export interface Simulation {
  report: SimulationReport;
  arrivals: readonly Arrival[];
  queues: SimulatedQueue[];
}

const HOUR_MS = 3_600_000;

export async function simulate(scenario: Scenario, options: SimulateOptions = {}): Promise<Simulation> {
  // The schema refuses these; a scenario built in code must not mix rows up either.
  const problems = configNameProblems(scenario.configs.map((config) => config.name));
  if (problems.length > 0) {
    throw new ScenarioError(
      `the scenario's configurations are not valid:\n${problems.map(({ index, message }) => `  configs[${index}].name: ${message}`).join('\n')}`,
      problems.map(({ index, message }) => ({ path: `configs[${index}].name`, message })),
    );
  }
  const seed = options.seed ?? scenario.seed;
  const arrivals = options.arrivals ?? drawArrivals(scenario, seed);
  const horizon = (scenario.hours + scenario.drainHours) * HOUR_MS;
  const runs: { name: string; kind: 'config' | 'singleQueue'; settings: QueuePatch }[] = [
    ...scenario.configs.map((config) => ({ name: config.name, kind: 'config' as const, settings: settingsOf(config) })),
    { name: 'singleQueue', kind: 'singleQueue', settings: SINGLE_QUEUE_SETTINGS },
  ];
  const queues: SimulatedQueue[] = [];
  for (const [index, run] of runs.entries()) {
    const progress = (at: number) =>
      options.onProgress?.({
        label: run.name,
        done: index * horizon + Math.min(at, horizon),
        total: runs.length * horizon,
      });
    progress(0);
    const outcome = await runQueue({
      scenario,
      seed,
      settings: run.settings,
      arrivals,
      label: `sim: ${scenario.name} / ${run.name}, seed ${seed}`,
      onProgress: progress,
      ...(options.record === undefined ? {} : { record: options.record }),
    });
    queues.push({ ...run, outcome });
  }
  const oracle = runOracle(scenario, seed, arrivals, oracleTimeoutMinutes(runs.map((run) => run.settings)));
  queues.push({ name: 'oracle', kind: 'oracle', outcome: oracle });

  const reportOf = (queue: SimulatedQueue) => summarise(queue.name, queue.outcome, queue.settings, scenario);
  const only = (kind: SimulatedQueue['kind']) => queues.find((queue) => queue.kind === kind) as SimulatedQueue;
  const report: SimulationReport = {
    scenario: { ...scenario, seed },
    configs: queues.filter((queue) => queue.kind === 'config').map(reportOf),
    oracle: reportOf(only('oracle')),
    singleQueue: reportOf(only('singleQueue')),
  };
  return { report, arrivals, queues };
}
