/**
 * Seeded randomness for workloads (pure-rand). Each purpose draws from its own stream, derived from the scenario's
 * seed and the purpose's name, so that changing one part of a scenario (say, its targets) leaves the others (arrival
 * times, which PRs are broken) as they were.
 */
import { createHash } from 'node:crypto';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

export class Random {
  private readonly generator: RandomGenerator;

  constructor(seed: number, purpose: string) {
    const digest = createHash('sha256').update(`${seed}\u0000${purpose}`).digest();
    this.generator = xoroshiro128plus(digest.readInt32BE(0));
  }

  /** Uniform in [0, 1). */
  next(): number {
    return uniformFloat64(this.generator);
  }

  /** Exponentially distributed with the given rate (mean 1 / rate). */
  exponential(rate: number): number {
    return -Math.log(1 - this.next()) / rate;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** An index drawn with probability proportional to its weight (weights ≥ 0, some > 0). */
  weighted(cumulative: readonly number[]): number {
    const total = cumulative[cumulative.length - 1] ?? 0;
    const point = this.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cumulative[mid] as number) > point) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Running sums of weights, for `Random.weighted`. */
export function cumulativeOf(weights: readonly number[]): number[] {
  let sum = 0;
  return weights.map((weight) => (sum += weight));
}
