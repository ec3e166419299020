/**
 * A pass that waits for the runs ahead of it (queue policy 2). A PR's pass holds when its tested base is the base
 * expected where it stands (view.ts). A group that a bisection found good goes back to the main line behind the runs
 * in progress, which were predicted without it (transaction/bisectionMoves.ts, rescue); so does a PR whose anti-flake
 * retest passed. Its tested base then lacks the PRs of those runs. Under
 * queue policy 1 it was tested again at once. But if those runs fail, their PRs drop out of its base (a failed batch
 * is doomed, then bisected; view.ts) and its pass holds as it is: at 10 % broken most batches fail. So such a pass
 * waits, neither holding nor invalidated, while every PR its tested base lacks is still testing (not merged, not being
 * merged): it merges on its run if they fail, and is tested again if one of them passes (it would merge first: a PR
 * merges only once it passed, and the planner invalidates results before it merges anything). A PR its tested base
 * lacks that is not testing (passed, failed pending, waiting, being merged) makes it be tested again at once, as before.
 * A waiting pass is not settled: nothing behind it counts it as passed, and it vouches for nothing.
 *
 * A PR that speculation tested alone first and that passed (lineSpeculation.ts, speculation.ts) does not wait: it is
 * tested on top of its line at once, so that a coupled line becomes a pipeline of PRs that passed alone (its pass alone
 * is not its merge: it was tested on the target branch only, to learn whether it is the likely failure).
 */
import { PR_IS } from '../../machines/index.js';
import { QUEUE_POLICY } from '../model/policy.js';
import type { PlanInput } from './planner.js';

/**
 * Whether `testedBase`, merged PRs aside, is `expected` (in order) less PRs still testing. `at` finds a PR's position
 * in the line-up.
 */
export function lacksOnlyTesting(
  input: PlanInput,
  expected: readonly number[],
  testedBase: readonly number[],
  at: (number: number) => number | undefined,
): boolean {
  if ((input.policy ?? QUEUE_POLICY) < 2) return false;
  const testing = (number: number) => {
    const other = input.lineup[at(number) ?? -1];
    return other !== undefined && PR_IS.testing(other.state) && !other.mergeRequested;
  };
  let k = 0;
  for (const number of testedBase) {
    if (input.merged.has(number)) continue;
    while (k < expected.length && expected[k] !== number) {
      if (!testing(expected[k] as number)) return false;
      k++;
    }
    if (k === expected.length) return false;
    k++;
  }
  for (; k < expected.length; k++) if (!testing(expected[k] as number)) return false;
  return true;
}
