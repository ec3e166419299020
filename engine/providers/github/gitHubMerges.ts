/**
 * Merging on GitHub. A tested PR merges by a fast-forward of the target branch to the commits its test branch gave it
 * (`PATCH .../git/refs/heads/<branch>`, `force: false`), after checking the branch is at the head the queue expects:
 * what reaches the target is exactly what was tested. Where protection forbids that update (it requires changes
 * through pull requests) but the branch has not moved, the PR is merged through GitHub's merge API instead, with the
 * queue's method, pinned to the PR head that was tested: the same changes on the same base, in commits GitHub makes.
 * When GitHub refuses that too, the refusal is answered (the engine bounds how often a PR goes back to testing for it).
 * A direct merge (no test run) goes through the merge API at once.
 */
import type { MergeRequest, MergeResult, TargetState } from '../types.js';
import type { GitHubClient } from './client.js';
import { commitsToReplay, statusOf, type BranchHost } from './testBranches.js';

type Where = { owner: string; repo: string };
type Comparison = Awaited<ReturnType<GitHubClient['rest']['repos']['compareCommitsWithBasehead']>>['data'];

export async function merge(octokit: GitHubClient, host: BranchHost, request: MergeRequest): Promise<MergeResult> {
  const where = { owner: request.repo.owner, repo: request.repo.name };
  const pr = request.pullRequest;
  const before = await host.target(request.repo, request.targetBranch);
  if (request.testBranchSha === null) return mergeThroughApi(octokit, request, before);
  const tested = await testedCommit(octokit, where, request);
  if (tested === undefined) {
    // With the target where expected this is a refusal like any other (bounded by the engine), not a moved target.
    const moved = before.head !== request.expectedHead;
    return {
      ok: false,
      reason: `the commits tested for #${pr.number} are not found on its test branch`,
      ...(moved ? { target: before } : {}),
    };
  }
  // Repeated after a crash: the branch holds the tested commit already.
  if (before.head === tested.sha) return { ok: true, head: tested.sha, target: before };
  if (before.head !== request.expectedHead) {
    return { ok: false, reason: `${request.targetBranch} moved to ${before.head.slice(0, 12)}`, target: before };
  }
  if (tested.parent !== request.expectedHead) {
    return {
      ok: false,
      reason: `#${pr.number} was tested on another base than ${request.expectedHead.slice(0, 12)}`,
      target: before,
    };
  }
  try {
    // force: false is a fast-forward only: GitHub refuses anything else, and the check above was the expected head.
    await octokit.rest.git.updateRef({ ...where, ref: `heads/${request.targetBranch}`, sha: tested.sha, force: false });
  } catch (error) {
    if (statusOf(error) !== 422 && statusOf(error) !== 409 && statusOf(error) !== 403) throw error;
    const now = await host.target(request.repo, request.targetBranch);
    if (now.head !== request.expectedHead)
      return { ok: false, reason: `${request.targetBranch} moved to ${now.head.slice(0, 12)}`, target: now };
    // Protection forbids moving the branch (changes through pull requests only): GitHub's merge API instead.
    return mergeThroughApi(
      octokit,
      request,
      now,
      `GitHub refused to fast-forward ${request.targetBranch} (${(error as Error).message})`,
    );
  }
  // merge_commit: the PR's head is now in the target, and GitHub marks the PR merged itself. squash and rebase: the
  // PR's own commits are not, so it is closed here (with the comment saying where it went).
  if (request.mergeMethod !== 'merge_commit') {
    await octokit.rest.pulls.update({ ...where, pull_number: pr.number, state: 'closed' });
  }
  return { ok: true, head: tested.sha, target: { ...before, head: tested.sha } };
}

/**
 * The commit that applied the PR on the test branch, and its parent below the PR's commits. The test branch's commits
 * above the expected head are listed by comparing the two (`GET .../compare/{head}...{branch}`, every page of 100 by
 * `octokit.paginate`): the list stops at the expected head, however long the branch is, and the walk below stops when
 * it reaches the expected head or leaves the list (the branch is not on top of it). `merge_commit` and `squash`:
 * walking first parents from the branch's SHA, the commit whose message names the PR. `rebase`: the replayed commits
 * keep their messages and authors, so the PR's are the lowest commits above the expected head that match its own
 * commits in order (commits whose replay changed nothing were dropped).
 */
async function testedCommit(
  octokit: GitHubClient,
  where: Where,
  request: MergeRequest,
): Promise<{ sha: string; parent: string } | undefined> {
  const number = request.pullRequest.number;
  const bySha = new Map<string, Comparison['commits'][number]>();
  const pages = octokit.paginate.iterator(octokit.rest.repos.compareCommitsWithBasehead, {
    ...where,
    basehead: `${request.expectedHead}...${request.testBranchSha as string}`,
    per_page: PAGE,
  });
  // A comparison's answer has a `url` of its own, so the plugin hands each page whole (its types say otherwise) and
  // asks for the next while `page × per_page < total_commits` (or a `link` names one).
  for await (const page of pages)
    for (const commit of (page.data as unknown as Comparison).commits) bySha.set(commit.sha, commit);
  const chain: { sha: string; parent: string; message: string; author: string }[] = [];
  let sha = request.testBranchSha as string;
  for (let commit = bySha.get(sha); commit !== undefined && sha !== request.expectedHead; commit = bySha.get(sha)) {
    const parent = commit.parents[0]?.sha;
    if (parent === undefined) break;
    const message = commit.commit.message;
    const link = { sha, parent, message, author: `${commit.commit.author?.name} <${commit.commit.author?.email}>` };
    if (request.mergeMethod !== 'rebase') {
      if (message.startsWith(`Merge pull request #${number} from `) || message.split('\n')[0]!.endsWith(`(#${number})`))
        return link;
    }
    chain.unshift(link);
    sha = parent;
  }
  if (request.mergeMethod !== 'rebase' || sha !== request.expectedHead) return undefined;
  const own = await commitsToReplay(octokit, where, request.expectedHead, request.pullRequest.sha);
  let matched = 0;
  for (const commit of own) {
    const link = chain[matched];
    if (
      link !== undefined &&
      link.message === commit.commit.message &&
      link.author === `${commit.commit.author?.name} <${commit.commit.author?.email}>`
    )
      matched++;
  }
  return matched === 0 ? undefined : { sha: chain[matched - 1]!.sha, parent: chain[0]!.parent };
}

/** The most items GitHub gives in one page. */
const PAGE = 100;

/**
 * GitHub's merge API (`PUT .../pulls/{number}/merge`) with the queue's method, pinned to the PR head the queue checked
 * (`sha`), after checking the target is at the expected head; GitHub marks the PR merged. `why`: the fast-forward
 * this replaces was refused (said in a refusal).
 */
async function mergeThroughApi(
  octokit: GitHubClient,
  request: MergeRequest,
  before: TargetState,
  why?: string,
): Promise<MergeResult> {
  const where = { owner: request.repo.owner, repo: request.repo.name };
  const pr = request.pullRequest;
  const { data: current } = await octokit.rest.pulls.get({ ...where, pull_number: pr.number });
  if (current.merged === true && current.merge_commit_sha !== null && before.head === current.merge_commit_sha) {
    return { ok: true, head: current.merge_commit_sha, target: before };
  }
  if (before.head !== request.expectedHead)
    return { ok: false, reason: `${request.targetBranch} moved to ${before.head.slice(0, 12)}`, target: before };
  const method = request.mergeMethod === 'merge_commit' ? 'merge' : request.mergeMethod;
  try {
    const { data } = await octokit.rest.pulls.merge({
      ...where,
      pull_number: pr.number,
      sha: pr.sha,
      merge_method: method,
    });
    return { ok: true, head: data.sha, target: { ...before, head: data.sha } };
  } catch (error) {
    // 405: not mergeable (protection, conflicts); 409: the head moved.
    if (statusOf(error) !== 405 && statusOf(error) !== 409 && statusOf(error) !== 422) throw error;
    return {
      ok: false,
      reason: `${why === undefined ? '' : `${why}; `}GitHub refused to merge #${pr.number}: ${(error as Error).message}`,
    };
  }
}
