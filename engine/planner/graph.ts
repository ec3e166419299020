/**
 * The dependency graph of a line-up: for each PR, the PRs ahead of it that it depends on.
 *
 * - single mode: every PR ahead.
 * - parallel mode: a PR depends on every PR ahead whose impacted targets overlap its own, and on what those depend
 *   on (the closure: a PR is tested on top of everything its code may need). `ALL` (and unknown targets, which
 *   count as `ALL`) overlaps every PR with targets; `[]` overlaps nothing, in either direction.
 *
 * The closure is computed in one pass over the line-up with bit sets, in line-up order and only as far as asked:
 * the PRs ahead that touch a target are all in the closure of the last one that touched it, so each PR only looks
 * up, per target, the last PR that touched it.
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

/** Closures allocated together: a plan that asks about the head of a long line-up allocates little. */
const CHUNK = 64;

/**
 * The dependencies of the PRs of a line-up, computed in line-up order as far as asked and no further, and
 * materialised as lists only when asked for: a planning step asks about the PRs near the head (those with a result,
 * those about to start), so it costs what that part of the line-up costs, not the whole line-up's length, nor its
 * square.
 */
export class DependencyGraph {
  private readonly size: number;
  /** Positions below `known` have their dependencies (and, silence asked, are heard or not). */
  private known = 0;
  /** Single mode: the heard positions, in order, and how many of them are ahead of each position. */
  private readonly heard: number[] = [];
  private readonly heardBits: BitSet;
  private readonly heardBefore: Int32Array;
  /** Parallel mode: each position's closure, in buffers of CHUNK closures (one allocation per chunk, not per PR). */
  private readonly closures: BitSet[] = [];
  private readonly width: number;
  private buffer: Uint32Array | undefined;
  private readonly withTargets: BitSet;
  private readonly lastByTarget = new Map<string, number>();
  private lastAll = -1;
  /** Direct bases: per target, the heard PRs that touch it; the heard `ALL` PRs. */
  private readonly touchers = new Map<string, BitSet>();
  private readonly allBits: BitSet;
  private readonly lists: (number[] | undefined)[] = [];

  /** `targets(at)`: the impacted targets of the PR at `at` (parallel mode), of `size` PRs. */
  constructor(
    size: number,
    private readonly targets: (at: number) => Targets,
    readonly parallel: boolean,
    private readonly silent: Silence = NEVER_SILENT,
    /** Parallel mode: each PR depends only on the PRs ahead it overlaps itself, not on what those depend on. */
    readonly direct = false,
  ) {
    this.size = size;
    this.width = (this.size + 31) >>> 5;
    this.heardBits = new BitSet(this.size);
    this.heardBefore = new Int32Array(this.size);
    this.withTargets = new BitSet(parallel ? this.size : 0);
    this.allBits = new BitSet(parallel && direct ? this.size : 0);
  }

  /** Computes the dependencies of every position up to `at` (the silence of those ahead of it asked on the way). */
  ensure(at: number): void {
    while (this.known <= at && this.known < this.size) {
      const position = this.known;
      if (this.parallel) this.closeAt(position);
      else this.heardBefore[position] = this.heard.length;
      // Its own dependencies are known before its silence is asked (silence may depend on them).
      this.known = position + 1;
      const silent = this.silent(position, this);
      if (this.parallel) this.hearParallel(position, silent);
      else if (!silent) {
        this.heard.push(position);
        this.heardBits.set(position);
      }
    }
  }

  /** The positions ahead of `at` it depends on, ascending. */
  deps(at: number): readonly number[] {
    let list = this.lists[at];
    if (list === undefined) {
      this.ensure(at);
      list = this.parallel ? (this.closures[at] as BitSet).indices() : this.heard.slice(0, this.heardBefore[at]);
      this.lists[at] = list;
    }
    return list;
  }

  /** Single mode: the `k`-th position `at` depends on (k below count(at)), without making the list. */
  nthDep(at: number, k: number): number {
    this.ensure(at);
    return this.parallel ? (this.deps(at)[k] as number) : (this.heard[k] as number);
  }

  count(at: number): number {
    this.ensure(at);
    if (!this.parallel) return this.heardBefore[at] as number;
    return this.lists[at]?.length ?? (this.closures[at] as BitSet).count();
  }

  dependsOn(at: number, position: number): boolean {
    if (position >= at) return false;
    this.ensure(at);
    return this.parallel ? (this.closures[at] as BitSet).has(position) : this.heardBits.has(position);
  }

  /** Whether `at` depends on a position set in `bits`. */
  dependsOnAny(at: number, bits: BitSet): boolean {
    this.ensure(at);
    return this.parallel ? (this.closures[at] as BitSet).intersects(bits) : this.heardBits.intersectsBelow(bits, at);
  }

  /** Parallel mode: the closure of `at` from the PRs ahead, each heard or not already. */
  private closeAt(at: number): void {
    const slot = at % CHUNK;
    if (slot === 0) this.buffer = new Uint32Array(this.width * Math.min(CHUNK, this.size - at));
    const closure = new BitSet(
      this.size,
      (this.buffer as Uint32Array).subarray(slot * this.width, (slot + 1) * this.width),
    );
    this.closures.push(closure);
    const own = this.targets(at);
    if (own === null || own === 'ALL') {
      closure.or(this.withTargets);
      return;
    }
    if (this.direct) {
      // The PRs ahead it overlaps itself: every `ALL` ahead, and every PR ahead that touched one of its targets.
      if (own.length > 0) closure.or(this.allBits);
      for (const target of own) {
        const touching = this.touchers.get(target);
        if (touching !== undefined) closure.or(touching);
      }
      return;
    }
    // Each PR ahead it overlaps directly, and what those depend on (a position met twice is or-ed twice: harmless).
    const lastAll = this.lastAll;
    if (lastAll >= 0 && own.length > 0) {
      closure.set(lastAll);
      closure.or(this.closures[lastAll] as BitSet);
    }
    for (const target of own) {
      const last = this.lastByTarget.get(target);
      if (last === undefined || last <= lastAll || closure.has(last)) continue;
      closure.set(last);
      closure.or(this.closures[last] as BitSet);
    }
  }

  /** Parallel mode: a heard PR with targets is what the PRs behind that overlap it depend on. */
  private hearParallel(at: number, silent: boolean): void {
    const own = this.targets(at);
    if (silent || (own !== null && own !== 'ALL' && own.length === 0)) return;
    if (own === null || own === 'ALL') {
      this.lastAll = at;
      if (this.direct) this.allBits.set(at);
    } else if (this.direct) {
      for (const target of own) {
        let touching = this.touchers.get(target);
        if (touching === undefined) this.touchers.set(target, (touching = new BitSet(this.size)));
        touching.set(at);
      }
    } else for (const target of own) this.lastByTarget.set(target, at);
    this.withTargets.set(at);
    this.heardBits.set(at);
  }
}

/** For each position of the line-up, the positions ahead of it it depends on, ascending. */
export function dependencies(
  targets: readonly Targets[],
  parallel: boolean,
  silent: Silence = NEVER_SILENT,
  direct = false,
): number[][] {
  const graph = new DependencyGraph(targets.length, (at) => targets[at] as Targets, parallel, silent, direct);
  graph.ensure(targets.length - 1);
  return targets.map((_, at) => [...graph.deps(at)]);
}
