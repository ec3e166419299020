/**
 * The bound of the merge estimates (issue 32): the simulation forked at each sampled PR's readiness and at its reaching
 * the head of the queue, and played on `forks` times with fresh draws of everything the queue's state does not know
 * (sim/fork.ts). The median and 90th percentile over the forks of when the PR merges are the oracle's estimate: the
 * best any estimator that sees the queue's state can give. Its error against what happened is the irreducible part.
 * bench/estimates.ts measures it beside the estimators: `npx tsx bench/estimates.ts --oracle FORKS [--every K]
 * [--only workload:seed,seed …] [--dump DIR]` (every K-th PR sampled, default 3); this file collects the moments and
 * plays the forks. `npx tsx bench/estimatesOracle.ts DIR` pools the seeds dumped there, per workload.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { MergeEstimate } from '../engine/estimate/index.js';
import type { Store } from '../engine/store/store.js';
import { type ForkSource, playFork, type Snapshot, snapshotOf } from '../sim/fork.js';

export interface OracleOptions {
  /** Forks per moment. */
  forks: number;
  /** PRs sampled: those whose number is a multiple of this. */
  every: number;
}

export interface OracleCost {
  moments: number;
  forks: number;
  /** Wall time of the forks in all (ms). */
  ms: number;
}

/** Snapshots of a running simulation at the moments sampled PRs became ready or reached the head, then their forks. */
export class OracleCollector {
  private readonly moments: { snapshot: Snapshot; targets: number[] }[] = [];

  constructor(
    private readonly options: OracleOptions,
    private readonly store: Store,
  ) {}

  /** These PRs were just sampled (became ready, or reached the head) at `at`: keep the store as it is now. */
  observe(at: number, numbers: readonly number[]): void {
    const targets = numbers.filter((number) => number % this.options.every === 0);
    if (targets.length > 0) this.moments.push({ snapshot: snapshotOf(this.store, at), targets });
  }

  /** Plays every moment's forks: the oracle's estimate per moment and PR (key `${at}:${number}`). */
  async resolve(source: ForkSource): Promise<{ estimates: Map<string, MergeEstimate>; cost: OracleCost }> {
    const estimates = new Map<string, MergeEstimate>();
    const started = performance.now();
    for (const { snapshot, targets } of this.moments) {
      const times = new Map<number, number[]>(targets.map((number) => [number, []]));
      for (let index = 0; index < this.options.forks; index++) {
        const merged = await playFork(source, snapshot, index, targets);
        for (const [number, at] of merged) times.get(number)!.push(at);
      }
      for (const [number, values] of times) {
        if (values.length === 0) continue;
        values.sort((a, b) => a - b);
        const pick = (q: number) => values[Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1))]!;
        estimates.set(`${snapshot.at}:${number}`, { at: pick(0.5), p90: pick(0.9) });
      }
    }
    const cost = {
      moments: this.moments.length,
      forks: this.moments.length * this.options.forks,
      ms: performance.now() - started,
    };
    return { estimates, cost };
  }
}

/** Each estimator's errors, PR by PR, over the PRs the oracle sampled: at readiness and at the head. */
export type SampledErrors = Record<'before' | 'after' | 'oracle', { ready: number[]; head: number[] }>;

/** A 90 % bootstrap interval of the median of `values` (2,000 resamples, a fixed seed). */
export function interval(values: readonly number[]): [number, number] {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  let state = 0x9e3779b9;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const medians: number[] = [];
  for (let resample = 0; resample < 2000; resample++) {
    const drawn = Array.from({ length: values.length }, () => values[Math.floor(next() * values.length)]!).sort(
      (a, b) => a - b,
    );
    medians.push(drawn[Math.floor(drawn.length / 2)]!);
  }
  medians.sort((a, b) => a - b);
  return [medians[100]!, medians[1899]!];
}

/** Pools the dumped seeds of each workload: each estimator's median error over all their sampled PRs, with its interval. */
function pool(dir: string): void {
  const byWorkload = new Map<string, SampledErrors[]>();
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
    const workload = name.replace(/-\d+\.json$/, '');
    const { errors } = JSON.parse(readFileSync(`${dir}/${name}`, 'utf8')) as { errors: SampledErrors };
    byWorkload.set(workload, [...(byWorkload.get(workload) ?? []), errors]);
  }
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  for (const [workload, seeds] of byWorkload) {
    const cells = (['before', 'after', 'oracle'] as const).flatMap((name) =>
      (['ready', 'head'] as const).map((at) => {
        const values = seeds.flatMap((errors) => errors[name][at]).sort((a, b) => a - b);
        const half = Math.floor(values.length / 2);
        const middle =
          values.length % 2 === 1
            ? values[half]!
            : ((values[half - 1] ?? Number.NaN) + (values[half] ?? Number.NaN)) / 2;
        return `${name}@${at} ${percent(middle)} (${interval(values).map(percent).join('–')}, ${values.length} PRs)`;
      }),
    );
    console.log(`${workload}, ${seeds.length} seeds pooled: ${cells.join('; ')}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) pool(process.argv[2] ?? '.');
