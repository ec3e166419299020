/**
 * A bisection drawn as a tree: the sets that failed (the batch first, then each failed half) and, under the
 * smallest failed set containing them, the groups of the line-up still being tested. Built from what the queue
 * record says (its bisection memory and its PRs' groups), nothing inferred.
 */
export interface TreeNode {
  kind: 'failed' | 'group';
  /** The group's name, for a group. */
  name?: string;
  prs: number[];
  children: TreeNode[];
}

function contains(outer: readonly number[], inner: readonly number[]): boolean {
  const set = new Set(outer);
  return inner.every((number) => set.has(number));
}

export function bisectionTree(
  failedSets: readonly (readonly number[])[],
  groups: ReadonlyMap<string, readonly number[]>,
): TreeNode[] {
  const seen = new Set<string>();
  const failed: TreeNode[] = [];
  for (const prs of failedSets) {
    const id = [...prs].sort((a, b) => a - b).join(',');
    if (prs.length === 0 || seen.has(id)) continue;
    seen.add(id);
    failed.push({ kind: 'failed', prs: [...prs], children: [] });
  }
  const nodes: TreeNode[] = [
    ...failed,
    ...[...groups].map(([name, prs]): TreeNode => ({ kind: 'group', name, prs: [...prs], children: [] })),
  ];
  // Larger sets first, and at equal size a failed set before a group (a group equal to a failed set sits under it).
  nodes.sort((a, b) => b.prs.length - a.prs.length || (a.kind === b.kind ? 0 : a.kind === 'failed' ? -1 : 1));
  const roots: TreeNode[] = [];
  const placed: TreeNode[] = [];
  for (const node of nodes) {
    const parent = [...placed]
      .reverse()
      .find((candidate) => candidate.kind === 'failed' && candidate !== node && contains(candidate.prs, node.prs));
    (parent?.children ?? roots).push(node);
    placed.push(node);
  }
  return roots;
}
