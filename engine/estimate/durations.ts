/**
 * The CI duration model of the merge estimate: a log-normal fitted to the durations a queue's runs took, counting the
 * runs that were cancelled (a run behind a PR that failed is started again) as lasting at least what they ran. Those
 * are right-censored observations: leaving them out keeps the runs that ended before anything cut them, the shorter
 * ones, and the fit then says CI is faster and steadier than it is. The fit is the maximum likelihood one, by
 * expectation–maximisation on the logs (a censored log is replaced by its expectation under the current fit, beyond
 * the point where it was cut).
 *
 * Runs older than the metrics log's hour are known only by their mean: it moves the fitted median (as many runs as
 * the hour holds, converted to a log mean with the fitted spread), never the spread itself. Earlier, the mean was
 * added as that many identical durations, which shrank the spread by half and made every run under way look nearly
 * done (issue 32: 48–54 % median error at the head of the queue).
 */

export interface DurationSample {
  /** Runs that finished (passed or failed), ms from creation to end. */
  finishedMs: number[];
  /** Runs cancelled before they finished: each lasted at least this (ms). */
  cancelledMs: number[];
  /** Every finished run since the queue began: their mean and count (0 when none). */
  allTime?: { meanMs: number; runs: number };
}

export interface LogNormal {
  mu: number;
  sigma: number;
  /**
   * How well the runs seen pin the fit down (durationsDraw.ts): the degrees of freedom of the spread (the runs it was
   * fitted to, less one) and the variance of the fitted log median, in units of σ² (1/n for n runs).
   */
  certainty?: { spreadDf: number; medianVar: number };
}

/** The spread assumed before two runs finished, and the least one fitted (a fit to few runs can be near 0). */
export const PRIOR_SIGMA = 0.4;
const MIN_SIGMA = 0.1;
const ITERATIONS = 50;

const phi = (z: number) => Math.exp(-(z * z) / 2) / Math.sqrt(2 * Math.PI);

/** Φ, by Abramowitz and Stegun 7.1.26 (error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** The log-normal of these durations, or undefined with no finished run to fit. */
export function fitDurations(sample: DurationSample): LogNormal | undefined {
  const exact = sample.finishedMs.filter((ms) => Number.isFinite(ms) && ms >= 0).map((ms) => Math.log(Math.max(1, ms)));
  const censored = sample.cancelledMs
    .filter((ms) => Number.isFinite(ms) && ms > 0)
    .map((ms) => Math.log(Math.max(1, ms)));
  const allTime =
    sample.allTime !== undefined && sample.allTime.runs > exact.length && sample.allTime.meanMs > 0
      ? sample.allTime
      : undefined;
  if (exact.length === 0 && allTime === undefined) return undefined;
  let mu = exact.length > 0 ? exact.reduce((sum, value) => sum + value, 0) / exact.length : Math.log(allTime!.meanMs);
  let sigma = PRIOR_SIGMA;
  const fitSpread = exact.length >= 2;
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    // E: each censored log's expectation (and second moment) beyond where it was cut, under the current fit.
    let sum = 0;
    let squares = 0;
    for (const value of exact) {
      sum += value;
      squares += value * value;
    }
    for (const cut of censored) {
      const alpha = (cut - mu) / sigma;
      const tail = Math.max(1e-12, 1 - normalCdf(alpha));
      const lambda = phi(alpha) / tail;
      const mean = mu + sigma * lambda;
      const variance = sigma * sigma * Math.max(0, 1 + alpha * lambda - lambda * lambda);
      sum += mean;
      squares += variance + mean * mean;
    }
    const n = exact.length + censored.length;
    if (n === 0) break;
    const nextMu = sum / n;
    const nextSigma = fitSpread
      ? Math.max(MIN_SIGMA, Math.sqrt(Math.max(0, squares / n - nextMu * nextMu) * (n / Math.max(1, n - 1))))
      : PRIOR_SIGMA;
    const done = Math.abs(nextMu - mu) < 1e-6 && Math.abs(nextSigma - sigma) < 1e-6;
    mu = nextMu;
    sigma = nextSigma;
    if (done) break;
  }
  const count = exact.length + censored.length;
  // Before two runs finished the spread is the prior's, counted as worth two degrees of freedom (and never fewer:
  // with one, the draw's spread would have no mean).
  const spreadDf = fitSpread ? Math.max(2, count - 1) : 2;
  let medianVar = 1 / Math.max(1, count);
  if (allTime !== undefined) {
    // The runs before the hour, through their mean: a log-normal's mean is exp(mu + sigma²/2).
    const older = Math.log(allTime.meanMs) - (sigma * sigma) / 2;
    const weight = exact.length === 0 ? 1 : 0.5;
    mu = (1 - weight) * mu + weight * older;
    medianVar = (1 - weight) ** 2 * medianVar + weight ** 2 / allTime.runs;
  }
  return { mu, sigma, certainty: { spreadDf, medianVar } };
}

/** Φ⁻¹, by Acklam's rational approximation (relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
