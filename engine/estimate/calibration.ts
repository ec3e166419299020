/**
 * Split-conformal calibration of the forecast's P90 from the queue's own record (calibrationRecord.ts keeps it): for
 * each PR that merged, the forecast as it was given at a moment t (its median m and P90 p, as the play made them,
 * before any calibration) and when the PR actually merged, a. Its score is where a fell in the play's own spread, in
 * log time from the moment:
 *
 *     s = ln((a − t) / (m − t)) / ln((p − t) / (m − t))
 *
 * 0 at the median, 1 at the P90 (s ≤ 1 exactly when the P90 covered it). Log time, because the forecast's errors are
 * multiplicative (a PR 40 deep is off by hours, one at the head by minutes); the play's spread as the unit, because
 * it varies from PR to PR (wide when few runs were seen or failures lie ahead, narrow deep in a steady queue), so the
 * scores of PRs at every depth and moment are comparable where a plain share of the horizon, (a − t) / (p − t), is
 * not (it tells a deep PR's narrow forecast from a shallow one's wide forecast only by its level).
 *
 * The calibrated P90 is t + (m − t) · ((p − t) / (m − t))^q, with q the ⌈(n + 1) · 0.9⌉ / n quantile of the scores:
 * under exchangeability a new PR merges by it with a chance of at least 90 %. The merged PRs' scores come late (a
 * PR's wait), and a queue that grows or slows is then judged on its past: so the PRs still waiting that were given an
 * estimate count too, each as a score of at least what it has waited (right-censored), and the quantile is the
 * Kaplan–Meier one. With fewer than MIN_SCORES merged PRs scored, the play's own P90 is served; the P90 is never put
 * before the median (q ≥ 0).
 *
 * Scores are kept per stage, as the simulator judges the estimate: when the PR became ready (its estimate while it
 * waits behind others) and when it reached the head of the line-up; a PR at the head is calibrated by the head's
 * scores, every other by readiness's.
 */
import type { MergeEstimate } from './model.js';

/** The latest scores kept per stage: a window of recent merges, so a queue whose CI or load changes is followed. */
export const SCORE_WINDOW = 200;
/** Below this many scores, the play's own P90 is reported. */
export const MIN_SCORES = 20;
/** The share of merges the P90 is meant to cover. */
export const COVERAGE = 0.9;

export type Stage = 'ready' | 'head';

/** The latest scores of a queue's merged PRs, oldest first, per stage (at most SCORE_WINDOW each). */
export interface CalibrationScores {
  ready: number[];
  head: number[];
}

/** A forecast as given: when (ms), its median and its P90 (ms since the epoch), as the play made them. */
export interface GivenEstimate {
  t: number;
  m: number;
  p: number;
}

/** The score of an estimate given at t for a PR that merged (or has waited, for a bound) until `at`; undefined when the estimate has no spread. */
export function scoreOf(given: GivenEstimate, at: number): number | undefined {
  const toMedian = given.m - given.t;
  const toP90 = given.p - given.t;
  if (!(toMedian > 0) || !(toP90 > toMedian)) return undefined;
  return Math.log(Math.max(1, at - given.t) / toMedian) / Math.log(toP90 / toMedian);
}

/** The window with a new score added (the oldest dropped past SCORE_WINDOW). */
export function withScore(scores: readonly number[], score: number): number[] {
  const next = [...scores, score];
  return next.length > SCORE_WINDOW ? next.slice(next.length - SCORE_WINDOW) : next;
}

/**
 * The conformal factor of a stage: the ⌈(n + 1) · 0.9⌉ / n quantile of the scores of merged PRs, with the PRs still
 * waiting counted as scores of at least `waiting` (Kaplan–Meier); 1 with fewer than MIN_SCORES merged. When the
 * estimate of the survival never falls that low (too many still waiting above), the largest score or bound.
 */
export function factorOf(scores: readonly number[], waiting: readonly number[] = []): number {
  if (scores.length < MIN_SCORES) return 1;
  const all = [
    ...scores.map((value) => ({ value, merged: true })),
    ...waiting.map((value) => ({ value, merged: false })),
  ];
  // At equal values, merges first: a PR that waited as long as another took is still at risk of taking longer.
  all.sort((a, b) => a.value - b.value || Number(b.merged) - Number(a.merged));
  const n = all.length;
  const survivalGoal = 1 - Math.min(1, Math.ceil((n + 1) * COVERAGE) / n);
  let survival = 1;
  let atRisk = n;
  for (const { value, merged } of all) {
    if (merged) {
      survival *= 1 - 1 / atRisk;
      if (survival <= survivalGoal + 1e-12) return Math.max(0, value);
    }
    atRisk--;
  }
  return Math.max(0, all[n - 1]!.value);
}

/** One estimate made at `now`, its P90 calibrated by `factor` (never before its median). */
export function calibrated(estimate: MergeEstimate, now: number, factor: number): MergeEstimate {
  const toMedian = estimate.at - now;
  const toP90 = estimate.p90 - now;
  if (factor === 1 || !(toMedian > 0) || !(toP90 > toMedian)) return estimate;
  const p90 = now + toMedian * (toP90 / toMedian) ** factor;
  return { at: estimate.at, p90: Math.max(estimate.at, Math.round(p90)) };
}

/**
 * The play's estimates made at `now` with their P90s calibrated: the PR at `head` by the head's scores. `waiting`:
 * the bounds of the PRs still waiting, per stage (calibrationRecord.ts).
 */
export function calibrate(
  estimates: ReadonlyMap<number, MergeEstimate>,
  now: number,
  head: number | undefined,
  scores: CalibrationScores,
  waiting: CalibrationScores = { ready: [], head: [] },
): Map<number, MergeEstimate> {
  const factors = { ready: factorOf(scores.ready, waiting.ready), head: factorOf(scores.head, waiting.head) };
  const result = new Map<number, MergeEstimate>();
  for (const [number, estimate] of estimates)
    result.set(number, calibrated(estimate, now, number === head ? factors.head : factors.ready));
  return result;
}
