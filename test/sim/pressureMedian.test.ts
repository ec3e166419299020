/**
 * bench:pressure's figures that tell a policy's doing from the workload's: where a PR's time to merge goes
 * (bench/pressureMedian.ts) and the closed form at a seed's own broken PRs (bench/pressureTable.ts).
 */
import { expect, test } from 'vitest';
import { phasesOf } from '../../bench/pressureMedian.js';
import { closedFormAtSeed } from '../../bench/pressureTable.js';
import type { RunOutcome } from '../../sim/queueRun.js';
import { halvingRunsPerChange, skipRedundantRunsPerChange } from '../../sim/theory.js';

const MINUTE = 60_000;
const run = (kind: RunOutcome['kind'], status: RunOutcome['status'], from: number, to: number): RunOutcome => ({
  id: `${kind}${from}`,
  kind,
  status,
  startedAt: from * MINUTE,
  endedAt: to * MINUTE,
  prs: [1],
  basePrs: [],
});

test("a PR's time to merge is cut into what it waited for, and the phases add up to it", () => {
  // Arrives at 0; its batch starts at 45 (30 of fill, 15 more for a slot) and fails at 65; its bisection group starts
  // at 70, passes at 90 but cannot stand; tested again from 100 to 120; merges at 130, behind a longer run ahead.
  const runs = [
    run('main', 'failed', 45, 65),
    run('bisection', 'succeeded', 70, 90),
    run('main', 'succeeded', 100, 120),
  ];
  const phases = phasesOf(0, 130 * MINUTE, runs, 30);
  expect(phases).toEqual({
    fill: 30,
    slot: 15,
    failed: 20,
    reset: 0,
    bisection: 20,
    between: 15,
    deciding: 20,
    after: 10,
  });
  expect(Object.values(phases ?? {}).reduce((sum, minutes) => sum + minutes, 0)).toBe(130);
});

test('a cancelled main-line run counts as reset, and a PR without a passing run has no phases', () => {
  const runs = [run('main', 'cancelled', 5, 15), run('main', 'succeeded', 15, 35)];
  expect(phasesOf(0, 35 * MINUTE, runs, 30)).toMatchObject({
    fill: 5,
    slot: 0,
    reset: 10,
    between: 0,
    deciding: 20,
    after: 0,
  });
  expect(phasesOf(0, 35 * MINUTE, [run('main', 'failed', 5, 15)], 30)).toBeNull();
});

test("the closed form at a seed's broken PRs is the closed form at their share, halving or skip-redundant", () => {
  const arrivals = Array.from({ length: 20 }, (_, k) => ({ number: k + 1, at: k * MINUTE, broken: k < 3 }));
  expect(closedFormAtSeed({ batchingMinSize: 8 }, arrivals)).toBeCloseTo(halvingRunsPerChange(0.15, 8), 12);
  const skip = closedFormAtSeed({ batchingMinSize: 8, optimizationMode: 'bisection_skip_redundant_tests' }, arrivals);
  expect(skip).toBeCloseTo(skipRedundantRunsPerChange(0.15, 8), 12);
});
