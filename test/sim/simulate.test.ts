/** Whole simulations on small scenarios: determinism, the report's accounting, the baselines. */
import { describe, expect, test } from 'vitest';
import { parseScenario, type ScenarioInput } from '../../sim/scenario.js';
import { simulate } from '../../sim/simulate.js';
import type { ConfigReport } from '../../sim/report.js';
import { formatTable } from '../../sim/report.js';

const small: ScenarioInput = {
  name: 'small',
  hours: 6,
  arrivalsPerHour: 6,
  ci: { medianMinutes: 20, p90Minutes: 35 },
  brokenRate: 0.1,
  flakeRate: 0.05,
  configs: [
    { name: 'predictive3', concurrency: 3 },
    { name: 'batch4', batch: true, batchingMinSize: 4, concurrency: 2 },
  ],
};

function rows(report: { configs: ConfigReport[]; oracle: ConfigReport; singleQueue: ConfigReport }): ConfigReport[] {
  return [...report.configs, report.singleQueue, report.oracle];
}

describe('a simulation', () => {
  test('the same seed gives the same report, byte for byte; another seed another', async () => {
    const scenario = parseScenario(small);
    const first = JSON.stringify((await simulate(scenario, { seed: 42 })).report);
    const second = JSON.stringify((await simulate(scenario, { seed: 42 })).report);
    expect(second).toBe(first);
    const other = JSON.stringify((await simulate(scenario, { seed: 43 })).report);
    expect(other).not.toBe(first);
    // The scenario's own seed is the default.
    expect(JSON.stringify((await simulate(parseScenario({ ...small, seed: 42 }))).report)).toBe(first);
  });

  test('every PR is counted once; the baselines run on the same arrivals', async () => {
    const { report, arrivals } = await simulate(parseScenario(small), { seed: 1 });
    expect(Object.keys(report)).toEqual(['scenario', 'configs', 'oracle', 'singleQueue']);
    expect(report.scenario).toMatchObject({ name: 'small', seed: 1, drainHours: 24 });
    expect(report.configs.map((row) => row.name)).toEqual(['predictive3', 'batch4']);
    const broken = arrivals.filter((arrival) => arrival.broken).length;
    for (const row of rows(report)) {
      expect(row.submitted).toBe(arrivals.length);
      expect(row.merged + row.failed + row.cancelled + row.unfinished).toBe(arrivals.length);
      expect(row.brokenMerged).toBe(0);
      // Every broken PR is kicked (a run containing it always fails); good PRs only by flakes.
      expect(row.failed).toBe(broken + row.goodKicked);
      if (row.merged > 0) expect(row.ciRunsPerMerged).toBeCloseTo(row.ciRuns / row.merged, 2);
      expect(row.timeToMerge.p50 as number).toBeLessThanOrEqual(row.timeToMerge.p90 as number);
      expect(row.timeToMerge.p90 as number).toBeLessThanOrEqual(row.timeToMerge.p99 as number);
    }
    // The oracle: each good PR tested once on arrival, merged when its run ends; broken ones never merged.
    expect(report.oracle).toMatchObject({ merged: arrivals.length - broken, failed: broken, goodKicked: 0, ciRuns: arrivals.length - broken, ciRunsPerMerged: 1, events: 0 });
    expect(report.oracle.settings).toBeUndefined();
    expect(report.singleQueue.settings).toEqual({ concurrency: 1, batch: false });
    // Nothing merges sooner than the oracle.
    for (const row of rows(report)) expect(row.timeToMerge.p50 as number).toBeGreaterThanOrEqual(report.oracle.timeToMerge.p50 as number);
    expect(report.singleQueue.timeToMerge.p90 as number).toBeGreaterThan(report.configs[0]?.timeToMerge.p90 as number);
    const table = formatTable(report);
    expect(table).toContain('singleQueue (baseline)');
    expect(table).toContain('oracle (baseline)');
    expect(table.split('\n')).toHaveLength(3 + 4);
  });

  test('PRs still queued when the drain period ends are unfinished', async () => {
    // Eight PRs an hour against one 30-minute run at a time: the single queue cannot keep up.
    const { report } = await simulate(
      parseScenario({ ...small, hours: 4, drainHours: 0, arrivalsPerHour: 8, ci: { medianMinutes: 30, p90Minutes: 30 }, configs: [{ name: 'q', concurrency: 1 }] }),
      { seed: 2 },
    );
    expect(report.singleQueue.unfinished).toBeGreaterThan(10);
    expect(report.singleQueue.simulatedHours).toBe(4);
    expect(report.singleQueue.mergedPerHour).toBeLessThanOrEqual(2);
    // With a drain period the queue empties and the simulation ends when it does.
    const drained = await simulate(
      parseScenario({ ...small, hours: 4, drainHours: 48, arrivalsPerHour: 8, ci: { medianMinutes: 30, p90Minutes: 30 }, configs: [{ name: 'q', concurrency: 1 }] }),
      { seed: 2 },
    );
    expect(drained.report.singleQueue.unfinished).toBe(0);
    expect(drained.report.singleQueue.simulatedHours).toBeGreaterThan(4);
    expect(drained.report.singleQueue.simulatedHours).toBeLessThan(52);
  });

  test('a direct merge takes broken PRs to the target branch: brokenMerged counts them', async () => {
    const { report, arrivals } = await simulate(
      parseScenario({ ...small, brokenRate: 0.3, flakeRate: 0, configs: [{ name: 'direct', directMergeMode: 'always' }] }),
      { seed: 3 },
    );
    const direct = report.configs[0] as ConfigReport;
    expect(direct.brokenMerged).toBeGreaterThan(0);
    expect(direct.merged).toBe(arrivals.length);
    expect(direct.ciRuns).toBe(0);
  });

  test('priorities and a daily cycle run through the engine', async () => {
    const { report } = await simulate(
      parseScenario({ ...small, hours: 12, priorityMix: { urgent: 1, high: 2, medium: 6, low: 1 }, dailyCycle: { amplitude: 0.9 } }),
      { seed: 4 },
    );
    for (const row of rows(report)) expect(row.merged + row.failed + row.cancelled + row.unfinished).toBe(row.submitted);
  });

  test('runs that outlast testingTimeoutMinutes cancel their PRs', async () => {
    const { report } = await simulate(
      parseScenario({ ...small, ci: { medianMinutes: 20, p90Minutes: 60 }, configs: [{ name: 'short', concurrency: 3, testingTimeoutMinutes: 25 }] }),
      { seed: 5 },
    );
    expect(report.configs[0]?.cancelled).toBeGreaterThan(0);
  });

  test('parallel lanes on disjoint targets merge sooner than one predictive line on the same arrivals', async () => {
    const scenario = parseScenario({
      ...small,
      hours: 12,
      arrivalsPerHour: 8,
      brokenRate: 0.15,
      targets: { count: 50, perPr: 1, allShare: 0 },
      configs: [
        { name: 'predictive3', concurrency: 3 },
        { name: 'lanes3', mode: 'parallel', concurrency: 3 },
      ],
    });
    const { report } = await simulate(scenario, { seed: 7 });
    const [predictive, lanes] = report.configs as [ConfigReport, ConfigReport];
    // No broken PR reaches the target in either; lanes keep one broken PR from failing the PRs of other lanes.
    expect(predictive.brokenMerged).toBe(0);
    expect(lanes.brokenMerged).toBe(0);
    expect(lanes.merged).toBeGreaterThanOrEqual(predictive.merged);
    expect(lanes.ciRunsPerMerged).toBeLessThan(predictive.ciRunsPerMerged ?? Infinity);
    expect(lanes.timeToMerge.p90).toBeLessThan(predictive.timeToMerge.p90 ?? Infinity);
  });

  test('progress is reported in virtual time, up to the whole', async () => {
    const seen: { label: string; done: number; total: number }[] = [];
    await simulate(parseScenario({ ...small, hours: 2, drainHours: 2 }), { onProgress: (progress) => seen.push(progress) });
    expect(new Set(seen.map((progress) => progress.label))).toEqual(new Set(['predictive3', 'batch4', 'singleQueue']));
    expect(seen.every((progress) => progress.done <= progress.total)).toBe(true);
    expect(seen.map((progress) => progress.done)).toEqual([...seen.map((progress) => progress.done)].sort((a, b) => a - b));
  });
});
