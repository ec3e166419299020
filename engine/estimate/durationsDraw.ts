/**
 * The CI duration fit's own uncertainty, for the merge forecast (model.ts): a fit to the dozen runs of an hour knows
 * the median only to about σ/√n and the spread to about σ/√(2n). Every run of a trial shares that error, so it does
 * not average out over the runs ahead of a PR the way their own spreads do; a forecast that plays every trial with
 * the fitted values alone is too sure of itself, the more so the longer the queue ahead. Each trial therefore draws
 * its log-normal from the fit's posterior (the conjugate one of a normal's logs, with a flat prior): σ² as the fitted
 * σ² × df / χ²(df), then the log median from a normal around the fitted one with variance σ² × `medianVar`.
 */
import { type LogNormal, normalQuantile } from './durations.js';

/** A standard normal deviate from a uniform draw. */
const deviate = (random: () => number) => normalQuantile(Math.min(1 - 1e-9, Math.max(1e-9, random())));

/** χ²(df) by the Wilson–Hilferty cube (close for df ≥ 2; kept above a tenth of its mean). */
function chiSquare(df: number, random: () => number): number {
  const k = Math.max(1, df);
  const c = 2 / (9 * k);
  const cube = 1 - c + deviate(random) * Math.sqrt(c);
  return Math.max(0.1 * k, k * cube * cube * cube);
}

/** One trial's log-normal: the fit with its uncertainty drawn; the fit itself when it has no measure of it. */
export function drawFit(fit: LogNormal, random: () => number): LogNormal {
  if (fit.certainty === undefined) return fit;
  const { spreadDf, medianVar } = fit.certainty;
  const sigma = fit.sigma * Math.sqrt(spreadDf / chiSquare(spreadDf, random));
  return { mu: fit.mu + sigma * Math.sqrt(medianVar) * deviate(random), sigma };
}
