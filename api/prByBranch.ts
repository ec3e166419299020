/**
 * A pull request named by its head branch (`pr.branch`), as the hosted service's clients may name one: resolved to
 * the PR of that branch the queue has (the one enqueued now, else the one that moved last), 404 when it has none.
 * Named by number and branch both, they must be the same PR (a 400 saying which branch the number is); a PR whose
 * branch the git host never said (the local host) is taken by its number.
 */
import type { Engine, QueueKey } from '../engine/engine.js';
import { engineError } from '../engine/model/errors.js';

export interface PrName {
  number?: number | undefined;
  branch?: string | undefined;
}

export function prNumberOf(engine: Engine, key: QueueKey, pr: PrName): number {
  const { number, branch } = pr;
  if (branch === undefined) {
    // The schema lets neither through; a number is what is left.
    if (number === undefined) throw engineError('pr_branch_not_found', {});
    return number;
  }
  if (number !== undefined) {
    const named = engine.headBranchOf(key, number);
    if (named !== undefined && named !== branch) {
      throw engineError('pr_branch_mismatch', { number, named, branch });
    }
    return number;
  }
  const chosen = engine.pullRequestOfBranch(key, branch);
  if (chosen === undefined) throw engineError('pr_branch_not_found', { branch });
  return chosen;
}
