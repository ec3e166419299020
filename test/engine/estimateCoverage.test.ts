/**
 * The merge estimate's P90 covers what it claims (issue 32: 85–95 % of actual merge times under it). A queue's CI
 * durations are known only by the few runs of its last hour, so the fitted median is off by about σ/√8 (eight runs)
 * in one direction for every run ahead of a PR alike: the forecast draws that uncertainty in each trial
 * (engine/estimate/durationsDraw.ts). Here a world with a known log-normal CI is sampled many times: the runs a queue
 * has seen, then the runs ahead of each PR in a serial queue; the share of actual merge times under the P90 must be
 * near 90 % (it was 79 % when each trial played the fitted values alone).
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { expect, test } from 'vitest';
import { normalQuantile } from '../../engine/estimate/durations.js';
import { drawFit } from '../../engine/estimate/durationsDraw.js';
import { estimateMerges, fitDurations } from '../../engine/estimate/index.js';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-22T12:00:00.000Z');
/** The world's CI: median 30 minutes, p90 50 (the bundled example's). */
const MU = Math.log(30 * MINUTE);
const SIGMA = Math.log(50 / 30) / 1.2815515655446004;

test('with eight runs seen, about 90 % of merges in a serial queue of 24 come before the P90', () => {
  const source = xoroshiro128plus(32);
  const run = () => Math.exp(MU + SIGMA * normalQuantile(Math.min(1 - 1e-9, Math.max(1e-9, uniformFloat64(source)))));
  let under = 0;
  let judged = 0;
  for (let world = 0; world < 80; world++) {
    const seen = Array.from({ length: 8 }, run);
    const lineup = Array.from({ length: 24 }, (_, index) => ({ number: index + 1, failureP: 0 }));
    const estimates = estimateMerges({
      now: NOW + world * MINUTE,
      parallel: false,
      concurrency: 1,
      batchSize: 1,
      lineup,
      runDurationsMs: seen,
      trials: 200,
    });
    let at = NOW + world * MINUTE;
    for (const pr of lineup) {
      at += run();
      judged++;
      if (at <= estimates.get(pr.number)!.p90) under++;
    }
  }
  const coverage = under / judged;
  expect(coverage).toBeGreaterThanOrEqual(0.85);
  expect(coverage).toBeLessThanOrEqual(0.95);
});

test("the draw of the fit's uncertainty narrows as the runs seen grow, and vanishes without a measure of it", () => {
  const source = xoroshiro128plus(7);
  const random = () => uniformFloat64(source);
  const spreadOfDraws = (runs: number) => {
    const fit = fitDurations({
      finishedMs: Array.from({ length: runs }, (_, index) => (20 + (index % 21)) * MINUTE),
      cancelledMs: [],
    })!;
    const mus = Array.from({ length: 2000 }, () => drawFit(fit, random).mu - fit.mu);
    return Math.sqrt(mus.reduce((sum, value) => sum + value * value, 0) / mus.length) / fit.sigma;
  };
  // About 1/√n of the spread (a little more: the drawn σ has a long right tail with few runs).
  expect(spreadOfDraws(4)).toBeGreaterThan(0.45);
  expect(spreadOfDraws(400)).toBeLessThan(0.07);
  expect(drawFit({ mu: 1, sigma: 0.4 }, random)).toEqual({ mu: 1, sigma: 0.4 });
});
