/**
 * The merge estimate's forecast (engine/estimate/model.ts), a pure function: deterministic, later in the queue is
 * later, more concurrency is sooner, a run under way is counted from its start, failures widen the P90, no history
 * gives no estimate. And the fields it adds to getSubmittedPullRequest's view.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { estimateMerges, type EstimateInput } from '../../engine/estimate/index.js';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const DURATIONS = [18, 20, 22, 25, 30, 21, 19, 24].map((minutes) => minutes * MINUTE);

function input(patch: Partial<EstimateInput> = {}): EstimateInput {
  return {
    now: NOW,
    parallel: false,
    concurrency: 1,
    batchSize: 1,
    lineup: [1, 2, 3, 4].map((number) => ({ number, failureP: 0 })),
    runDurationsMs: DURATIONS,
    ...patch,
  };
}

describe('merge estimates', () => {
  test('no CI history, no estimate; the same input, the same estimate', () => {
    expect(estimateMerges(input({ runDurationsMs: [] })).size).toBe(0);
    expect([...estimateMerges(input())]).toEqual([...estimateMerges(input())]);
  });

  test('one at a time: each PR a run after the one ahead; a run under way counts from its start', () => {
    const serial = estimateMerges(input());
    const medians = [1, 2, 3, 4].map((number) => (serial.get(number)!.at - NOW) / MINUTE);
    expect(medians[0]).toBeGreaterThan(18);
    expect(medians[0]).toBeLessThan(30);
    expect(medians[3]).toBeGreaterThan(3 * 18);
    expect(medians[3]).toBeLessThan(4 * 30);
    const underWay = estimateMerges(
      input({ lineup: [{ number: 1, failureP: 0, run: { id: 'r1', startedAt: NOW - 15 * MINUTE } }] }),
    );
    expect((underWay.get(1)!.at - NOW) / MINUTE).toBeLessThan(15);
  });

  test('more concurrency is sooner; failures ahead push the P90 out', () => {
    const one = estimateMerges(input());
    const four = estimateMerges(input({ concurrency: 4 }));
    expect(four.get(4)!.at).toBeLessThan(one.get(4)!.at);
    const risky = estimateMerges(
      input({ lineup: [1, 2, 3, 4].map((number) => ({ number, failureP: number === 1 ? 0.5 : 0 })), concurrency: 4 }),
    );
    expect(risky.get(4)!.p90).toBeGreaterThan(four.get(4)!.p90);
  });

  test('property: the P90 is never before the median, and in single mode a PR never merges before the ones ahead (median)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 1, max: 120 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.double({ min: 0, max: 0.6, noNaN: true }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (concurrency, batchSize, minutes, risks, parallel) => {
          const lineup = risks.map((failureP, index) => ({ number: index + 1, failureP }));
          const estimates = estimateMerges({
            now: NOW,
            parallel,
            concurrency,
            batchSize,
            lineup,
            runDurationsMs: minutes.map((m) => m * MINUTE),
            trials: 100,
          });
          for (const estimate of estimates.values()) {
            expect(estimate.p90).toBeGreaterThanOrEqual(estimate.at);
            expect(estimate.at).toBeGreaterThanOrEqual(NOW);
          }
          if (!parallel && risks.every((risk) => risk === 0)) {
            const medians = lineup.map((pr) => estimates.get(pr.number)!.at);
            for (let i = 1; i < medians.length; i++) expect(medians[i]).toBeGreaterThanOrEqual(medians[i - 1]!);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
