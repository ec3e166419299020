/**
 * Impacted targets (parallel mode): each PR impacts `perPr` distinct targets drawn with a Zipf skew — a few targets
 * (core libraries) are touched by many PRs, most by few — or, with probability `allShare`, `ALL`.
 *
 * `applyTargets` is the one place the simulator hands a PR's targets to the engine.
 */
import type { Engine, QueueKey } from '../engine/engine.js';
import { cumulativeOf, type Random } from './random.js';
import type { Scenario } from './scenario.js';

export type ImpactedTargets = string[] | 'ALL';

export function targetName(index: number): string {
  return `//t${index}`;
}

export class TargetDrawer {
  private readonly cumulative: number[];
  private readonly weights: number[];

  constructor(
    private readonly spec: NonNullable<Scenario['targets']>,
    private readonly random: Random,
  ) {
    this.weights = Array.from({ length: spec.count }, (_, index) => 1 / (index + 1) ** spec.skew);
    this.cumulative = cumulativeOf(this.weights);
  }

  /** One PR's targets: `ALL`, or `perPr` distinct target names, in target order. */
  draw(): ImpactedTargets {
    if (this.random.chance(this.spec.allShare)) return 'ALL';
    const wanted = this.spec.perPr;
    const chosen = new Set<number>();
    // Rejection of repeats is quick unless the wanted targets hold most of the weight; then take the keyed
    // weighted sample without replacement (Efraimidis–Spirakis), which never repeats.
    for (let attempts = 0; chosen.size < wanted && attempts < wanted * 8; attempts++)
      chosen.add(this.random.weighted(this.cumulative));
    if (chosen.size < wanted) {
      const keyed = this.weights.map((weight, index) => ({ index, key: Math.log(1 - this.random.next()) / weight }));
      keyed.sort((a, b) => b.key - a.key || a.index - b.index);
      for (const { index } of keyed) {
        if (chosen.size >= wanted) break;
        chosen.add(index);
      }
    }
    return [...chosen].sort((a, b) => a - b).map(targetName);
  }
}

/** Hands a PR's impacted targets for its head SHA to the engine, as CI would through setImpactedTargets. */
export function applyTargets(
  engine: Engine,
  key: QueueKey,
  pr: { number: number; sha: string },
  targets: ImpactedTargets,
): void {
  engine.setImpactedTargets(key, pr, targets);
}
