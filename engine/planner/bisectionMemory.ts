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

/**
 * Whether `prs` on top of `base` (unmerged PRs ahead) is known to fail in this bisection. `onGrownBase` (queue policy
 * 4, whose groups may be tested on the main-line runs in flight): a failure seen on a base also holds on that base
 * with PRs added on top of it (group testing's model: a set that failed holds a PR that causes it); a base that lost
 * a PR other than by its merge (a PR ahead kicked) still forgets it.
 */
export function knownToFail(memory: BisectionMemory | undefined, prs: readonly number[], base: readonly number[], onGrownBase = false): boolean {
  if (memory === undefined) return false;
  const merged = new Set(memory.merged);
  const open = (list: readonly number[]) => list.filter((number) => !merged.has(number));
  const current = open(base);
  const within = new Set(current);
  const holdsOn = (seen: readonly number[]) => (onGrownBase ? open(seen).every((number) => within.has(number)) : sameSet(open(seen), current));
  // Entries stored before failures carried their base (a string key) are ignored.
  return memory.failed.some((entry) => Array.isArray(entry.prs) && sameSet(entry.prs, prs) && holdsOn(entry.base));
}

export function rememberFailure(memory: BisectionMemory, prs: readonly number[], base: readonly number[]): void {
  if (!knownToFail(memory, prs, base)) memory.failed.push({ prs: [...prs], base: [...base] });
}

/** The two halves of a set (the first one larger when the size is odd). */
export function halves(prs: readonly number[]): [number[], number[]] {
  const half = Math.ceil(prs.length / 2);
  return [prs.slice(0, half), prs.slice(half)];
}

/** Π (1 − p) over failure chances: the chance that none of them fails. */
export function noneFails(chances: readonly number[]): number {
  return chances.reduce((product, p) => product * (1 - p), 1);
}

/**
 * The chance that a group passes, its set known to fail: none of its PRs fails, and one of the rest of the set does
 * (independent failures; `group` and `rest` are the PRs' failure chances).
 */
export function groupPassChance(group: readonly number[], rest: readonly number[]): number {
  const setFails = 1 - noneFails([...group, ...rest]);
  return setFails <= 0 ? 1 : (noneFails(group) * (1 - noneFails(rest))) / setFails;
}

/** A group about to be tested: the chance that it passes, and what testing its PRs again would cost, in runs. */
export interface GroupStake {
  passes: number;
  retest: number;
}

/**
 * Queue policy 4: whether the groups of a new split are tested on the main-line runs in flight (the predicted tip:
 * the target and the main-line PRs expected to merge before them) rather than on the settled head of the line. On
 * the head, a group's pass does not stand once one of those runs passes and merges during the group's run: its PRs
 * are tested again on the main line, at their share of a batch (`retest`). On the tip, its pass stands when they all
 * pass (`runsPass`: the chance that none of them fails); when one fails, each group's run tested a base that will
 * not be, and is run again: a whole run lost per group. So they stack when the runs saved are more than the runs
 * risked: Σ P(the group passes) × its retest × P(the runs under it pass) against P(one fails) × one run per group.
 */
export function stacksOnRunsInFlight(groups: readonly GroupStake[], runsPass: number): boolean {
  const saved = groups.reduce((sum, group) => sum + group.passes * group.retest, 0) * runsPass;
  return saved > (1 - runsPass) * groups.length;
}
