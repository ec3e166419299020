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

export class BitSet {
  readonly words: Uint32Array;
  /** A set of `size` bits, in its own buffer or in `words` (a view of a larger one). */
  constructor(size: number, words?: Uint32Array) {
    this.words = words ?? new Uint32Array((size + 31) >>> 5);
  }
  /** How many bits are set. */
  count(): number {
    let total = 0;
    for (const word of this.words) {
      let rest = word - ((word >>> 1) & 0x55555555);
      rest = (rest & 0x33333333) + ((rest >>> 2) & 0x33333333);
      total += (((rest + (rest >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    return total;
  }
  set(index: number): void {
    this.words[index >>> 5]! |= 1 << (index & 31);
  }
  has(index: number): boolean {
    return ((this.words[index >>> 5] ?? 0) & (1 << (index & 31))) !== 0;
  }
  intersects(other: BitSet): boolean {
    const words = this.words;
    for (let i = 0; i < words.length; i++) if ((words[i]! & (other.words[i] ?? 0)) !== 0) return true;
    return false;
  }
  /** Whether this and `other` share an index below `end`. */
  intersectsBelow(other: BitSet, end: number): boolean {
    const full = end >>> 5;
    for (let i = 0; i < full; i++) if ((this.words[i]! & (other.words[i] ?? 0)) !== 0) return true;
    const rest = end & 31;
    if (rest === 0) return false;
    return (this.words[full]! & (other.words[full] ?? 0) & ((1 << rest) - 1)) !== 0;
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

/** Whether the PR at `at` is silent, asked once its dependencies are known (`graph` answers for `at` and ahead). */
export type Silence = (at: number, graph: DependencyGraph) => boolean;

const NEVER_SILENT: Silence = () => false;

/**
 * The dependencies of every PR of a line-up, computed in one pass and materialised as lists only when asked for: a
 * planning step asks for the list of few PRs (those with a result, those about to start), so it costs what the
 * line-up's length costs, not its square.
 */
export class DependencyGraph {
  private readonly size: number;
  /** Single mode: the heard positions, in order, and how many of them are ahead of each position. */
  private readonly heard: number[] = [];
  private readonly heardBits: BitSet;
  private readonly heardBefore: Int32Array;
  /** Parallel mode: each position's closure. */
  private readonly closures: BitSet[] = [];
  private readonly lists: (number[] | undefined)[] = [];

  constructor(
    targets: readonly Targets[],
    readonly parallel: boolean,
    silent: Silence = NEVER_SILENT,
  ) {
    this.size = targets.length;
    this.heardBits = new BitSet(this.size);
    this.heardBefore = new Int32Array(this.size);
    if (parallel) this.closeParallel(targets, silent);
    else {
      for (let at = 0; at < this.size; at++) {
        this.heardBefore[at] = this.heard.length;
        if (!silent(at, this)) {
          this.heard.push(at);
          this.heardBits.set(at);
        }
      }
    }
  }

  /** The positions ahead of `at` it depends on, ascending. */
  deps(at: number): readonly number[] {
    let list = this.lists[at];
    if (list === undefined) {
      list = this.parallel ? (this.closures[at] as BitSet).indices() : this.heard.slice(0, this.heardBefore[at]);
      this.lists[at] = list;
    }
    return list;
  }

  count(at: number): number {
    if (!this.parallel) return this.heardBefore[at] as number;
    return this.lists[at]?.length ?? (this.closures[at] as BitSet).count();
  }

  dependsOn(at: number, position: number): boolean {
    if (position >= at) return false;
    return this.parallel ? (this.closures[at] as BitSet).has(position) : this.heardBits.has(position);
  }

  /** Whether `at` depends on a position set in `bits`. */
  dependsOnAny(at: number, bits: BitSet): boolean {
    return this.parallel ? (this.closures[at] as BitSet).intersects(bits) : this.heardBits.intersectsBelow(bits, at);
  }

  private closeParallel(targets: readonly Targets[], silent: Silence): void {
    const withTargets = new BitSet(this.size);
    const lastByTarget = new Map<string, number>();
    let lastAll = -1;
    // Every closure in one buffer: one allocation per graph, not one per PR.
    const width = (this.size + 31) >>> 5;
    const buffer = new Uint32Array(width * this.size);
    targets.forEach((own, at) => {
      const closure = new BitSet(this.size, buffer.subarray(at * width, (at + 1) * width));
      this.closures.push(closure);
      if (own !== null && own !== 'ALL' && own.length === 0) {
        silent(at, this);
        return;
      }
      if (own === null || own === 'ALL') {
        closure.or(withTargets);
      } else {
        // Each PR ahead it overlaps directly, and what those depend on (a position met twice is or-ed twice: harmless).
        if (lastAll >= 0) {
          closure.set(lastAll);
          closure.or(this.closures[lastAll] as BitSet);
        }
        for (const target of own) {
          const last = lastByTarget.get(target);
          if (last === undefined || last <= lastAll || closure.has(last)) continue;
          closure.set(last);
          closure.or(this.closures[last] as BitSet);
        }
      }
      if (!silent(at, this)) {
        if (own === null || own === 'ALL') lastAll = at;
        else for (const target of own) lastByTarget.set(target, at);
        withTargets.set(at);
        this.heardBits.set(at);
      }
    });
  }
}

/** For each position of the line-up, the positions ahead of it it depends on, ascending. */
export function dependencies(targets: readonly Targets[], parallel: boolean, silent: Silence = NEVER_SILENT): number[][] {
  const graph = new DependencyGraph(targets, parallel, silent);
  return targets.map((_, at) => [...graph.deps(at)]);
}
