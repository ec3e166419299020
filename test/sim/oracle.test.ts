/**
 * The oracle is a lower bound on the same draws: over several seeds and small scenarios, no configuration that tests
 * PRs one at a time without optimistic or direct merge merges any good PR sooner than the oracle, so none has a lower
 * p50, p90 or p99; and none that resolved every PR spends fewer CI minutes per merged PR.
 */
import { describe, expect, test } from 'vitest';
import { prDurationMs } from '../../sim/ci.js';
import { mergeTimes, type ConfigReport, type MergeTime, type PercentileName } from '../../sim/report.js';
import { parseScenario, type ScenarioInput } from '../../sim/scenario.js';
import { simulate, type SimulatedQueue, type Simulation } from '../../sim/simulate.js';

const MINUTE_MS = 60_000;

/** Queues the bound holds for: no batching, no optimistic merge, no direct merge. */
const ONE_AT_A_TIME: ScenarioInput['configs'] = [
  { name: 'predictive1' },
  { name: 'predictive2', concurrency: 2 },
  { name: 'predictive4', concurrency: 4 },
  { name: 'predictive3-pending', concurrency: 3, pendingFailureDepth: 1 },
  { name: 'lanes3', mode: 'parallel', concurrency: 3 },
];

/** The review's scenario: 24 h, one PR an hour, CI median 30 min and p90 90 min (a heavy tail). */
const sparse: ScenarioInput = {
  name: 'sparse',
  hours: 24,
  arrivalsPerHour: 1,
  ci: { medianMinutes: 30, p90Minutes: 90 },
  brokenRate: 0.05,
  flakeRate: 0.02,
  targets: { count: 20, perPr: 1 },
  configs: ONE_AT_A_TIME,
};

/** Busier and flakier, with a strict timeout in one configuration (the oracle applies it). */
const busy: ScenarioInput = {
  name: 'busy',
  hours: 6,
  arrivalsPerHour: 6,
  ci: { medianMinutes: 20, p90Minutes: 60 },
  brokenRate: 0.1,
  flakeRate: 0.05,
  targets: { count: 20, perPr: 1 },
  configs: [...ONE_AT_A_TIME, { name: 'predictive3-timeout40', concurrency: 3, testingTimeoutMinutes: 40 }],
};

const PERCENTILE_NAMES: PercentileName[] = ['p50', 'p90', 'p99'];

function minutes(row: ConfigReport, name: PercentileName): number {
  return row.timeToMerge[name] ?? Infinity;
}

function queue(simulation: Simulation, name: string): SimulatedQueue {
  return simulation.queues.find((candidate) => candidate.name === name) as SimulatedQueue;
}

function byNumber(times: readonly MergeTime[]): Map<number, MergeTime> {
  return new Map(times.map((time) => [time.number, time]));
}

function checkLowerBound(simulation: Simulation): { rows: number; drained: number } {
  const { report } = simulation;
  const oracle = report.oracle;
  const oracleTimes = byNumber(mergeTimes(queue(simulation, 'oracle').outcome));
  let drained = 0;
  const rows = [...report.configs, report.singleQueue];
  for (const row of rows) {
    const where = `${report.scenario.name}, seed ${report.scenario.seed}, ${row.name}`;
    expect(row.saturated, where).toBe(false);
    // Every good PR: no sooner than in the oracle (a censored time is a lower bound in both; +∞ never merged).
    for (const time of mergeTimes(queue(simulation, row.name).outcome)) {
      const bound = oracleTimes.get(time.number) as MergeTime;
      expect(time.minutes, `${where}, PR ${time.number}`).toBeGreaterThanOrEqual(bound.minutes);
    }
    for (const name of PERCENTILE_NAMES)
      expect(minutes(row, name), `${where}, ${name}`).toBeGreaterThanOrEqual(minutes(oracle, name));
    if (row.unfinished === 0 && row.merged > 0) {
      drained++;
      expect(row.ciMinutes / row.merged, `${where}, CI minutes per merged PR`).toBeGreaterThanOrEqual(
        oracle.ciMinutes / oracle.merged,
      );
    }
  }
  return { rows: rows.length, drained };
}

describe('the oracle is a lower bound on the same draws', () => {
  test('one PR an hour, CI 30/90 min: ten seeds', async () => {
    const scenario = parseScenario(sparse);
    let drained = 0;
    for (let seed = 1; seed <= 10; seed++) drained += checkLowerBound(await simulate(scenario, { seed })).drained;
    // The CI cost was compared for most rows (those that resolved every PR).
    expect(drained).toBeGreaterThan(40);
  });

  test('six PRs an hour, flaky, one configuration with a 40-minute timeout: five seeds', async () => {
    const scenario = parseScenario(busy);
    let cancelled = 0;
    for (let seed = 1; seed <= 5; seed++) {
      const simulation = await simulate(scenario, { seed });
      checkLowerBound(simulation);
      // The oracle applies the strictest timeout: a PR whose run lasts longer is cancelled, and costs it no CI.
      const { report, arrivals } = simulation;
      const durations = { seed, medianMinutes: 20, p90Minutes: 60 };
      const doomed = arrivals.filter(
        (arrival) => !arrival.broken && prDurationMs(durations, arrival.number) > 40 * MINUTE_MS,
      );
      expect(report.oracle.cancelled).toBe(doomed.length);
      expect(report.oracle.ciRuns).toBe(arrivals.filter((arrival) => !arrival.broken).length - doomed.length);
      cancelled += doomed.length;
    }
    expect(cancelled).toBeGreaterThan(0);
  });

  test('a PR tested alone lasts its own duration, the one the oracle gives it, in every configuration', async () => {
    const simulation = await simulate(parseScenario(busy), { seed: 2 });
    const durations = { seed: 2, medianMinutes: 20, p90Minutes: 60 };
    for (const { name, outcome } of simulation.queues) {
      const ended = outcome.runs.filter((run) => run.status === 'succeeded' || run.status === 'failed');
      expect(ended.length, name).toBeGreaterThan(0);
      for (const run of ended) {
        expect(run.prs, name).toHaveLength(1);
        expect(run.endedAt - run.startedAt, `${name}, ${run.id}`).toBe(prDurationMs(durations, run.prs[0] as number));
      }
    }
  });

  test('the bound is for queues that test PRs one at a time: a batch tests several PRs in one run, and costs less', async () => {
    const scenario = parseScenario({
      ...sparse,
      arrivalsPerHour: 4,
      brokenRate: 0,
      flakeRate: 0,
      configs: [{ name: 'batch4', batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 120 }],
    });
    const { report } = await simulate(scenario, { seed: 1 });
    const batch = report.configs[0] as ConfigReport;
    expect(batch.unfinished).toBe(0);
    expect(batch.ciMinutes / batch.merged).toBeLessThan(report.oracle.ciMinutes / report.oracle.merged);
  });
});
