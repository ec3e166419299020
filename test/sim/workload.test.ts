/** The workload generators: arrivals, breakage, priorities, impacted targets, and the scenario CI. */
import { describe, expect, test } from 'vitest';
import { drawArrivals, rateAt } from '../../sim/arrivals.js';
import { prDurationMs, runDurationMs, ScenarioCi } from '../../sim/ci.js';
import { Random } from '../../sim/random.js';
import { parseScenario, type ScenarioInput } from '../../sim/scenario.js';
import { TargetDrawer } from '../../sim/targets.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';

const base: ScenarioInput = {
  name: 'workload',
  hours: 200,
  arrivalsPerHour: 10,
  ci: { medianMinutes: 30, p90Minutes: 50 },
  brokenRate: 0.1,
  flakeRate: 0,
  configs: [{ name: 'q' }],
};

describe('arrivals', () => {
  test('Poisson at arrivalsPerHour: count and gaps as a Poisson process has them', () => {
    const arrivals = drawArrivals(parseScenario(base), 1);
    const expected = 200 * 10;
    // Within four standard deviations of the mean count (sd = √2000 ≈ 45).
    expect(Math.abs(arrivals.length - expected)).toBeLessThan(4 * Math.sqrt(expected));
    const gaps = arrivals.slice(1).map((arrival, index) => arrival.at - (arrivals[index] as { at: number }).at);
    expect(gaps.every((gap) => gap >= 0)).toBe(true);
    // Exponential gaps: mean 6 minutes, and about e^-1 of them longer than the mean.
    const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    expect(mean / 60_000).toBeGreaterThan(5.6);
    expect(mean / 60_000).toBeLessThan(6.4);
    const longer = gaps.filter((gap) => gap > 6 * 60_000).length / gaps.length;
    expect(Math.abs(longer - Math.exp(-1))).toBeLessThan(0.04);
    expect(arrivals.map((arrival) => arrival.number)).toEqual(arrivals.map((_, index) => index + 1));
    expect(arrivals.at(-1)?.at ?? 0).toBeLessThan(200 * 3_600_000);
  });

  test('broken PRs at brokenRate; no priority or targets unless the scenario asks', () => {
    const arrivals = drawArrivals(parseScenario(base), 2);
    const share = arrivals.filter((arrival) => arrival.broken).length / arrivals.length;
    expect(Math.abs(share - 0.1)).toBeLessThan(4 * Math.sqrt((0.1 * 0.9) / arrivals.length));
    expect(arrivals.every((arrival) => arrival.priority === undefined && arrival.targets === undefined)).toBe(true);
  });

  test('the same seed draws the same arrivals; another seed others', () => {
    const scenario = parseScenario({ ...base, hours: 10 });
    expect(drawArrivals(scenario, 5)).toEqual(drawArrivals(scenario, 5));
    expect(drawArrivals(scenario, 6)).not.toEqual(drawArrivals(scenario, 5));
  });

  test('each purpose has its own stream: adding targets or priorities keeps times and breakage', () => {
    const plain = drawArrivals(parseScenario({ ...base, hours: 20 }), 3);
    const richer = drawArrivals(
      parseScenario({ ...base, hours: 20, targets: { count: 50, perPr: 2 }, priorityMix: { high: 1, low: 1 } }),
      3,
    );
    expect(richer.map(({ number, at, broken }) => ({ number, at, broken }))).toEqual(plain);
  });

  test('a daily cycle: more arrivals around the peak hour than around the trough, the same mean', () => {
    const scenario = parseScenario({ ...base, hours: 24 * 20, dailyCycle: { amplitude: 0.8, peakHour: 14 } });
    expect(rateAt(scenario, 14 * 3_600_000)).toBeCloseTo(18);
    expect(rateAt(scenario, 2 * 3_600_000)).toBeCloseTo(2);
    const arrivals = drawArrivals(scenario, 4);
    const hourOf = (at: number) => Math.floor((at % 86_400_000) / 3_600_000);
    const around = (center: number) => arrivals.filter((arrival) => Math.abs(hourOf(arrival.at) - center) <= 1).length;
    expect(around(14)).toBeGreaterThan(4 * around(2));
    expect(Math.abs(arrivals.length - 24 * 20 * 10)).toBeLessThan(4 * Math.sqrt(24 * 20 * 10));
  });

  test('a priority mix: shares as weighted', () => {
    const arrivals = drawArrivals(parseScenario({ ...base, priorityMix: { urgent: 1, high: 1, medium: 8 } }), 5);
    const share = (name: string) => arrivals.filter((arrival) => arrival.priority === name).length / arrivals.length;
    expect(share('low')).toBe(0);
    expect(Math.abs(share('medium') - 0.8)).toBeLessThan(0.04);
    expect(Math.abs(share('urgent') - 0.1)).toBeLessThan(0.03);
  });
});

describe('impacted targets', () => {
  test('perPr distinct targets with a Zipf skew, and ALL at allShare', () => {
    const drawer = new TargetDrawer({ count: 100, perPr: 3, allShare: 0.1, skew: 1 }, new Random(1, 'targets'));
    const draws = Array.from({ length: 5000 }, () => drawer.draw());
    const all = draws.filter((targets) => targets === 'ALL').length / draws.length;
    expect(Math.abs(all - 0.1)).toBeLessThan(0.02);
    const lists = draws.filter((targets): targets is string[] => targets !== 'ALL');
    for (const targets of lists) {
      expect(new Set(targets).size).toBe(3);
      expect(targets.every((target) => /^\/\/t[0-9]+$/.test(target))).toBe(true);
    }
    const frequency = (name: string) => lists.filter((targets) => targets.includes(name)).length;
    expect(frequency('//t0')).toBeGreaterThan(frequency('//t9'));
    expect(frequency('//t9')).toBeGreaterThan(frequency('//t90'));
  });

  test('skew 0 is uniform; perPr equal to count takes every target', () => {
    const uniform = new TargetDrawer({ count: 10, perPr: 1, allShare: 0, skew: 0 }, new Random(2, 'targets'));
    const counts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const [target] = uniform.draw() as string[];
      counts.set(target as string, (counts.get(target as string) ?? 0) + 1);
    }
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThan(150);
    const everything = new TargetDrawer({ count: 20, perPr: 20, allShare: 0, skew: 3 }, new Random(3, 'targets'));
    expect(everything.draw()).toHaveLength(20);
  });
});

describe('the scenario CI', () => {
  const options = { seed: 1, medianMinutes: 30, p90Minutes: 50 };
  const ci = (
    overrides: Partial<{ medianMinutes: number; p90Minutes: number; flakeRate: number }>,
    broken: number[] = [],
  ) =>
    new ScenarioCi(new VirtualScheduler(), {
      ...options,
      flakeRate: 0,
      isBroken: (n) => broken.includes(n),
      ...overrides,
    });
  const alone = (number: number) => ({ prs: [number], basePrs: [] });

  test('durations are log-normal with the median and p90 asked for', () => {
    const plans = Array.from({ length: 4000 }, (_, i) => ci({}).plan(alone(i + 1), 0).durationMs / 60_000).sort(
      (a, b) => a - b,
    );
    expect(plans[2000] as number).toBeGreaterThan(28.5);
    expect(plans[2000] as number).toBeLessThan(31.5);
    expect(plans[3600] as number).toBeGreaterThan(47);
    expect(plans[3600] as number).toBeLessThan(53);
    expect(ci({ p90Minutes: 30 }).plan(alone(1), 0).durationMs).toBe(30 * 60_000);
  });

  test('a duration depends on the PRs under test alone: not on the base, the attempt or the order', () => {
    const scenarioCi = ci({});
    const own = prDurationMs(options, 5);
    expect(scenarioCi.plan(alone(5), 0).durationMs).toBe(own);
    expect(scenarioCi.plan({ prs: [5], basePrs: [1, 2, 3] }, 3).durationMs).toBe(own);
    expect(runDurationMs(options, [9, 5])).toBe(runDurationMs(options, [5, 9]));
    expect(scenarioCi.plan({ prs: [9, 5], basePrs: [] }, 0).durationMs).toBe(runDurationMs(options, [5, 9]));
    // Another set, another draw (a batch is not its first PR alone).
    expect(runDurationMs(options, [5, 9])).not.toBe(own);
  });

  test('a run containing a broken PR always fails; others fail at the flake rate, drawn anew at each attempt', () => {
    const flaky = ci({ flakeRate: 0.2 }, [7]);
    const attempts = Array.from({ length: 4000 }, (_, i) => i);
    expect(attempts.every((attempt) => !flaky.plan({ prs: [3, 9], basePrs: [7] }, attempt).passes)).toBe(true);
    expect(attempts.every((attempt) => !flaky.plan({ prs: [3, 7, 9], basePrs: [] }, attempt).passes)).toBe(true);
    const failed =
      attempts.filter((attempt) => !flaky.plan({ prs: [3, 9], basePrs: [] }, attempt).passes).length / attempts.length;
    expect(Math.abs(failed - 0.2)).toBeLessThan(0.03);
    const firstTries = attempts.filter((i) => !flaky.plan(alone(i + 10), 0).passes).length / attempts.length;
    expect(Math.abs(firstTries - 0.2)).toBeLessThan(0.03);
    expect(attempts.every((attempt) => ci({}).plan(alone(3), attempt).passes)).toBe(true);
  });

  test('reports the outcome on the run when its duration has passed, and nothing once stopped; counts attempts per set', () => {
    const scheduler = new VirtualScheduler(0);
    const scenarioCi = new ScenarioCi(scheduler, {
      seed: 1,
      medianMinutes: 10,
      p90Minutes: 10,
      flakeRate: 0,
      isBroken: (n) => n === 2,
    });
    scenarioCi.attach((runId) => (runId === 'a' ? alone(1) : { prs: [1], basePrs: [2] }));
    const reports: string[] = [];
    const run = { org: 'o', repo: { host: 'h', owner: 'o', name: 'n' }, branch: 'b', sha: 'abc', startedAt: 0 };
    scenarioCi.start({ ...run, runId: 'a' }, (status) => reports.push(`a ${status.state}`));
    scenarioCi.start({ ...run, runId: 'b' }, (status) => reports.push(`b ${status.state}`));
    scenarioCi.start({ ...run, runId: 'c' }, (status) => reports.push(`c ${status.state}`));
    scenarioCi.stop('c');
    scheduler.advanceTo(10 * 60_000 - 1);
    expect(reports).toEqual([]);
    scheduler.advanceTo(10 * 60_000);
    expect(reports).toEqual(['a success', 'b failure']);
  });

  test('the n-th attempt of a set flakes alike wherever it runs', async () => {
    const outcomes = (order: string[]) => {
      const scheduler = new VirtualScheduler(0);
      const scenarioCi = new ScenarioCi(scheduler, {
        seed: 4,
        medianMinutes: 10,
        p90Minutes: 10,
        flakeRate: 0.5,
        isBroken: () => false,
      });
      scenarioCi.attach((runId) => alone(Number(runId.split('-')[0])));
      const seen: string[] = [];
      const run = { org: 'o', repo: { host: 'h', owner: 'o', name: 'n' }, branch: 'b', sha: 'abc', startedAt: 0 };
      for (const runId of order) scenarioCi.start({ ...run, runId }, (status) => seen.push(`${runId} ${status.state}`));
      scheduler.advanceTo(10 * 60_000);
      return seen.sort();
    };
    // PR 1's first and second attempts, and PR 2's first, in two orders: the same outcomes.
    const one = outcomes(['1-a', '2-a', '1-b']);
    const other = outcomes(['2-a', '1-a', '1-b']);
    expect(other).toEqual(one);
    // Over many PRs, first and second attempts do not always agree: a retest draws anew.
    const many = Array.from({ length: 200 }, (_, i) => i + 1);
    const flaky = ci({ flakeRate: 0.5 });
    expect(many.some((n) => flaky.plan(alone(n), 0).passes !== flaky.plan(alone(n), 1).passes)).toBe(true);
  });
});
