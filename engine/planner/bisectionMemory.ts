/**
 * What a bisection remembers, and what it may infer from it (pure).
 *
 * A failed set of PRs leaves the main line and is split in halves; each group is tested on the known-good line (the
 * target plus the main-line PRs ahead of it that are expected to merge), never on top of another group. A group that
 * passes returns to the main line; a group that fails is split again; a PR that fails alone is the culprit.
 *
 * With `bisection_skip_redundant_tests` the second half of a split waits for the first: if the first passes, the
 * second is known to fail (the set failed, its other part passed) and is split at once without a run, and a single
 * PR left that way is the culprit. Inference assumes that a failure comes from the PRs that cause it (group
 * testing's model), and holds only on the base the failure was seen on: a failure is remembered with its base, and
 * forgotten once the base changes other than by its PRs merging.
 */

/** A set of PRs that failed (or is known to fail) on top of `base` (the main-line PRs ahead, unmerged then). */
export interface FailedSet {
  prs: number[];
  base: number[];
}

export interface BisectionMemory {
  failed: FailedSet[];
  /** PRs merged since the bisection began. */
  merged: number[];
  /** Skip-redundant: per group, the group whose verdict it waits for and the set the two were split from. */
  waits?: Record<string, { after: string; parent: number[] }>;
}

export function newBisection(): BisectionMemory {
  return { failed: [], merged: [], waits: {} };
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((number) => set.has(number));
}

/** Whether `prs` on top of `base` (unmerged PRs ahead) is known to fail in this bisection. */
export function knownToFail(
  memory: BisectionMemory | undefined,
  prs: readonly number[],
  base: readonly number[],
): boolean {
  if (memory === undefined) return false;
  const merged = new Set(memory.merged);
  const open = (list: readonly number[]) => list.filter((number) => !merged.has(number));
  const current = open(base);
  // Entries stored before failures carried their base (a string key) are ignored.
  return memory.failed.some(
    (entry) => Array.isArray(entry.prs) && sameSet(entry.prs, prs) && sameSet(open(entry.base), current),
  );
}

export function rememberFailure(memory: BisectionMemory, prs: readonly number[], base: readonly number[]): void {
  if (!knownToFail(memory, prs, base)) memory.failed.push({ prs: [...prs], base: [...base] });
}

/** The two halves of a set (the first one larger when the size is odd). */
export function halves(prs: readonly number[]): [number[], number[]] {
  const half = Math.ceil(prs.length / 2);
  return [prs.slice(0, half), prs.slice(half)];
}
