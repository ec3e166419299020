/**
 * Estimates with their uncertainty, for fitting a workload to a queue's history (fit.ts): 95 % intervals for a
 * proportion (Wilson), a Poisson rate, and quantiles of durations some of which are censored (Kaplan–Meier, with
 * Greenwood's variance), and a bootstrap for the rest.
 */
import { Random } from './random.js';

export const Z95 = 1.959963984540054;

export interface Estimate {
  value: number;
  /** The 95 % interval. */
  low: number;
  high: number;
  /** Observations it rests on. */
  n: number;
}

/** A share of successes among n trials, with Wilson's interval. */
export function proportion(successes: number, n: number): Estimate {
  if (n === 0) return { value: 0, low: 0, high: 1, n };
  const p = successes / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), n };
}

/** A Poisson rate: `count` events over `exposure` (hours), with the interval of the square-root transform. */
export function poissonRate(count: number, exposure: number): Estimate {
  if (exposure <= 0) return { value: 0, low: 0, high: Infinity, n: count };
  const root = Math.sqrt(count);
  const low = Math.max(0, root - Z95 / 2) ** 2;
  const high = (root + Z95 / 2) ** 2;
  return { value: count / exposure, low: low / exposure, high: high / exposure, n: count };
}

export interface Observation {
  time: number;
  /** False: the observation was cut short at `time` (a cancelled run); it would have lasted longer. */
  complete: boolean;
}

/**
 * Kaplan–Meier: the `q`-quantile of durations from observations some of which are censored, with the interval of
 * the times where the survival's Greenwood band crosses 1 − q. Null when fewer than one complete observation.
 */
export function kaplanMeierQuantile(observations: readonly Observation[], q: number): Estimate | null {
  const sorted = [...observations].sort((a, b) => a.time - b.time || Number(b.complete) - Number(a.complete));
  const complete = sorted.filter((observation) => observation.complete).length;
  if (complete === 0) return null;
  let atRisk = sorted.length;
  let survival = 1;
  let greenwood = 0;
  const steps: { time: number; survival: number; se: number }[] = [];
  for (let i = 0; i < sorted.length; ) {
    const time = (sorted[i] as Observation).time;
    let deaths = 0;
    let leaving = 0;
    while (i < sorted.length && (sorted[i] as Observation).time === time) {
      if ((sorted[i] as Observation).complete) deaths++;
      leaving++;
      i++;
    }
    if (deaths > 0) {
      survival *= 1 - deaths / atRisk;
      if (atRisk > deaths) greenwood += deaths / (atRisk * (atRisk - deaths));
      steps.push({ time, survival, se: survival * Math.sqrt(greenwood) });
    }
    atRisk -= leaving;
  }
  const target = 1 - q;
  const first = (test: (step: (typeof steps)[number]) => boolean) => steps.find(test)?.time ?? Infinity;
  return {
    value: first((step) => step.survival <= target),
    // The lower band reaches 1 − q first (the earliest time the quantile can be), the upper one last.
    low: first((step) => step.survival - Z95 * step.se <= target),
    high: first((step) => step.survival + Z95 * step.se <= target),
    n: complete,
  };
}

/** The 2.5 % and 97.5 % quantiles of a statistic over `rounds` resamples (with replacement) of the items. */
export function bootstrap<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number,
  rounds = 200,
  seed = 1,
): { low: number; high: number } {
  if (items.length === 0) return { low: 0, high: 0 };
  const random = new Random(seed, 'bootstrap');
  const values: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const sample = Array.from({ length: items.length }, () => items[Math.floor(random.next() * items.length)] as T);
    values.push(statistic(sample));
  }
  values.sort((a, b) => a - b);
  const at = (p: number) =>
    values[Math.min(values.length - 1, Math.max(0, Math.round(p * (values.length - 1))))] as number;
  return { low: at(0.025), high: at(0.975) };
}
