/**
 * The dependency graph of a line-up: for each PR, the PRs ahead of it that it depends on.
 *
 * - single mode: every PR ahead.
 * - parallel mode: a PR depends on every PR ahead whose impacted targets overlap its own, and on what those depend
 *   on (the closure: a PR is tested on top of everything its code may need). `ALL` (and unknown targets, which
 *   count as `ALL`) overlaps every PR with targets; `[]` overlaps nothing, in either direction.
 *
 * The closure is computed in one pass over the line-up with bit sets: the PRs ahead that touch a target are all in
 * the closure of the last one that touched it, so each PR only looks up, per target, the last PR that touched it.
 *
 * A `silent` PR gets its own dependencies but nothing depends on it, nor through it (a doomed PR, or one in a
 * bisection: the PRs behind it are predicted without it, so it must not chain them to what it depends on). Whether a
 * PR is silent may depend on what it depends on, so `silent` is asked in line-up order, once its dependencies are
 * known.
 */

/** A PR's impacted targets: a list or everything. `null`: none known (counted as everything). */
export type Targets = readonly string[] | 'ALL' | null;

class BitSet {
  readonly words: Uint32Array;
  constructor(size: number) {
    this.words = new Uint32Array((size + 31) >>> 5);
  }
  set(index: number): void {
    this.words[index >>> 5]! |= 1 << (index & 31);
  }
  or(other: BitSet): void {
    const words = this.words;
    const from = other.words;
    for (let i = 0; i < words.length; i++) words[i]! |= from[i]!;
  }
  /** The indices set, ascending. */
  indices(): number[] {
    const out: number[] = [];
    this.words.forEach((word, at) => {
      let rest = word;
      while (rest !== 0) {
        const low = rest & -rest;
        out.push(at * 32 + 31 - Math.clz32(low));
        rest ^= low;
      }
    });
    return out;
  }
}

/** Whether the PR at `at`, which depends on the positions `ahead`, is silent. */
export type Silence = (at: number, ahead: readonly number[]) => boolean;

const NEVER_SILENT: Silence = () => false;

/** For each position of the line-up, the positions ahead of it it depends on, ascending. */
export function dependencies(targets: readonly Targets[], parallel: boolean, silent: Silence = NEVER_SILENT): number[][] {
  if (!parallel) {
    const heard: number[] = [];
    return targets.map((_, at) => {
      const ahead = [...heard];
      if (!silent(at, ahead)) heard.push(at);
      return ahead;
    });
  }
  const size = targets.length;
  const closures: BitSet[] = [];
  const withTargets = new BitSet(size);
  const lastByTarget = new Map<string, number>();
  let lastAll = -1;
  return targets.map((own, at) => {
    const closure = new BitSet(size);
    closures.push(closure);
    if (own !== null && own !== 'ALL' && own.length === 0) {
      silent(at, []);
      return [];
    }
    if (own === null || own === 'ALL') {
      closure.or(withTargets);
    } else {
      const direct = new Set<number>();
      if (lastAll >= 0) direct.add(lastAll);
      for (const target of own) {
        const last = lastByTarget.get(target);
        if (last !== undefined && last > lastAll) direct.add(last);
      }
      for (const index of direct) {
        closure.set(index);
        closure.or(closures[index] as BitSet);
      }
    }
    const ahead = closure.indices();
    if (!silent(at, ahead)) {
      if (own === null || own === 'ALL') lastAll = at;
      else for (const target of own) lastByTarget.set(target, at);
      withTargets.set(at);
    }
    return ahead;
  });
}
