/**
 * Split-conformal calibration of the forecast's P90 from the queue's own record (calibrationRecord.ts keeps it): for
 * each PR that merged, the forecast as it was given at a moment t (its median m and P90 p, as the play made them,
 * before any calibration) and when the PR actually merged, a. Its score is
 *
 *     s = (a − t) / (p − t)
 *
 * the time it took to merge as a share of the time the P90 gave it. A scale score: the forecast's errors grow with
 * its horizon (a PR 40 deep is off by hours, one at the head by minutes), and dividing by the horizon the P90 gave
 * makes scores of PRs at every depth comparable, where a difference (a − p) would be ruled by the deepest ones. The
 * calibrated P90 is t + (p − t) · q, with q the ⌈(n + 1) · 0.9⌉-th smallest of the n latest scores: under
 * exchangeability, a new PR merges by it with a chance of at least 90 % and at most 90 % + 1 / (n + 1). With fewer
 * than MIN_SCORES scores, q is 1 (the play's own P90). The P90 is never put before the median.
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

/** The score of an estimate given at t for a PR that merged at `mergedAt`; undefined when it cannot be scored. */
export function scoreOf(given: GivenEstimate, mergedAt: number): number | undefined {
  const horizon = given.p - given.t;
  const took = mergedAt - given.t;
  if (!(horizon > 0) || !(took >= 0)) return undefined;
  return took / horizon;
}

/** The window with a new score added (the oldest dropped past SCORE_WINDOW). */
export function withScore(scores: readonly number[], score: number): number[] {
  const next = [...scores, score];
  return next.length > SCORE_WINDOW ? next.slice(next.length - SCORE_WINDOW) : next;
}

/** The conformal factor of a stage: the ⌈(n + 1) · 0.9⌉-th smallest of its n scores, or 1 with too few. */
export function factorOf(scores: readonly number[]): number {
  const n = scores.length;
  if (n < MIN_SCORES) return 1;
  const sorted = [...scores].sort((a, b) => a - b);
  const rank = Math.min(n, Math.ceil((n + 1) * COVERAGE));
  return sorted[rank - 1]!;
}

/** One estimate made at `now`, its P90 calibrated by `factor` (never before its median). */
export function calibrated(estimate: MergeEstimate, now: number, factor: number): MergeEstimate {
  if (factor === 1) return estimate;
  const p90 = now + (estimate.p90 - now) * factor;
  return { at: estimate.at, p90: Math.max(estimate.at, Math.round(p90)) };
}

/** The play's estimates made at `now` with their P90s calibrated: the PR at `head` by the head's scores. */
export function calibrate(
  estimates: ReadonlyMap<number, MergeEstimate>,
  now: number,
  head: number | undefined,
  scores: CalibrationScores,
): Map<number, MergeEstimate> {
  const factors = { ready: factorOf(scores.ready), head: factorOf(scores.head) };
  const result = new Map<number, MergeEstimate>();
  for (const [number, estimate] of estimates)
    result.set(number, calibrated(estimate, now, number === head ? factors.head : factors.ready));
  return result;
}
