/**
 * The failure policy on random simulated workloads (the real engine, the scenario CI, a virtual clock): no broken PR
 * merges (nothing in these configurations can merge untested), no good PR is kicked without a flaky run to blame,
 * nothing is lost (every PR ends merged or kicked once the queue drained), and every queue's event log replays.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { replayEventLog } from '../../engine/runtime/eventLog.js';
import { parseScenario } from '../../sim/scenario.js';
import { simulate } from '../../sim/simulate.js';

const config = fc.record({
  concurrency: fc.integer({ min: 1, max: 5 }),
  batch: fc.boolean(),
  batchingMinSize: fc.integer({ min: 2, max: 6 }),
  batchingMaxSize: fc.integer({ min: 1, max: 12 }),
  batchingMaxWaitTimeMinutes: fc.integer({ min: 1, max: 30 }),
  bisectionConcurrency: fc.integer({ min: 1, max: 4 }),
  optimizationMode: fc.constantFrom(
    'off' as const,
    'bisection_skip_redundant_tests' as const,
    'speculate_by_likelihood' as const,
  ),
  speculationRunsPercent: fc.integer({ min: 10, max: 100 }),
  pendingFailureDepth: fc.integer({ min: 1, max: 2 }),
  antiFlake: fc.boolean(),
  canOptimisticallyMerge: fc.boolean(),
  parallel: fc.boolean(),
  parallelBases: fc.constantFrom('transitive' as const, 'direct' as const),
});

const workload = fc.record({
  arrivalsPerHour: fc.integer({ min: 4, max: 16 }),
  brokenRate: fc.constantFrom(0, 0.05, 0.2),
  flakeRate: fc.constantFrom(0, 0.05),
  p90Minutes: fc.constantFrom(10, 25),
  seed: fc.nat(1000),
});

describe('the failure policy on random workloads', () => {
  test('no broken PR merges, no good PR is kicked without a flake, nothing is lost, and the logs replay', async () => {
    let kicked = 0;
    let bisected = 0;
    let speculative = 0;
    let speculating = 0;
    await fc.assert(
      fc.asyncProperty(workload, fc.array(config, { minLength: 1, maxLength: 2 }), async (load, configs) => {
        const scenario = parseScenario({
          name: 'random',
          hours: 3,
          drainHours: 48,
          arrivalsPerHour: load.arrivalsPerHour,
          ci: { medianMinutes: 10, p90Minutes: load.p90Minutes },
          brokenRate: load.brokenRate,
          flakeRate: load.flakeRate,
          targets: { count: 6, perPr: 2, allShare: 0.05 },
          predictiveFeatures: { authors: 6, riskyAuthors: 1, riskyShare: 0.8 },
          configs: configs.map(({ antiFlake, parallel, pendingFailureDepth, parallelBases, ...settings }, index) => ({
            name: `c${index}`,
            ...settings,
            ...(antiFlake ? { pendingFailureDepth } : {}),
            ...(parallel ? { mode: 'parallel' as const, parallelBases } : {}),
          })),
        });
        const { report, queues } = await simulate(scenario, { seed: load.seed, record: true });
        speculating += configs.filter((c) => c.optimizationMode === 'speculate_by_likelihood').length;
        for (const row of report.configs) {
          expect(row.brokenMerged, row.name).toBe(0);
          if (load.flakeRate === 0) expect(row.goodKicked, row.name).toBe(0);
          expect(row.unfinished, row.name).toBe(0);
          expect(row.merged + row.failed + row.cancelled).toBe(row.submitted);
          kicked += row.failed;
        }
        for (const queue of queues) {
          if (queue.kind !== 'config' || queue.outcome.log === undefined) continue;
          bisected += queue.outcome.runs.filter((run) => run.kind === 'bisection').length;
          const isolated = queue.outcome.runs.filter((run) => run.speculative === true);
          speculative += isolated.length;
          // A speculative run tests one PR alone, off the main line, on the target branch.
          for (const run of isolated) expect(run.prs.length, queue.name).toBe(1);
          const replay = replayEventLog(queue.outcome.log);
          expect(replay.divergence, queue.name).toBeNull();
          expect(replay.finalChecked).toBe(true);
        }
      }),
      { numRuns: 25 },
    );
    // The workloads exercise what the property speaks of.
    expect(kicked).toBeGreaterThan(10);
    expect(bisected).toBeGreaterThan(10);
    // Speculation by likelihood is configured in some queues, and what it isolates is checked above. On these
    // workloads (3 hours, windows of at most 5) it rarely finds a PR worth isolating (0 runs in 25 at the time of
    // writing), so that it isolates likely failures is test/sim/speculation.test.ts's (a deep window, a learned model).
    // `speculative >= 0` was true of any count; these can fail.
    expect(speculating).toBeGreaterThan(0);
    expect(speculative).toBeLessThanOrEqual(bisected);
    // 25 random simulations take 20–35 s on a quiet two-core machine and two minutes at a load of 14: a budget, not the
    // default 30 s.
  });
});
