/** The adaptive window's rule (engine/planner/window.ts), as a pure function. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  countVerdict,
  failureShareOf,
  KEPT_CHANCE,
  logKeptChance,
  MEMORY,
  nextWindow,
  usefulDepth,
  type VerdictCounts,
} from '../../engine/planner/window.js';

const bounds = { floor: 1, concurrency: 100 };
/** Counts of `ended` verdicts of which `failed` failed. */
const seen = (ended: number, failed: number): VerdictCounts => [ended, failed];
/** Verdict counts a queue may hold: up to MEMORY verdicts (halved past it, so not always whole), some of them failed. */
const counts = fc
  .tuple(fc.double({ min: 0, max: MEMORY, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([ended, share]): VerdictCounts => [ended, ended * share]);
/** The chance that the next `ahead` verdicts all pass, counted one by one (the product that logKeptChance sums up). */
function allPassChance([ended, failed]: VerdictCounts, ahead: number): number {
  const alpha = failed + 1;
  const beta = ended - failed + 19;
  let chance = 1;
  for (let i = 0; i < ahead; i++) chance *= (beta + i) / (alpha + beta + i);
  return chance;
}

describe('adaptive window rule', () => {
  test('the chance of a run being kept is the chance, given the verdicts, that every run ahead of it passes', () => {
    fc.assert(
      fc.property(counts, fc.integer({ min: 1, max: 400 }), (verdicts, depth) => {
        expect(logKeptChance(verdicts, depth)).toBeCloseTo(Math.log(allPassChance(verdicts, depth - 1)), 8);
      }),
    );
  });

  test('the useful depth is the deepest run still kept with at least KEPT_CHANCE (or the limit)', () => {
    fc.assert(
      fc.property(counts, fc.integer({ min: 1, max: 100_000 }), (verdicts, limit) => {
        const depth = usefulDepth(verdicts, limit);
        expect(depth).toBeGreaterThanOrEqual(1);
        expect(depth).toBeLessThanOrEqual(limit);
        if (depth > 1) expect(logKeptChance(verdicts, depth)).toBeGreaterThanOrEqual(Math.log(KEPT_CHANCE));
        if (depth < limit) expect(logKeptChance(verdicts, depth + 1)).toBeLessThan(Math.log(KEPT_CHANCE));
      }),
    );
  });

  test('more failures never make the useful depth deeper, more passes never make it shallower', () => {
    fc.assert(
      // At least 10⁻³ more: a smaller change moves a depth near 10⁵, whose chance is the bar itself (no verdicts: the
      // prior's 19 / (18 + d) is 10⁻⁴ at d = 189,982), by less than ln Γ's rounding at such arguments.
      fc.property(counts, fc.double({ min: 1e-3, max: 50, noNaN: true }), (verdicts, more) => {
        const [ended, failed] = verdicts;
        const depth = usefulDepth(verdicts, 1e6);
        expect(usefulDepth([ended + more, failed + more], 1e6)).toBeLessThanOrEqual(depth);
        expect(usefulDepth([ended + more, failed], 1e6)).toBeGreaterThanOrEqual(depth);
      }),
    );
  });

  test('with few verdicts the depth is deeper than the point estimate makes it; with many it comes close to it', () => {
    // The depth a known failure rate q makes useful: (1 − q)^(k − 1) ≥ KEPT_CHANCE.
    const known = (q: number) => Math.floor(1 + Math.log(KEPT_CHANCE) / Math.log(1 - q));
    // Three failures in the first three verdicts: the share is high, but so little is known that nothing is cut.
    expect(usefulDepth(seen(3, 3), 1000)).toBeGreaterThan(100);
    expect(usefulDepth(seen(0, 0), 1e9)).toBeGreaterThan(100_000);
    // Half of 40 verdicts failed: deeper than a known rate of that share would make it.
    expect(usefulDepth(seen(40, 20), 1000)).toBeGreaterThan(known(failureShareOf(seen(40, 20))));
    // A queue that has seen 100 000 verdicts (not decayed: the function does not care) knows its rate.
    for (const q of [0.02, 0.07, 0.2, 0.5]) {
      const depth = usefulDepth(seen(100_000, 100_000 * q), 1e6);
      expect(depth / known(q)).toBeGreaterThan(0.97);
      expect(depth / known(q)).toBeLessThan(1.05);
    }
  });

  test('a queue of few failures never shrinks a window of 100 (5% failures: a run at depth 100 is kept 1 time in 160)', () => {
    for (let ended = 0; ended <= MEMORY; ended += 4) {
      const verdicts = seen(ended, Math.round(ended * 0.05));
      expect(nextWindow(100, bounds, false, true, verdicts)).toBe(100);
    }
  });

  test('with a high failure rate a failure halves the window, but not below the useful depth', () => {
    // 100 failures in 200 verdicts: useful depth about 15.
    const verdicts = seen(200, 100);
    const useful = usefulDepth(verdicts, 100);
    expect(useful).toBeGreaterThan(12);
    expect(useful).toBeLessThan(18);
    expect(nextWindow(80, bounds, false, true, verdicts)).toBe(40);
    expect(nextWindow(20, bounds, false, true, verdicts)).toBe(useful);
    expect(nextWindow(useful - 2, bounds, false, true, verdicts)).toBe(useful - 2);
    // A pass below the useful depth goes back to it at once, above it adds one; a failure that resets nothing stays.
    expect(nextWindow(4, bounds, true, false, verdicts)).toBe(useful);
    expect(nextWindow(20, bounds, true, false, verdicts)).toBe(21);
    expect(nextWindow(20, bounds, false, false, verdicts)).toBe(20);
  });

  test('always within the floor and concurrency; a pass never shrinks it, a failure never widens it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 300 }),
        fc.boolean(),
        fc.boolean(),
        counts,
        (a, b, start, passed, resets, verdicts) => {
          const floor = Math.min(a, b);
          const concurrency = Math.max(a, b);
          const current = Math.max(floor, Math.min(start, concurrency));
          const next = nextWindow(current, { floor, concurrency }, passed, resets, verdicts);
          expect(next).toBeGreaterThanOrEqual(floor);
          expect(next).toBeLessThanOrEqual(concurrency);
          if (passed) expect(next).toBeGreaterThanOrEqual(current);
          else expect(next).toBeLessThanOrEqual(current);
          // A failure never cuts below what the verdicts make useful (nor below the floor).
          if (!passed)
            expect(next).toBeGreaterThanOrEqual(Math.max(floor, Math.min(current, usefulDepth(verdicts, concurrency))));
        },
      ),
    );
  });

  test('after as many passes as concurrency the window is at concurrency, whatever it was and whatever was seen', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        counts,
        (concurrency, start, initial) => {
          let verdicts = initial;
          let window = Math.min(start, concurrency);
          for (let k = 0; k < concurrency; k++) {
            verdicts = countVerdict(verdicts, true);
            window = nextWindow(window, { floor: 1, concurrency }, true, false, verdicts);
          }
          expect(window).toBe(concurrency);
        },
      ),
    );
  });

  test('a run of failures in a queue that passes everything else shrinks the window as it goes on', () => {
    let verdicts: VerdictCounts | undefined;
    for (let k = 0; k < 200; k++) verdicts = countVerdict(verdicts, true);
    let window = 100;
    const seenWindows: number[] = [];
    for (let k = 0; k < 60; k++) {
      verdicts = countVerdict(verdicts, false);
      window = nextWindow(window, bounds, false, true, verdicts);
      seenWindows.push(window);
    }
    // The first failures cost nothing (the queue's record is good); then it halves down to the useful depth.
    expect(seenWindows[0]).toBe(100);
    expect(seenWindows.at(-1)).toBe(usefulDepth(verdicts, 100));
    expect(seenWindows.at(-1)).toBeLessThan(50);
    for (let k = 1; k < seenWindows.length; k++)
      expect(seenWindows[k]).toBeLessThanOrEqual(seenWindows[k - 1] as number);
  });

  test('the verdict counts follow the recent past: halved past MEMORY', () => {
    let verdicts: VerdictCounts | undefined;
    for (let k = 0; k < MEMORY; k++) verdicts = countVerdict(verdicts, k % 4 !== 0);
    expect(verdicts).toEqual([MEMORY, MEMORY / 4]);
    verdicts = countVerdict(verdicts, false);
    expect(verdicts).toEqual([(MEMORY + 1) / 2, (MEMORY / 4 + 1) / 2]);
    // A queue whose failures stopped: its share falls toward nothing.
    for (let k = 0; k < 4 * MEMORY; k++) verdicts = countVerdict(verdicts, true);
    expect(failureShareOf(verdicts)).toBeLessThan(0.05);
  });
});
