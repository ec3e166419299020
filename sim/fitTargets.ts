/**
 * Impacted targets fitted to the uploads of a queue's PRs (parallel mode), in the terms of the scenario's `targets`:
 * `perPr` (the median count of a PR's targets), `allShare` (uploads of ALL), `count` (Chao1: the targets seen, plus
 * f1²/(2 f2) for those a sample this size misses, f1 and f2 the targets seen once and twice) and `skew` (the Zipf
 * exponent whose simulated use profile — the targets' counts, sorted — is nearest the observed one: simulated with
 * the scenario's own drawer, so that ranking noise and drawing without repeats are modelled, not assumed away).
 * Also the overlap the lanes feel: the share of pairs of PRs (not ALL) that share a target.
 */
import type { QueueHistory } from './history.js';
import { Random } from './random.js';
import type { Scenario } from './scenario.js';
import { bootstrap, type Estimate, proportion } from './stats.js';
import { TargetDrawer } from './targets.js';

type Upload = string[] | 'ALL';

function chao1(lists: readonly string[][]): number {
  const uses = new Map<string, number>();
  for (const list of lists) for (const target of list) uses.set(target, (uses.get(target) ?? 0) + 1);
  const values = [...uses.values()];
  const f1 = values.filter((count) => count === 1).length;
  const f2 = values.filter((count) => count === 2).length;
  return uses.size + (f2 > 0 ? (f1 * f1) / (2 * f2) : (f1 * (f1 - 1)) / 2);
}

function sortedUses(lists: readonly string[][]): number[] {
  const uses = new Map<string, number>();
  for (const list of lists) for (const target of list) uses.set(target, (uses.get(target) ?? 0) + 1);
  return [...uses.values()].sort((a, b) => b - a);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/** The skew whose simulated profile is nearest the observed one (squared differences of sorted counts). */
function fitSkew(lists: readonly string[][], count: number, perPr: number): number {
  const observed = sortedUses(lists);
  let best = { skew: 0, distance: Infinity };
  for (let step = 0; step <= 60; step++) {
    const skew = step * 0.05;
    const drawer = new TargetDrawer({ count, perPr, allShare: 0, skew }, new Random(step, 'fit-targets'));
    const simulated = sortedUses(Array.from({ length: lists.length }, () => drawer.draw() as string[]));
    let distance = 0;
    for (let i = 0; i < Math.max(observed.length, simulated.length); i++)
      distance += ((observed[i] ?? 0) - (simulated[i] ?? 0)) ** 2;
    if (distance < best.distance) best = { skew, distance };
  }
  return best.skew;
}

function overlapShare(lists: readonly string[][], random: Random, pairs = 2000): { shared: number; pairs: number } {
  if (lists.length < 2) return { shared: 0, pairs: 0 };
  const sets = lists.map((list) => new Set(list));
  let shared = 0;
  for (let i = 0; i < pairs; i++) {
    const a = Math.floor(random.next() * sets.length);
    let b = Math.floor(random.next() * (sets.length - 1));
    if (b >= a) b++;
    const other = sets[b] as Set<string>;
    if ([...(sets[a] as Set<string>)].some((target) => other.has(target))) shared++;
  }
  return { shared, pairs };
}

export interface FittedTargets {
  perPr: Estimate;
  allShare: Estimate;
  count: Estimate;
  skew: Estimate;
  overlap: Estimate;
  scenario: NonNullable<Scenario['targets']>;
}

export function fitTargets(history: QueueHistory): FittedTargets {
  const uploads: Upload[] = [...history.targets.values()];
  const lists = uploads.filter((upload): upload is string[] => upload !== 'ALL');
  const all = uploads.length - lists.length;
  const sizes = lists.map((list) => list.length);
  const perPr = median(sizes);
  const count = Math.max(perPr, Math.round(chao1(lists)));
  const skew = fitSkew(lists, count, perPr);
  const rounds = 30;
  const perPrBand = bootstrap(sizes, median, 200, 2);
  const countBand = bootstrap(lists, (sample) => chao1(sample), 100, 3);
  const skewBand = bootstrap(lists, (sample) => fitSkew(sample, count, perPr), rounds, 4);
  const overlap = overlapShare(lists, new Random(1, 'fit-overlap'));
  return {
    perPr: { value: perPr, ...perPrBand, n: lists.length },
    allShare: proportion(all, uploads.length),
    count: {
      value: count,
      low: Math.min(count, countBand.low),
      high: Math.max(count, countBand.high),
      n: lists.length,
    },
    skew: { value: skew, low: Math.min(skew, skewBand.low), high: Math.max(skew, skewBand.high), n: lists.length },
    overlap: proportion(overlap.shared, overlap.pairs),
    scenario: {
      count: Math.max(1, count),
      perPr: Math.max(0, Math.min(perPr, count)),
      allShare: Number((all / Math.max(1, uploads.length)).toFixed(4)),
      skew,
    },
  };
}
