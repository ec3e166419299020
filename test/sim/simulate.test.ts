/** Whole simulations on small scenarios: determinism, the report's accounting, the baselines. */
import { describe, expect, test } from 'vitest';
import { parseScenario, type ScenarioInput } from '../../sim/scenario.js';
import { simulate, type SimulatedQueue } from '../../sim/simulate.js';
import { mergeTimes, percentileOf, type ConfigReport } from '../../sim/report.js';
import { formatTable } from '../../sim/reportTable.js';

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

/** A percentile in minutes, +∞ for one whose PR never merged. */
function minutes(row: ConfigReport, name: 'p50' | 'p90' | 'p99'): number {
  return row.timeToMerge[name] ?? Infinity;
}

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
      expect(minutes(row, 'p50')).toBeLessThanOrEqual(minutes(row, 'p90'));
      expect(minutes(row, 'p90')).toBeLessThanOrEqual(minutes(row, 'p99'));
      expect(row.saturated).toBe(false);
    }
    // The oracle: each good PR tested once on arrival, merged when its run ends; broken ones never merged.
    expect(report.oracle).toMatchObject({
      merged: arrivals.length - broken,
      failed: broken,
      goodKicked: 0,
      ciRuns: arrivals.length - broken,
      ciRunsPerMerged: 1,
      events: 0,
    });
    expect(report.oracle.timeToMerge.censored).toEqual([]);
    expect(report.oracle.settings).toBeUndefined();
    expect(report.singleQueue.settings).toEqual({ concurrency: 1, batch: false });
    // Nothing merges sooner than the oracle.
    for (const row of rows(report)) expect(minutes(row, 'p50')).toBeGreaterThanOrEqual(minutes(report.oracle, 'p50'));
    expect(minutes(report.singleQueue, 'p90')).toBeGreaterThan(minutes(report.configs[0] as ConfigReport, 'p90'));
    const table = formatTable(report);
    expect(table).toContain('singleQueue (baseline)');
    expect(table).toContain('oracle (baseline)');
    // The heading, a blank line, the titles and four rows; then, after a blank line, what its marks mean, if any.
    const lines = table.split('\n');
    expect(lines.slice(0, 3 + 4).map((line) => line === '')).toEqual([false, true, false, false, false, false, false]);
    expect(lines[3 + 4] ?? '').toBe('');
  });

  test('PRs still queued when the drain period ends are unfinished', async () => {
    // Eight PRs an hour against one 30-minute run at a time: the single queue cannot keep up.
    const { report } = await simulate(
      parseScenario({
        ...small,
        hours: 4,
        drainHours: 0,
        arrivalsPerHour: 8,
        ci: { medianMinutes: 30, p90Minutes: 30 },
        configs: [{ name: 'q', concurrency: 1 }],
      }),
      { seed: 2 },
    );
    expect(report.singleQueue.unfinished).toBeGreaterThan(10);
    expect(report.singleQueue.simulatedHours).toBe(4);
    expect(report.singleQueue.mergedPerHour).toBeLessThanOrEqual(2);
    // With a drain period the queue empties and the simulation ends when it does.
    const drained = await simulate(
      parseScenario({
        ...small,
        hours: 4,
        drainHours: 48,
        arrivalsPerHour: 8,
        ci: { medianMinutes: 30, p90Minutes: 30 },
        configs: [{ name: 'q', concurrency: 1 }],
      }),
      { seed: 2 },
    );
    expect(drained.report.singleQueue.unfinished).toBe(0);
    expect(drained.report.singleQueue.simulatedHours).toBeGreaterThan(4);
    expect(drained.report.singleQueue.simulatedHours).toBeLessThan(52);
  });

  test('time to merge counts every good PR: one still queued at the end is censored, one kicked never merges', async () => {
    // Eight PRs an hour against one 30-minute run at a time, no drain: most PRs are still queued at the end.
    const simulation = await simulate(
      parseScenario({
        ...small,
        hours: 4,
        drainHours: 0,
        arrivalsPerHour: 8,
        ci: { medianMinutes: 30, p90Minutes: 30 },
        configs: [{ name: 'q', concurrency: 4 }],
      }),
      { seed: 2 },
    );
    const { report, arrivals } = simulation;
    const single = report.singleQueue;
    const times = mergeTimes(
      (simulation.queues.find((queue) => queue.name === 'singleQueue') as SimulatedQueue).outcome,
    );
    expect(times).toHaveLength(arrivals.filter((arrival) => !arrival.broken).length);
    expect(times.filter((time) => !time.censored && time.minutes !== Infinity)).toHaveLength(single.merged);
    // Fewer than half the good PRs merged: the median is a lower bound (the time in the queue of a PR still queued).
    expect(single.merged).toBeLessThan(times.length / 2);
    expect(single.timeToMerge.censored).toEqual(['p50', 'p90', 'p99']);
    const table = formatTable(report);
    expect(table).toMatch(
      new RegExp(`singleQueue \\(baseline\\) .* >${(single.timeToMerge.p50 as number).toFixed(0)} `),
    );
    expect(table).toContain('>N: a lower bound');

    // A PR the queue kicked never merges: the nearest rank past the merged ones has no time.
    const flaky = await simulate(
      parseScenario({ ...small, brokenRate: 0, flakeRate: 0.3, configs: [{ name: 'q', concurrency: 2 }] }),
      { seed: 3 },
    );
    const row = flaky.report.configs[0] as ConfigReport;
    expect(row.goodKicked).toBeGreaterThan(row.submitted * 0.01);
    expect(row.unfinished).toBe(0);
    expect(row.timeToMerge.p99).toBeNull();
    expect(row.timeToMerge.censored).toEqual([]);
  });

  test('percentiles under censoring: exact only when no censored time ranks at or below them', () => {
    const time = (minutes: number, censored = false) => ({ number: 0, minutes, censored });
    expect(percentileOf([time(10), time(20), time(30), time(40)], 50)).toEqual({ minutes: 20, censored: false });
    // A PR still queued after 5 minutes may merge after 20: the median is at least 10, maybe more.
    expect(percentileOf([time(5, true), time(10), time(20), time(30)], 50)).toEqual({ minutes: 10, censored: true });
    expect(percentileOf([time(10), time(20), time(25, true), time(30)], 50)).toEqual({ minutes: 20, censored: false });
    expect(percentileOf([time(10), time(20), time(Infinity), time(Infinity)], 90)).toEqual({
      minutes: null,
      censored: false,
    });
    expect(percentileOf([], 50)).toEqual({ minutes: null, censored: false });
  });

  test('a queue that grows past saturationDepth is saturated: its simulation stops, the rest is unfinished', async () => {
    const scenario = parseScenario({
      ...small,
      // Eight runs at once resolve about ten PRs an hour at these failure rates: four an hour keep up whatever the
      // luck (eight did not: at 0.8 of its capacity, a run of failures took it past 12 on some seeds).
      hours: 8,
      arrivalsPerHour: 4,
      saturationDepth: 12,
      ci: { medianMinutes: 30, p90Minutes: 30 },
      configs: [{ name: 'keeps-up', concurrency: 8 }],
    });
    const { report, arrivals } = await simulate(scenario, { seed: 2 });
    const single = report.singleQueue;
    expect(single.saturated).toBe(true);
    expect(single.maxDepth).toBe(13);
    expect(single.simulatedHours).toBeLessThan(8);
    expect(single.merged + single.failed + single.cancelled + single.unfinished).toBe(arrivals.length);
    // PRs that had not arrived when it stopped are unfinished too.
    const stoppedAt = single.simulatedHours * 3_600_000;
    expect(single.unfinished).toBeGreaterThan(arrivals.filter((arrival) => arrival.at > stoppedAt).length);
    expect(single.timeToMerge.censored).toContain('p50');
    const keepsUp = report.configs[0] as ConfigReport;
    expect(keepsUp).toMatchObject({ saturated: false, unfinished: 0 });
    expect(report.oracle.saturated).toBe(false);
    const table = formatTable(report);
    expect(table).toContain('singleQueue (baseline, saturated)');
    expect(table).toContain('saturated: the queue grew past 12 PRs');
  });

  test("the baselines' names are refused, even in a scenario built in code; each row keeps its own settings", async () => {
    const scenario = parseScenario(small);
    const clash = { ...scenario, configs: [{ name: 'singleQueue', concurrency: 5 }] };
    await expect(simulate(clash)).rejects.toThrow(/configs\[0\]\.name: "singleQueue" is the name of a baseline/);
    const { report } = await simulate(
      parseScenario({ ...small, hours: 2, configs: [{ name: 'wide', concurrency: 5 }] }),
    );
    expect(report.configs[0]?.settings).toEqual({ concurrency: 5 });
    expect(report.singleQueue.settings).toEqual({ concurrency: 1, batch: false });
  });

  test('a direct merge takes broken PRs to the target branch: brokenMerged counts them', async () => {
    const { report, arrivals } = await simulate(
      parseScenario({
        ...small,
        brokenRate: 0.3,
        flakeRate: 0,
        configs: [{ name: 'direct', directMergeMode: 'always' }],
      }),
      { seed: 3 },
    );
    const direct = report.configs[0] as ConfigReport;
    expect(direct.brokenMerged).toBeGreaterThan(0);
    expect(direct.merged).toBe(arrivals.length);
    expect(direct.ciRuns).toBe(0);
  });

  test('priorities and a daily cycle run through the engine', async () => {
    const { report } = await simulate(
      parseScenario({
        ...small,
        hours: 12,
        priorityMix: { urgent: 1, high: 2, medium: 6, low: 1 },
        dailyCycle: { amplitude: 0.9 },
      }),
      { seed: 4 },
    );
    for (const row of rows(report))
      expect(row.merged + row.failed + row.cancelled + row.unfinished).toBe(row.submitted);
  });

  test('runs that outlast testingTimeoutMinutes cancel their PRs', async () => {
    const { report } = await simulate(
      parseScenario({
        ...small,
        ci: { medianMinutes: 20, p90Minutes: 60 },
        configs: [{ name: 'short', concurrency: 3, testingTimeoutMinutes: 25 }],
      }),
      {
        seed: 5,
      },
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
    await simulate(parseScenario({ ...small, hours: 2, drainHours: 2 }), {
      onProgress: (progress) => seen.push(progress),
    });
    expect(new Set(seen.map((progress) => progress.label))).toEqual(new Set(['predictive3', 'batch4', 'singleQueue']));
    expect(seen.every((progress) => progress.done <= progress.total)).toBe(true);
    expect(seen.map((progress) => progress.done)).toEqual(
      [...seen.map((progress) => progress.done)].sort((a, b) => a - b),
    );
  });
});
