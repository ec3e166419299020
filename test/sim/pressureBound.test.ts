/**
 * bench/pressureBound.ts: the clairvoyant sharing of main-line runs that bounds the busy monorepo's policy class
 * (issue 28). A run covers the PRs of its base ready at most W minutes before it; the runs alone and the main-line
 * runs that failed are kept as spent.
 */
import { expect, test } from 'vitest';
import { sharedMainLine } from '../../bench/pressureBound.js';
import type { QueueOutcome, RunOutcome } from '../../sim/queueRun.js';

const MINUTE = 60_000;
const run = (
  id: string,
  kind: RunOutcome['kind'],
  status: RunOutcome['status'],
  from: number,
  to: number,
  prs: number[],
  basePrs: number[],
): RunOutcome => ({ id, kind, status, startedAt: from * MINUTE, endedAt: to * MINUTE, prs, basePrs });
const merged = (number: number, leftAt: number) => ({
  number,
  arrivedAt: 0,
  broken: false,
  state: 'MERGED' as const,
  leftAt: leftAt * MINUTE,
});

// A line of three PRs, each tested alone first, then on top of the PRs ahead: #2's run (ready at 2) holds #1 (ready
// at 0), #3's (ready at 10) holds both. #2's run ends first and decides #1 too: #1's run is cancelled. One run alone
// failed (a flake, retested): kept as spent.
const outcome: QueueOutcome = {
  prs: [merged(1, 40), merged(2, 40), merged(3, 45)],
  runs: [
    { ...run('a1', 'bisection', 'succeeded', -30, 0, [1], []), speculative: true },
    { ...run('a2', 'bisection', 'succeeded', -28, 2, [2], []), speculative: true },
    { ...run('a3', 'bisection', 'failed', -20, 5, [3], []), speculative: true },
    { ...run('a3b', 'bisection', 'succeeded', -20, 10, [3], []), speculative: true },
    run('m1', 'main', 'cancelled', 0, 40, [1], []),
    run('m2', 'main', 'succeeded', 2, 40, [2], [1]),
    run('m3', 'main', 'succeeded', 10, 45, [3], [1, 2]),
  ],
  endAt: 45 * MINUTE,
  events: 0,
  saturated: false,
};

test('without a wait every PR ready at its own moment needs a run of its own', () => {
  const [row] = sharedMainLine(outcome, [0]);
  expect(row).toMatchObject({ waitMinutes: 0, sharedRuns: 3, meanWait: 0 });
  expect(row?.runsPerMerge).toBeCloseTo((4 + 3) / 3);
});

test('a wait of W minutes lets a later run cover the PRs of its base ready within W before it', () => {
  const [five, ten] = sharedMainLine(outcome, [5, 10]);
  // W = 5: #1 waits 2 minutes for #2's run; #3, ready 8 minutes after #2, runs on its own.
  expect(five).toMatchObject({ sharedRuns: 2, meanWait: 2 / 3 });
  // W = 10: #3's run covers all three (#1 waits 10 minutes, #2 8); P50 is the median time to merge plus the wait.
  expect(ten).toMatchObject({ sharedRuns: 1, meanWait: 6 });
  expect(ten?.p50).toBe(48);
  expect(ten?.runsPerMerge).toBeCloseTo((4 + 1) / 3);
});
