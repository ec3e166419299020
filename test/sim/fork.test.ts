/**
 * The forked simulation behind the merge estimates' bound (sim/fork.ts): a fork restores the queue's state exactly
 * (with nothing left to draw, it merges every PR when the simulation did), draws afresh what is not known (two forks
 * differ, the same fork repeats), and draws which PRs are broken from what the queue's failed runs tell.
 */
import { describe, expect, test } from 'vitest';
import type { PullRequestRecord } from '../../engine/model/pullRequests.js';
import type { TestRunRecord } from '../../engine/model/testRuns.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { type ForkSource, playFork, type Snapshot, snapshotOf } from '../../sim/fork.js';
import { drawBroken, evidenceOf } from '../../sim/forkEvidence.js';
import { runQueue, SIM_START } from '../../sim/queueRun.js';
import { Random } from '../../sim/random.js';
import { parseScenario, type ScenarioInput } from '../../sim/scenario.js';

/** One hour of arrivals into a batching queue that cannot keep up, so that PRs still wait after the last arrival. */
function scenarioOf(ci: ScenarioInput['ci'], brokenRate: number, flakeRate: number) {
  return parseScenario({
    name: 'fork',
    hours: 1,
    arrivalsPerHour: 30,
    ci,
    brokenRate,
    flakeRate,
    configs: [{ name: 'batch4', batch: true, batchingMinSize: 4, concurrency: 2 }],
  });
}

/** Runs the scenario and forks it at the first step after the last arrival with PRs waiting. */
async function runAndSnapshot(scenario: ReturnType<typeof scenarioOf>, seed: number) {
  const arrivals = drawArrivals(scenario, seed);
  const store = createMemoryStore();
  let snapshot: Snapshot | undefined;
  let targets: number[] = [];
  const outcome = await runQueue({
    scenario,
    seed,
    settings: { batch: true, batchingMinSize: 4, concurrency: 2 },
    arrivals,
    store,
    onStep: (engine, key) => {
      const lineup = engine.getQueue(key).queue.runtime.lineup;
      if (snapshot !== undefined || engine.scheduler.now() < SIM_START + 3_600_000 || lineup.length < 6) return;
      snapshot = snapshotOf(store, engine.scheduler.now());
      targets = [...lineup];
    },
  });
  if (snapshot === undefined) throw new Error('no moment after the arrivals with six PRs waiting');
  const source: ForkSource = { scenario, seed, arrivals, parallel: false };
  return { outcome, snapshot, targets, source };
}

describe('a forked simulation', () => {
  test('with nothing left to draw (no breakage, no flakes, every run the median), a fork merges each PR when the simulation did', async () => {
    const scenario = scenarioOf({ medianMinutes: 20, p90Minutes: 20 }, 0, 0);
    const { outcome, snapshot, targets, source } = await runAndSnapshot(scenario, 1);
    expect(snapshot.arrived).toBe(source.arrivals.length);
    const merged = await playFork(source, snapshot, 0, targets);
    const actual = new Map(
      outcome.prs.filter((pr) => pr.state === 'MERGED').map((pr) => [pr.number, SIM_START + pr.leftAt!]),
    );
    expect(targets.length).toBeGreaterThanOrEqual(6);
    for (const number of targets) expect(merged.get(number), `#${number}`).toBe(actual.get(number));
  });

  test('forks draw afresh what the state does not know, and the same fork plays the same way', async () => {
    const scenario = scenarioOf({ medianMinutes: 20, p90Minutes: 45 }, 0.15, 0.05);
    const { snapshot, targets, source } = await runAndSnapshot(scenario, 2);
    const [first, again, second] = [
      await playFork(source, snapshot, 0, targets),
      await playFork(source, snapshot, 0, targets),
      await playFork(source, snapshot, 1, targets),
    ];
    expect([...again]).toEqual([...first]);
    expect([...second]).not.toEqual([...first]);
  });
});

describe('which PRs are broken, drawn from the evidence', () => {
  const pr = (number: number, state: PullRequestRecord['state']) => ({ number, state }) as PullRequestRecord;
  const run = (status: TestRunRecord['status'], prs: number[]) =>
    ({ status, prs, basePrs: [] }) as unknown as TestRunRecord;
  const share = (runs: TestRunRecord[]) => {
    const evidence = evidenceOf(
      [pr(1, 'TESTING'), pr(2, 'TESTING'), pr(3, 'TESTING'), pr(4, 'MERGED')],
      runs,
      () => false,
    );
    const random = new Random(7, 'test');
    let either = 0;
    for (let draw = 0; draw < 1000; draw++) {
      const broken = drawBroken(evidence, 0.05, 0.02, random);
      if (broken.get(1) === true || broken.get(3) === true) either++;
      expect(broken.has(2)).toBe(false);
    }
    return either / 1000;
  };

  test('a failed batch makes its unproven PRs likely broken (posterior 0.84), a passed run proves its PRs good', () => {
    // P(#1 or #3 broken) = 0.0975 before; after the batch failed and #2 passed alone: 0.0975 / (0.0975 + 0.9025 × 0.02).
    expect(share([run('failed', [1, 2, 3]), run('succeeded', [2, 4])])).toBeGreaterThan(0.78);
    expect(share([run('failed', [1, 2, 3]), run('succeeded', [2, 4])])).toBeLessThan(0.9);
    expect(share([run('succeeded', [2])])).toBeLessThan(0.15);
  });
});
