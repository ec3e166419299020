/** The adaptive window's rule (engine/planner/window.ts), as a pure function. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { countVerdict, EVIDENCE, failureShareOf, KEPT_CHANCE, MEMORY, nextWindow, usefulDepth, type VerdictCounts } from '../../engine/planner/window.js';

const bounds = { floor: 1, concurrency: 100 };
/** Counts of `ended` verdicts of which `failed` failed. */
const seen = (ended: number, failed: number): VerdictCounts => [ended, failed];

describe('adaptive window rule', () => {
  test('the useful depth is the deepest run still kept with at least KEPT_CHANCE', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 0.9, noNaN: true }), (q) => {
        const depth = usefulDepth(q);
        // The run at depth k is kept when none of the k − 1 runs ahead of it fails.
        expect((1 - q) ** (depth - 1)).toBeGreaterThanOrEqual(KEPT_CHANCE * (1 - 1e-9));
        expect((1 - q) ** depth).toBeLessThan(KEPT_CHANCE);
      }),
    );
    expect(usefulDepth(0)).toBe(Number.POSITIVE_INFINITY);
    expect(usefulDepth(0.2)).toBeLessThan(usefulDepth(0.05));
  });

  test('before the queue has EVIDENCE verdicts, a failure halves the window and a pass adds one (Zuul)', () => {
    const few = seen(EVIDENCE - 1, 0);
    expect(nextWindow(64, bounds, false, true, few)).toBe(32);
    expect(nextWindow(64, bounds, true, false, few)).toBe(65);
    expect(nextWindow(64, bounds, false, true, undefined)).toBe(32);
  });

  test('with a low failure rate a failure does not shrink a window every run of which is still useful', () => {
    // 2 failures in 100 verdicts: q = 3/120, useful depth in the hundreds.
    const counts = seen(100, 2);
    expect(usefulDepth(failureShareOf(counts))).toBeGreaterThan(100);
    expect(nextWindow(64, bounds, false, true, counts)).toBe(64);
  });

  test('with a high failure rate a failure shrinks to the useful depth, or halves when that is deeper', () => {
    // 50 failures in 100 verdicts: q = 51/120, useful depth 17.
    const counts = seen(100, 50);
    const useful = usefulDepth(failureShareOf(counts));
    expect(useful).toBe(17);
    expect(nextWindow(30, bounds, false, true, counts)).toBe(useful);
    expect(nextWindow(80, bounds, false, true, counts)).toBe(40);
    expect(nextWindow(10, bounds, false, true, counts)).toBe(10);
  });

  test('a pass below the useful depth goes back to it at once; a failure that resets nothing leaves the window', () => {
    const counts = seen(100, 50);
    expect(nextWindow(4, bounds, true, false, counts)).toBe(17);
    expect(nextWindow(20, bounds, true, false, counts)).toBe(21);
    expect(nextWindow(20, bounds, false, false, counts)).toBe(20);
  });

  test('always within the floor and concurrency', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 300 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: MEMORY }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, b, current, passed, resets, ended, share) => {
          const floor = Math.min(a, b);
          const concurrency = Math.max(a, b);
          const next = nextWindow(current, { floor, concurrency }, passed, resets, seen(ended, Math.round(ended * share)));
          expect(next).toBeGreaterThanOrEqual(floor);
          expect(next).toBeLessThanOrEqual(concurrency);
        },
      ),
    );
  });

  test('the verdict counts follow the recent past: halved past MEMORY', () => {
    let counts: VerdictCounts | undefined;
    for (let k = 0; k < MEMORY; k++) counts = countVerdict(counts, k % 4 !== 0);
    expect(counts).toEqual([MEMORY, MEMORY / 4]);
    counts = countVerdict(counts, false);
    expect(counts).toEqual([(MEMORY + 1) / 2, (MEMORY / 4 + 1) / 2]);
    // A queue whose failures stopped: its share falls toward the prior's.
    for (let k = 0; k < 4 * MEMORY; k++) counts = countVerdict(counts, true);
    expect(failureShareOf(counts)).toBeLessThan(0.05);
  });
});
