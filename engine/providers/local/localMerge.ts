/**
 * Merging on the local host: a PR's tested commits put on the target branch with one compare-and-swap of the ref.
 * Replicated on the expected head, they are the very commits tested when the run was built on that head (a
 * fast-forward), and commits with exactly the tested trees otherwise. The tested base must hold the same tree as the
 * target; when the target moved, the merge is refused with the new head so that the engine tests again. A merge
 * already done is answered as merged.
 */
import type { MergeRequest, MergeResult, TargetState } from '../types.js';
import { applyPullRequest, replicate } from './applyPullRequest.js';
import type { Ident, Repository } from './repository.js';
import type { TestBranchRecords } from './testBranchRecords.js';

/** What merging needs of the host. */
export interface MergeContext {
  records: TestBranchRecords;
  /** The committer of new commits, dated now. */
  committer: () => Ident;
  /** The target as it is at `head`, for the engine. */
  targetState: (repository: Repository, head: string) => Promise<TargetState>;
}

/** Merges inside the repository's exclusive section (the host's `withRepository`). */
export async function mergeTested(
  repository: Repository,
  request: MergeRequest,
  context: MergeContext,
): Promise<MergeResult> {
  const targetRef = `refs/heads/${request.targetBranch}`;
  const head = await requireTarget(repository, request.targetBranch);
  const expected = request.expectedHead;
  const pr = request.pullRequest;
  const moved = async (reason: string): Promise<MergeResult> => ({
    ok: false,
    reason,
    target: await context.targetState(repository, head),
  });
  if (!(await repository.hasCommit(expected))) {
    return moved(
      `the expected head ${expected || '(none)'} of ${request.targetBranch} is not in the repository; it is at ${head}`,
    );
  }

  let commits: string[];
  let testedBase: string;
  if (request.testBranchSha === null) {
    // A direct merge: the PR on the expected head, now.
    const applied = await applyNow(repository, request, head, context);
    if (!Array.isArray(applied)) return applied;
    commits = applied;
    testedBase = expected;
  } else {
    const record = await context.records.read(request.repo, request.testBranchSha);
    const segment = record?.segments.find((candidate) => candidate.number === pr.number);
    if (record === undefined || segment === undefined) {
      return {
        ok: false,
        reason: `no record of #${pr.number} in the test branch ${request.testBranchSha}; it will be tested again`,
      };
    }
    if (segment.prSha !== pr.sha) {
      return { ok: false, reason: `the test branch holds #${pr.number} at ${segment.prSha}, not ${pr.sha}` };
    }
    for (const commit of segment.commits) {
      if (!(await repository.hasCommit(commit)))
        return { ok: false, reason: `the tested commit ${commit} is gone; it will be tested again` };
    }
    commits = segment.commits;
    testedBase = segment.parent;
  }

  let onExpected = request.testBranchSha === null;
  const [testedTree, expectedTree] = await repository.trees(testedBase, expected);
  if (testedTree !== expectedTree) {
    if (request.independentBase !== true) {
      return moved(`#${pr.number} was tested on a base that differs from ${request.targetBranch} at ${expected}`);
    }
    // Parallel mode: PRs of other lanes merged since the run's base. The PR goes onto the head as it is now.
    const applied = await applyNow(repository, request, head, context);
    if (!Array.isArray(applied)) return applied;
    commits = applied;
    onExpected = true;
  }
  const merged =
    onExpected && commits.length > 0 ? commits[commits.length - 1]! : await replicate(repository, commits, expected);
  if (head === merged) return { ok: true, head, target: await context.targetState(repository, head) };
  if (head !== expected) return moved(`${request.targetBranch} moved: it is at ${head}, not at ${expected}`);
  if (!(await repository.compareAndSwap(targetRef, merged, expected))) {
    const now = await requireTarget(repository, request.targetBranch);
    return {
      ok: false,
      reason: `${request.targetBranch} moved while merging: it is at ${now}`,
      target: await context.targetState(repository, now),
    };
  }
  // The merge is done; a garbage collection that fails changes nothing and is tried again after the next one.
  await repository.collectGarbage().catch(() => undefined);
  return { ok: true, head: merged, target: await context.targetState(repository, merged) };
}

/**
 * Applies the PR on the expected head with the merge method, now: its new commits, or the answer when it conflicts
 * or when the branch already holds it (a repeat after a crash: the commits made then carry another time, but the
 * same trees and parents).
 */
async function applyNow(
  repository: Repository,
  request: MergeRequest,
  head: string,
  context: MergeContext,
): Promise<string[] | MergeResult> {
  const { pullRequest: pr, expectedHead: expected } = request;
  const applied = await applyPullRequest(repository, expected, pr, request.mergeMethod, context.committer());
  if (!applied.ok)
    return { ok: false, reason: `#${pr.number} conflicts with ${request.targetBranch} in ${applied.files.join(', ')}` };
  if (head !== expected && (await holds(repository, head, expected, applied.commits))) {
    return { ok: true, head, target: await context.targetState(repository, head) };
  }
  return applied.commits;
}

/** Whether `head` is `expected` plus commits with the trees of `commits` (a direct merge done before). */
async function holds(repository: Repository, head: string, expected: string, commits: string[]): Promise<boolean> {
  if (commits.length === 0) return false;
  let at = head;
  for (let index = commits.length - 1; index >= 0; index--) {
    const [ours, theirs] = await Promise.all([
      repository.readCommit(at),
      repository.readCommit(commits[index] as string),
    ]);
    if (ours.tree !== theirs.tree || ours.parents.slice(1).join() !== theirs.parents.slice(1).join()) return false;
    const parent = ours.parents[0];
    if (parent === undefined) return false;
    at = parent;
  }
  return at === expected;
}

/** The target branch's head; thrown when missing, so the engine tries again later (with a growing delay) rather than deciding anything. */
export async function requireTarget(repository: Repository, branch: string): Promise<string> {
  const head = await repository.resolve(`refs/heads/${branch}`);
  if (head === undefined) throw new Error(`the target branch ${branch} does not exist in ${repository.gitDir}`);
  return head;
}
