/**
 * Speculation by likelihood on a simulated queue: it isolates PRs the model singles out, mostly broken ones, within
 * its CI budget, and keeps the failure policy's properties (no broken PR merges, nothing is lost, the log replays).
 */
import { describe, expect, test } from 'vitest';
import { replayEventLog } from '../../engine/runtime/eventLog.js';
import { parseScenario } from '../../sim/scenario.js';
import { simulate } from '../../sim/simulate.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { bayesLikelihood } from '../../sim/features.js';
import { runQueue } from '../../sim/queueRun.js';

describe('speculation by likelihood', () => {
  test('isolates likely failures within its budget, and nothing broken merges', async () => {
    const scenario = parseScenario({
      name: 'speculation',
      hours: 10,
      arrivalsPerHour: 20,
      ci: { medianMinutes: 20, p90Minutes: 30 },
      brokenRate: 0.12,
      flakeRate: 0.02,
      predictiveFeatures: { authors: 10, riskyAuthors: 1, riskyShare: 0.8 },
      configs: [
        { name: 'plain', concurrency: 8 },
        { name: 'speculate', concurrency: 8, optimizationMode: 'speculate_by_likelihood', speculationRunsPercent: 20 },
      ],
    });
    const { report, queues } = await simulate(scenario, { seed: 5, record: true });
    for (const row of report.configs) {
      expect(row.brokenMerged, row.name).toBe(0);
      expect(row.unfinished, row.name).toBe(0);
    }
    const speculate = queues.find((queue) => queue.name === 'speculate')!;
    const plain = queues.find((queue) => queue.name === 'plain')!;
    const isolated = speculate.outcome.runs.filter((run) => run.speculative === true);
    expect(plain.outcome.runs.some((run) => run.speculative === true)).toBe(false);
    expect(new Set(isolated.flatMap((run) => run.prs)).size).toBeGreaterThanOrEqual(4);
    // The budget: at most 20% of the PRs submitted, plus one.
    expect(new Set(isolated.flatMap((run) => run.prs)).size).toBeLessThanOrEqual(
      1 + 0.2 * speculate.outcome.prs.length,
    );
    // Isolated PRs are mostly the broken ones' kind: far likelier broken than the queue's 12%.
    const broken = new Set(speculate.outcome.prs.filter((pr) => pr.broken).map((pr) => pr.number));
    const isolatedPrs = [...new Set(isolated.flatMap((run) => run.prs))];
    expect(isolatedPrs.filter((number) => broken.has(number)).length / isolatedPrs.length).toBeGreaterThan(0.3);
    const replay = replayEventLog(speculate.outcome.log!);
    expect(replay.divergence).toBeNull();
  });

  test('with an oracle in place of the model it isolates broken PRs only; the Bayes estimate of the features ranks them higher', async () => {
    const scenario = parseScenario({
      name: 'oracle',
      hours: 6,
      arrivalsPerHour: 20,
      ci: { medianMinutes: 20, p90Minutes: 20 },
      brokenRate: 0.1,
      flakeRate: 0,
      predictiveFeatures: {},
      configs: [
        { name: 'speculate', concurrency: 8, optimizationMode: 'speculate_by_likelihood', speculationRunsPercent: 20 },
      ],
    });
    const arrivals = drawArrivals(scenario, 2);
    const settings = {
      concurrency: 8,
      optimizationMode: 'speculate_by_likelihood' as const,
      speculationRunsPercent: 20,
    };
    const outcome = await runQueue({
      scenario,
      seed: 2,
      settings,
      arrivals,
      predictor: (arrival) => (arrival.broken ? 0.99 : 0.001),
    });
    const isolated = new Set(outcome.runs.filter((run) => run.speculative === true).flatMap((run) => run.prs));
    const broken = new Set(arrivals.filter((arrival) => arrival.broken).map((arrival) => arrival.number));
    expect(isolated.size).toBeGreaterThan(0);
    expect([...isolated].every((number) => broken.has(number))).toBe(true);
    expect(outcome.prs.filter((pr) => pr.broken).every((pr) => pr.likelihood === 0.99)).toBe(true);
    const features = scenario.predictiveFeatures!;
    const bayes = (broken: boolean) => {
      const group = arrivals.filter((arrival) => arrival.broken === broken);
      return (
        group.reduce((sum, arrival) => sum + bayesLikelihood(features, scenario.brokenRate, arrival), 0) / group.length
      );
    };
    expect(bayes(true)).toBeGreaterThan(2 * bayes(false));
  });
});
