/**
 * Parallel mode: whether merges since a run began reach the PRs it tested. Every merge touching a target must be
 * tested on top of every earlier merge touching it; a merge that touches none of their targets does not change what
 * their run says of them (as it would not be in their base had it still been queued).
 */
import type { ImpactedTargets } from '../model/impactedTargets.js';
import type { MoveScope } from './writes.js';

/** Whether two PRs' targets overlap: `ALL` (or unknown) overlaps every PR with targets; `[]` overlaps nothing. */
export function targetsOverlap(a: ImpactedTargets | undefined, b: ImpactedTargets | undefined): boolean {
  if (Array.isArray(a) && a.length === 0) return false;
  if (Array.isArray(b) && b.length === 0) return false;
  if (!Array.isArray(a) || !Array.isArray(b)) return true;
  const [small, large] = a.length <= b.length ? [a, b] : [b, a];
  const set = new Set(large);
  return small.some((target) => set.has(target));
}

/** Whether a PR merged since (`mergedSince`) reaches one of `prs`: in single mode any does; in parallel mode an overlapping one. */
export function mergesReach(
  q: Pick<MoveScope, 'queue' | 'prs'>,
  mergedSince: readonly number[],
  prs: readonly number[],
): boolean {
  if (mergedSince.length === 0) return false;
  if (q.queue.settings.mode !== 'parallel') return true;
  const tested = prs.map((number) => q.prs.targetsOf(number)?.targets);
  return mergedSince.some((merged) => {
    const targets = q.prs.targetsOf(merged)?.targets;
    return tested.some((own) => targetsOverlap(own, targets));
  });
}
