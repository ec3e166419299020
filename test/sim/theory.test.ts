/**
 * The engine against queueing theory, on workloads where the theory's assumptions hold. Each check has two parts:
 * the engine does exactly what the model does with the PRs it drew (so a mismatch is a bug, not luck), and the
 * measured mean lies within three standard errors of the formula's expectation (fixed seeds: deterministic).
 */
import { describe, expect, test } from 'vitest';
import { drawArrivals, type Arrival } from '../../sim/arrivals.js';
import { runQueue } from '../../sim/queueRun.js';
import { Random } from '../../sim/random.js';
import { summarise } from '../../sim/report.js';
import { parseScenario, type ScenarioInput } from '../../sim/scenario.js';
import {
  bisectionRunsPerChange,
  halvingRunsPerChange,
  predictiveResolvedPerRound,
  predictiveResolvedStdDev,
  singleQueueMergesPerHour,
  skipRedundantRunsPerChange,
} from '../../sim/theory.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

function scenario(fields: Partial<ScenarioInput>) {
  return parseScenario({
    name: 'theory',
    hours: 1,
    drainHours: 0,
    arrivalsPerHour: 1,
    ci: { medianMinutes: 10, p90Minutes: 10 },
    brokenRate: 0,
    flakeRate: 0,
    configs: [{ name: 'queue' }],
    ...fields,
  });
}

describe('a single queue with constant CI time T', () => {
  test('saturates at 1/T merges', async () => {
    const T = 10;
    const hours = 20;
    // Poisson arrivals at twice the capacity: the queue is never empty once the first PR has arrived.
    const s = scenario({
      hours,
      arrivalsPerHour: 2 * singleQueueMergesPerHour(T),
      ci: { medianMinutes: T, p90Minutes: T },
    });
    const arrivals = drawArrivals(s, 7);
    const outcome = await runQueue({ scenario: s, seed: 7, settings: { concurrency: 1, batch: false }, arrivals });
    const report = summarise('single', outcome);
    // The model, PR by PR: each is tested when it has arrived and the one ahead has merged, and merges T later.
    const merges = new Map<number, number>();
    let free = 0;
    for (const arrival of arrivals) {
      const mergesAt = Math.max(arrival.at, free) + T * MINUTE_MS;
      if (mergesAt > hours * HOUR_MS) break;
      merges.set(arrival.number, mergesAt);
      free = mergesAt;
    }
    for (const pr of outcome.prs) {
      expect({ pr: pr.number, merged: pr.state === 'MERGED', leftAt: pr.leftAt }).toEqual({
        pr: pr.number,
        merged: merges.has(pr.number),
        leftAt: merges.get(pr.number) ?? null,
      });
    }
    // Runs follow each other without a gap from the first arrival on; only the time before it is lost.
    const first = (arrivals[0] as Arrival).at / MINUTE_MS;
    expect(report.merged).toBe(Math.floor((hours * 60 - first) / T));
    expect(report.mergedPerHour).toBeLessThanOrEqual(singleQueueMergesPerHour(T));
    expect(report.mergedPerHour).toBeGreaterThan(0.98 * singleQueueMergesPerHour(T));
    expect(report.unfinished).toBeGreaterThan(50);
  });
});

/** Runs a batch of PRs takes with bisection in halves, one group at a time: 1, plus both halves if it failed. */
function bisectionRuns(broken: readonly boolean[]): number {
  if (broken.length === 1 || !broken.some(Boolean)) return 1;
  const half = broken.length / 2;
  return 1 + bisectionRuns(broken.slice(0, half)) + bisectionRuns(broken.slice(half));
}

/**
 * Runs with bisection_skip_redundant_tests: the batch, then for a group known to fail its first half; if that passes,
 * the second half is known to fail without a run; if it fails, the second half is tested like a batch of its own.
 */
function skipRuns(broken: readonly boolean[], knownToFail = false): number {
  const fails = broken.some(Boolean);
  const own = knownToFail ? 0 : 1;
  if (!fails || broken.length === 1) return own;
  const half = Math.ceil(broken.length / 2);
  const first = broken.slice(0, half);
  const second = broken.slice(half);
  return own + skipRuns(first) + skipRuns(second, !first.some(Boolean));
}

/** Exact mean and variance of a model's runs over every pattern of failures (each PR fails with probability p). */
function bisectionMoments(
  p: number,
  size: number,
  model: (broken: readonly boolean[]) => number = bisectionRuns,
): { mean: number; variance: number } {
  let mean = 0;
  let square = 0;
  for (let pattern = 0; pattern < 2 ** size; pattern++) {
    const broken = Array.from({ length: size }, (_, bit) => ((pattern >> bit) & 1) === 1);
    const failures = broken.filter(Boolean).length;
    const probability = p ** failures * (1 - p) ** (size - failures);
    const runs = model(broken);
    mean += probability * runs;
    square += probability * runs * runs;
  }
  return { mean, variance: square - mean * mean };
}

/** The runs of bisection in halves, for any size (halves of ⌈n/2⌉ and ⌊n/2⌋). */
function halvingRuns(broken: readonly boolean[]): number {
  if (broken.length === 1 || !broken.some(Boolean)) return 1;
  const half = Math.ceil(broken.length / 2);
  return 1 + halvingRuns(broken.slice(0, half)) + halvingRuns(broken.slice(half));
}

describe('batching with bisection in halves', () => {
  test('the formula is the expectation of the bisection model (0.40 runs per change for p = 0.05, b = 8)', () => {
    expect(bisectionRunsPerChange(0.05, 8)).toBeCloseTo(0.3994, 4);
    expect(bisectionMoments(0.05, 8).mean / 8).toBeCloseTo(bisectionRunsPerChange(0.05, 8), 10);
    expect(bisectionMoments(0.2, 4).mean / 4).toBeCloseTo(bisectionRunsPerChange(0.2, 4), 10);
    // Any size: halves of ⌈n/2⌉ and ⌊n/2⌋.
    expect(halvingRunsPerChange(0.05, 8)).toBeCloseTo(bisectionRunsPerChange(0.05, 8), 12);
    expect(halvingRunsPerChange(0.1, 6)).toBeCloseTo(
      bisectionMoments(0.1, 6, (broken) => halvingRuns(broken)).mean / 6,
      10,
    );
  });

  test('with skip-redundant, the closed form is the expectation of its model (0.33 runs per change for p = 0.05, b = 8)', () => {
    expect(skipRedundantRunsPerChange(0.05, 8)).toBeCloseTo(0.3348, 4);
    for (const [p, size] of [
      [0.05, 8],
      [0.02, 16],
      [0.2, 5],
      [0.1, 7],
    ] as const) {
      expect(bisectionMoments(p, size, skipRuns).mean / size).toBeCloseTo(skipRedundantRunsPerChange(p, size), 10);
    }
  });

  test.each([
    {
      optimizationMode: 'off' as const,
      bisectionConcurrency: 1,
      model: bisectionRuns,
      formula: bisectionRunsPerChange,
    },
    // One bisection run at a time, as in the models: with more, a group that passes while a PR found good merges
    // is tested again (its pass was on a target without that PR), which the models do not count.
    {
      optimizationMode: 'bisection_skip_redundant_tests' as const,
      bisectionConcurrency: 1,
      model: skipRuns,
      formula: skipRedundantRunsPerChange,
    },
  ])(
    'costs close to c runs per change under independent failures (optimizationMode $optimizationMode)',
    async ({ optimizationMode, bisectionConcurrency, model, formula }) => {
      const p = 0.05;
      const size = 8;
      const T = 10;
      const bursts = 200;
      // Bursts of exactly one batch, far enough apart that each is resolved before the next: the formula's setting.
      const spacing = 30 * T * MINUTE_MS;
      const random = new Random(11, 'theory-bisection');
      const arrivals: Arrival[] = [];
      for (let burst = 0; burst < bursts; burst++) {
        for (let i = 0; i < size; i++)
          arrivals.push({ number: arrivals.length + 1, at: burst * spacing, broken: random.chance(p) });
      }
      const s = scenario({
        hours: (bursts * spacing) / 3_600_000,
        brokenRate: p,
        ci: { medianMinutes: T, p90Minutes: T },
      });
      const outcome = await runQueue({
        scenario: s,
        seed: 3,
        // Each group is tested on the known-good line (the target and what merged), as in the model.
        settings: {
          batch: true,
          batchingMinSize: size,
          batchingMaxWaitTimeMinutes: 60,
          concurrency: 1,
          bisectionConcurrency,
          optimizationMode,
        },
        arrivals,
      });
      let modelRuns = 0;
      for (let burst = 0; burst < bursts; burst++) {
        const broken = arrivals.slice(burst * size, (burst + 1) * size).map((arrival) => arrival.broken);
        const runs = outcome.runs.filter(
          (run) => run.startedAt >= burst * spacing && run.startedAt < (burst + 1) * spacing,
        );
        // The engine runs exactly the groups the model runs, for every burst.
        expect({ burst, runs: runs.length }).toEqual({ burst, runs: model(broken) });
        modelRuns += runs.length;
      }
      const report = summarise('batch', outcome);
      // Every broken PR kicked, every good one merged: bisection found each culprit, and only the culprits.
      expect(report.failed).toBe(arrivals.filter((arrival) => arrival.broken).length);
      expect(report.merged + report.failed).toBe(arrivals.length);
      expect(report.goodKicked).toBe(0);
      expect(report.brokenMerged).toBe(0);
      const measured = outcome.runs.length / arrivals.length;
      expect(measured).toBe(modelRuns / arrivals.length);
      const { variance } = bisectionMoments(p, size, model);
      const tolerance = (3 * Math.sqrt(variance / bursts)) / size;
      expect(Math.abs(measured - formula(p, size))).toBeLessThan(tolerance);
      // 200 simulated bursts take 10–45 s on a loaded two-core machine: a budget, not the default 30 s.
    },
    180_000,
  );
});

/**
 * PRs resolved in each round with window w and full reset, on these PRs in this order (each round starts full), and
 * how and in which round each resolved PR was (PR numbers from 1, in order).
 */
function predictiveRounds(
  broken: readonly boolean[],
  window: number,
  rounds: number,
): { perRound: number[]; kicked: number; resolved: Map<number, { round: number; state: 'MERGED' | 'FAILED' }> } {
  const perRound: number[] = [];
  const resolved = new Map<number, { round: number; state: 'MERGED' | 'FAILED' }>();
  let kicked = 0;
  let head = 0;
  for (let round = 0; round < rounds; round++) {
    const first = broken.slice(head, head + window).indexOf(true);
    const count = first === -1 ? window : first + 1;
    perRound.push(count);
    if (first !== -1) kicked++;
    for (let at = 0; at < count; at++)
      resolved.set(head + at + 1, { round, state: at === first ? 'FAILED' : 'MERGED' });
    head += count;
  }
  return { perRound, kicked, resolved };
}

describe('predictive testing with window w and full reset', () => {
  test.each([
    { window: 4, p: 0.1 },
    { window: 8, p: 0.05 },
  ])(
    'resolves about (1 − (1−p)^w)/p PRs per round (w = $window, p = $p)',
    async ({ window, p }) => {
      const T = 10;
      const rounds = 240;
      const random = new Random(5, `theory-predictive-${window}`);
      const broken = Array.from({ length: rounds * window }, () => random.chance(p));
      // Top the queue up at the start of each round to exactly w waiting PRs: always full, never deep.
      const { perRound, kicked, resolved } = predictiveRounds(broken, window, rounds);
      const arrivals: Arrival[] = [];
      let head = 0;
      for (let round = 0; round < rounds; round++) {
        while (arrivals.length < head + window) {
          arrivals.push({
            number: arrivals.length + 1,
            at: round * T * MINUTE_MS,
            broken: broken[arrivals.length] as boolean,
          });
        }
        head += perRound[round] as number;
      }
      const s = scenario({ hours: (rounds * T) / 60, brokenRate: p, ci: { medianMinutes: T, p90Minutes: T } });
      const outcome = await runQueue({ scenario: s, seed: 3, settings: { concurrency: window }, arrivals });
      const report = summarise('predictive', outcome);
      const expectedResolved = perRound.reduce((sum, count) => sum + count, 0);
      // The engine resolves exactly the PRs the model does, each in the model's round (it ends T after the round
      // starts): the first failure of each round is kicked, the PRs before it merge, the ones after it are retested.
      for (const pr of outcome.prs) {
        const model = resolved.get(pr.number);
        expect({ pr: pr.number, state: pr.leftAt === null ? 'unresolved' : pr.state, leftAt: pr.leftAt }).toEqual({
          pr: pr.number,
          state: model?.state ?? 'unresolved',
          leftAt: model === undefined ? null : (model.round + 1) * T * MINUTE_MS,
        });
      }
      expect(report.merged + report.failed).toBe(expectedResolved);
      expect(report.failed).toBe(kicked);
      expect(report.goodKicked).toBe(0);
      expect(report.brokenMerged).toBe(0);
      const measured = expectedResolved / rounds;
      const tolerance = (3 * predictiveResolvedStdDev(p, window)) / Math.sqrt(rounds);
      expect(Math.abs(measured - predictiveResolvedPerRound(p, window))).toBeLessThan(tolerance);
      // 240 rounds take 13–30 s on a quiet two-core machine and 52–98 s beside simulator benches: a budget.
    },
    180_000,
  );
});
