/**
 * What the merge estimate's model gets right that it got wrong (issue 32's leftovers): the CI duration fit counts
 * cancelled runs as lasting at least what they ran and keeps the spread of the runs it saw when older runs are known
 * only by their mean (engine/estimate/durations.ts); a batch short of its least size waits as the planner makes it
 * wait; a failed batch's good PRs go through bisection and a retest before they merge (engine/estimate/bisectionEstimate.ts).
 */
import { describe, expect, test } from 'vitest';
import { estimateMerges, fitDurations, type EstimateInput } from '../../engine/estimate/index.js';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-22T12:00:00.000Z');
/** Log-normal-ish: median 30 min, logs spread by about 0.4. */
const SEEN = [16, 20, 23, 26, 28, 30, 32, 35, 39, 45, 55].map((minutes) => minutes * MINUTE);

function input(patch: Partial<EstimateInput> = {}): EstimateInput {
  return {
    now: NOW,
    parallel: false,
    concurrency: 1,
    batchSize: 1,
    lineup: [{ number: 1, failureP: 0 }],
    runDurationsMs: SEEN,
    ...patch,
  };
}

const logSpread = (values: number[]) => {
  const logs = values.map(Math.log);
  const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
  return Math.sqrt(logs.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (logs.length - 1));
};

describe('the CI duration fit', () => {
  test('the runs before the hour, known by their mean, move the median but keep the spread of the runs seen', () => {
    const seen = fitDurations({ finishedMs: SEEN, cancelledMs: [] })!;
    const withOlder = fitDurations({ finishedMs: SEEN, cancelledMs: [], allTime: { meanMs: 40 * MINUTE, runs: 500 } })!;
    expect(seen.sigma).toBeCloseTo(logSpread(SEEN), 6);
    expect(withOlder.sigma).toBeCloseTo(seen.sigma, 6);
    expect(withOlder.mu).toBeGreaterThan(seen.mu);
    // No run in the hour: the mean alone, with the prior spread.
    expect(fitDurations({ finishedMs: [], cancelledMs: [], allTime: { meanMs: 30 * MINUTE, runs: 10 } })).toBeDefined();
    expect(fitDurations({ finishedMs: [], cancelledMs: [] })).toBeUndefined();
  });

  test('cancelled runs lasted at least what they ran: the fit is longer than that of the finished runs alone', () => {
    const finished = SEEN.slice(0, 6);
    const cut = [40, 45, 50, 60].map((minutes) => minutes * MINUTE);
    const alone = fitDurations({ finishedMs: finished, cancelledMs: [] })!;
    const censored = fitDurations({ finishedMs: finished, cancelledMs: cut })!;
    expect(Math.exp(censored.mu)).toBeGreaterThan(Math.exp(alone.mu) * 1.2);
    // And the forecast uses them: a run not yet started is expected to last longer.
    const before = estimateMerges(input({ runDurationsMs: finished })).get(1)!;
    const after = estimateMerges(input({ runDurationsMs: finished, cancelledDurationsMs: cut })).get(1)!;
    expect(after.at).toBeGreaterThan(before.at);
  });

  test('a run under way long past the median is not taken for nearly done when older runs are known by their mean', () => {
    const lineup = [{ number: 1, failureP: 0, run: { id: 'r1', startedAt: NOW - 40 * MINUTE } }];
    const alone = estimateMerges(input({ lineup })).get(1)!;
    const withOlder = estimateMerges(input({ lineup, allTime: { meanMs: 32 * MINUTE, runs: 1000 } })).get(1)!;
    // The spread is the runs' own either way: the remaining time moves with the median, not by half.
    expect(withOlder.at - NOW).toBeGreaterThan((alone.at - NOW) * 0.8);
    expect(withOlder.p90 - NOW).toBeGreaterThan((alone.p90 - NOW) * 0.8);
  });
});

describe('batches', () => {
  test('a batch short of its least size starts once its oldest PR has waited the longest wait', () => {
    const lineup = [{ number: 1, failureP: 0, readyAt: NOW - MINUTE }];
    const eager = estimateMerges(input({ lineup, batchSize: 4 })).get(1)!;
    const waiting = estimateMerges(
      input({ lineup, batchSize: 4, batching: { minSize: 4, maxWaitMs: 10 * MINUTE } }),
    ).get(1)!;
    expect(waiting.at - eager.at).toBeGreaterThanOrEqual(9 * MINUTE - 1);
    // A full batch does not wait.
    const full = [1, 2, 3, 4].map((number) => ({ number, failureP: 0, readyAt: NOW - MINUTE }));
    const started = estimateMerges(input({ lineup: full, batching: { minSize: 4, maxWaitMs: 10 * MINUTE } })).get(1)!;
    expect(started.at).toBeLessThan(waiting.at);
  });

  test("a failed batch's good PRs are bisected, then tested again on the main line, before they merge", () => {
    // Every run lasts 30 minutes; #1 always fails.
    const runDurationsMs = Array.from({ length: 20 }, () => 30 * MINUTE);
    const lineup = [1, 2, 3, 4].map((number) => ({ number, failureP: number === 1 ? 1 : 0 }));
    const estimates = estimateMerges(
      input({ lineup, runDurationsMs, batchSize: 4, batching: { minSize: 4, maxWaitMs: 0 } }),
    );
    const runs = (number: number) => Math.round((estimates.get(number)!.at - NOW) / (30 * MINUTE));
    expect(estimates.has(1)).toBe(false);
    // The batch (1), its halves (2), #3 and #4's half passes and is tested again (3); #2's half fails, is split (3),
    // #2 passes and is tested again (4).
    expect(runs(3)).toBe(3);
    expect(runs(4)).toBe(3);
    expect(runs(2)).toBe(4);
  });

  test('a PR whose run passed while the one ahead still tests merges with it, not a whole run later', () => {
    // Every run lasts 30 minutes; #1 has run 10 of them, #2's run passed already (it waits for #1).
    const runDurationsMs = Array.from({ length: 20 }, () => 30 * MINUTE);
    const lineup = [
      { number: 1, failureP: 0, run: { id: 'r1', startedAt: NOW - 10 * MINUTE } },
      { number: 2, failureP: 0.5, run: { id: 'r2', startedAt: NOW - 25 * MINUTE, endedAt: NOW - MINUTE } },
    ];
    const minutes = (at: number) => Math.round((at - NOW) / MINUTE);
    const estimates = estimateMerges(input({ lineup, runDurationsMs, concurrency: 2 }));
    expect(Math.abs(minutes(estimates.get(1)!.at) - 20)).toBeLessThanOrEqual(2);
    // Its own failure chance no longer counts: its run passed; it merges when #1 does.
    expect(estimates.get(2)!.at).toBe(estimates.get(1)!.at);
    expect(estimates.get(2)!.p90).toBe(estimates.get(1)!.p90);
    // If #1 may fail, #2 is tested again after it: the P90 moves out by a run, the median stays.
    const risky = estimateMerges(
      input({
        lineup: [
          { ...lineup[0]!, failureP: 0.3 },
          { ...lineup[1]!, failureP: 0 },
        ],
        runDurationsMs,
        concurrency: 2,
      }),
    );
    expect(Math.abs(minutes(risky.get(2)!.at) - 20)).toBeLessThanOrEqual(4);
    expect(Math.abs(minutes(risky.get(2)!.p90) - 50)).toBeLessThanOrEqual(4);
  });
});
