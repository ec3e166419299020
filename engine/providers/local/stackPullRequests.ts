/**
 * A test branch's commits (the local git host): the run's PRs applied one after another on top of its base with the
 * queue's merge method (applyPullRequest.ts), and what each contributed (a segment, kept in the test branch's record
 * for merging). The first PR that is missing, conflicts or changes nothing ends it, with the reason a person reads.
 */
import type { TestBranchRequest, TestBranchResult } from '../types.js';
import { applyPullRequest } from './applyPullRequest.js';
import type { Ident, Repository } from './repository.js';
import type { Segment } from './testBranchRecords.js';

function listOf(numbers: number[]): string {
  return numbers.map((number) => `#${number}`).join(', ');
}

/** The tip of the PRs applied in order on the base, and each one's segment; or why one could not be applied. */
export async function stackPullRequests(
  repository: Repository,
  request: TestBranchRequest,
  committer: Ident,
): Promise<{ ok: true; segments: Segment[]; tip: string } | Extract<TestBranchResult, { ok: false }>> {
  const segments: Segment[] = [];
  let current = request.baseSha;
  for (const [index, pr] of request.pullRequests.entries()) {
    const ahead = request.pullRequests.slice(0, index).map((earlier) => earlier.number);
    const onto = `${request.targetBranch}${ahead.length > 0 ? ` + ${listOf(ahead)}` : ''}`;
    if (!(await repository.hasCommit(pr.sha))) {
      return {
        ok: false,
        reason: `the head ${pr.sha} of #${pr.number} is not in the repository`,
        conflict: { number: pr.number, files: [] },
      };
    }
    const applied = await applyPullRequest(repository, current, pr, request.mergeMethod, committer);
    if (!applied.ok) {
      const detail = applied.detail === '' ? '' : ` (${applied.detail})`;
      return {
        ok: false,
        reason: `#${pr.number} conflicts with ${onto} in ${applied.files.join(', ') || 'its changes'}${detail}`,
        conflict: { number: pr.number, files: applied.files },
      };
    }
    if (applied.commits.length === 0) {
      // Nothing to merge; and its test branch would be the same commit as the run's ahead of it.
      return {
        ok: false,
        reason: `#${pr.number} changes nothing on top of ${onto}`,
        conflict: { number: pr.number, files: [] },
      };
    }
    segments.push({ number: pr.number, prSha: pr.sha, parent: current, commits: applied.commits });
    current = applied.tip;
  }
  return { ok: true, segments, tip: current };
}
