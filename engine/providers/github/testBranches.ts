/**
 * Test branches on GitHub (`greenline/<branch>/<testRunId>`), holding what the local host builds for each merge
 * method, made with GitHub's REST API:
 *
 * - `merge_commit`: GitHub's merge API (`POST /repos/{owner}/{repo}/merges`) merges each PR's head into the branch
 *   for its tree; the commit on the branch is then made with that tree, parents [branch head, PR head], message
 *   `Merge pull request #N from refs/pull/N/head` and the subject of the PR head's commit;
 * - `squash`: the same merge's tree as one commit with a single parent, message `<subject of the PR head> (#N)`,
 *   authored by the PR head's author;
 * - `rebase`: every non-merge commit of the PR not yet on the branch (GitHub's compare), replayed in order with its
 *   message and author. A replay is a cherry-pick: GitHub has none, so the three-way merge is pinned to the replayed
 *   commit's parent with throw-away commits (a base holding the parent's tree, and two commits on it with the
 *   branch's tree and the replayed commit's tree) merged with the merge API; its tree, on the branch's head, is the
 *   replayed commit. A replay that changes nothing is dropped, as `git rebase` does; a PR none of whose commits
 *   changes anything is refused, as with `squash`.
 *
 * Every commit left on a branch is made with the git data API (`POST .../git/commits`) with author and committer
 * given in full, dates included: the committer is `COMMITTER`, dated the latest committer date of the commit's
 * parents and the commit it stands for (the PR head, the replayed commit). Nothing in a commit depends on when it is
 * made, and git commits are content-addressed: the same PR on the same commit is the same commit, in every run.
 * The run of [#1, #2] on the target's head T builds exactly the commit that #1's own run built on T, so once #1 merges
 * (a fast-forward to that commit), #2's result holds and #2 fast-forwards too, without being tested again.
 * (The merge API's own commits carry the time they were made; they are only used for their trees.)
 *
 * A conflict (409) fails the PR being applied (GitHub does not name the files).
 */
import type { RepoRef } from '../../model/queues.js';
import { testBranchName } from '../../model/testRuns.js';
import { testPullRequestText } from '../../model/texts.js';
import type { TargetState, TestBranchRequest, TestBranchResult } from '../types.js';
import type { GitHubClient } from './client.js';

export interface BranchHost {
  target(repo: RepoRef, branch: string): Promise<TargetState>;
  deleteTestBranch(repo: RepoRef, branch: string): Promise<void>;
}

export function statusOf(error: unknown): number | undefined {
  return (error as { status?: number }).status;
}

/** The merge commit message of a PR on a test branch, as the local host writes it (the PR head's subject). */
export function mergeMessage(number: number, subject: string): string {
  return `Merge pull request #${number} from refs/pull/${number}/head\n\n${subject}`;
}

/** Who commits on test branches: one fixed identity, so that a commit made again is the same commit. */
export const COMMITTER = { name: 'Greenline', email: 'greenline@users.noreply.github.com' } as const;

/** The latest of the dates (GitHub's ISO 8601 timestamps), as given. */
export function latestDate(...dates: (string | undefined)[]): string {
  let latest: string | undefined;
  for (const date of dates)
    if (date !== undefined && (latest === undefined || Date.parse(date) > Date.parse(latest))) latest = date;
  if (latest === undefined) throw new Error('a commit without a date');
  return latest;
}

type Where = { owner: string; repo: string };
/** A commit on the branch, and its committer date (which dates the commits made on top of it). */
type Tip = { sha: string; date: string };
/** What applying one PR gave: the branch's new head, or a conflict. */
type Applied = Tip | { conflict: true } | { nothing: true };

export async function buildTestBranch(
  octokit: GitHubClient,
  host: BranchHost,
  request: TestBranchRequest,
): Promise<TestBranchResult> {
  const branch = testBranchName(request.targetBranch, request.runId);
  const where = { owner: request.repo.owner, repo: request.repo.name };
  let head: Tip;
  try {
    const { data: base } = await octokit.rest.git.getCommit({ ...where, commit_sha: request.baseSha });
    head = { sha: base.sha, date: base.committer.date };
  } catch (error) {
    if (statusOf(error) !== 404 && statusOf(error) !== 422) throw error;
    return {
      ok: false,
      reason: `the base ${request.baseSha.slice(0, 12)} is not in the repository`,
      target: await host.target(request.repo, request.targetBranch),
    };
  }
  // A branch left by an attempt cut short is started again from the base: every step below is repeated.
  await moveRef(octokit, where, branch, request.baseSha, true);
  const applied: number[] = [];
  for (const pr of request.pullRequests) {
    const onto = () => [request.targetBranch, ...applied.map((number) => `#${number}`)].join(' + ');
    const result =
      request.mergeMethod === 'rebase'
        ? await rebase(octokit, where, branch, head, pr.sha)
        : await mergeOrSquash(octokit, where, branch, head, pr, request.mergeMethod === 'squash');
    if ('conflict' in result) {
      await host.deleteTestBranch(request.repo, branch);
      // GitHub's merge API does not name the files in conflict.
      return {
        ok: false,
        reason: `#${pr.number} conflicts with ${onto()}`,
        conflict: { number: pr.number, files: [] },
      };
    }
    if ('nothing' in result) {
      await host.deleteTestBranch(request.repo, branch);
      return {
        ok: false,
        reason: `#${pr.number} changes nothing on top of ${onto()}`,
        conflict: { number: pr.number, files: [] },
      };
    }
    head = result;
    applied.push(pr.number);
  }
  if (request.openPullRequest === true) await openTestPullRequest(octokit, request, branch, applied);
  return { ok: true, branch, sha: head.sha };
}

/** Creates the branch at `sha`, or moves it there (`force`: even when that is not a fast-forward). */
async function moveRef(
  octokit: GitHubClient,
  where: Where,
  branch: string,
  sha: string,
  create: boolean,
): Promise<void> {
  if (create) {
    try {
      await octokit.rest.git.createRef({ ...where, ref: `refs/heads/${branch}`, sha });
      return;
    } catch (error) {
      if (statusOf(error) !== 422) throw error;
    }
  }
  await octokit.rest.git.updateRef({ ...where, ref: `heads/${branch}`, sha, force: true });
}

async function mergeOrSquash(
  octokit: GitHubClient,
  where: Where,
  branch: string,
  previous: Tip,
  pr: { number: number; sha: string },
  squash: boolean,
): Promise<Applied> {
  const { data: prHead } = await octokit.rest.git.getCommit({ ...where, commit_sha: pr.sha });
  let merged;
  try {
    // Only for the merge's tree: this commit carries the time it was made, and the branch moves off it below.
    merged = await octokit.rest.repos.merge({
      ...where,
      base: branch,
      head: pr.sha,
      commit_message: `greenline: merge #${pr.number}`,
    });
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
    return { conflict: true };
  }
  // Nothing to merge: the PR's commits are on the branch already (a squash of nothing is refused, as locally).
  if ((merged.status as number) === 204 || merged.data === undefined) return squash ? { nothing: true } : previous;
  const subject = prHead.message.split('\n')[0] ?? '';
  const date = latestDate(previous.date, prHead.committer.date);
  const committer = { ...COMMITTER, date };
  const { data: made } = await octokit.rest.git.createCommit({
    ...where,
    tree: merged.data.commit.tree.sha,
    ...(squash
      ? {
          message: `${subject} (#${pr.number})`,
          parents: [previous.sha],
          author: { name: prHead.author.name, email: prHead.author.email, date },
        }
      : { message: mergeMessage(pr.number, subject), parents: [previous.sha, pr.sha], author: committer }),
    committer,
  });
  await moveRef(octokit, where, branch, made.sha, false);
  return { sha: made.sha, date };
}

/**
 * The PR's non-merge commits not on `head`, oldest first, with what a replay needs: every page of GitHub's compare
 * (100 commits a page, the most it gives; without paging it lists 250 and stops).
 */
export async function commitsToReplay(octokit: GitHubClient, where: Where, head: string, prSha: string) {
  type Commits = Awaited<ReturnType<GitHubClient['rest']['repos']['compareCommitsWithBasehead']>>['data']['commits'];
  const commits: Commits = [];
  for (let page = 1; ; page++) {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      ...where,
      basehead: `${head}...${prSha}`,
      per_page: PAGE,
      page,
    });
    commits.push(...data.commits);
    if (data.commits.length < PAGE || commits.length >= data.total_commits) break;
  }
  return commits.filter((commit) => commit.parents.length === 1);
}

/** The most items GitHub gives in one page. */
const PAGE = 100;

async function rebase(octokit: GitHubClient, where: Where, branch: string, head: Tip, prSha: string): Promise<Applied> {
  let tip = head;
  let tipTree = (await octokit.rest.git.getCommit({ ...where, commit_sha: head.sha })).data.tree.sha;
  for (const commit of await commitsToReplay(octokit, where, head.sha, prSha)) {
    const parentTree = (await octokit.rest.git.getCommit({ ...where, commit_sha: commit.parents[0]!.sha })).data.tree
      .sha;
    let tree = commit.commit.tree.sha;
    if (parentTree !== tipTree) {
      const scaffold = (message: string, treeSha: string, parents: string[]) =>
        octokit.rest.git.createCommit({ ...where, message, tree: treeSha, parents }).then(({ data }) => data.sha);
      const base = await scaffold('greenline: merge base', parentTree, []);
      const ours = await scaffold('greenline: ours', tipTree, [base]);
      const theirs = await scaffold('greenline: theirs', tree, [base]);
      await moveRef(octokit, where, branch, ours, false);
      let merged;
      try {
        merged = await octokit.rest.repos.merge({
          ...where,
          base: branch,
          head: theirs,
          commit_message: 'greenline: replay',
        });
      } catch (error) {
        if (statusOf(error) !== 409) throw error;
        return { conflict: true };
      }
      tree = (merged.status as number) === 204 || merged.data === undefined ? tipTree : merged.data.commit.tree.sha;
    }
    if (tree === tipTree) continue;
    const author = commit.commit.author;
    const date = latestDate(tip.date, commit.commit.committer?.date, author?.date);
    const committer = { ...COMMITTER, date };
    const { data: replayed } = await octokit.rest.git.createCommit({
      ...where,
      message: commit.commit.message,
      tree,
      parents: [tip.sha],
      author:
        author?.name !== undefined && author.email !== undefined
          ? { name: author.name, email: author.email, date: author.date ?? date }
          : committer,
      committer,
    });
    tip = { sha: replayed.sha, date };
    tipTree = tree;
  }
  // Every replay changed nothing: refused, as a squash of nothing is (there would be no commit of the PR to merge).
  if (tip.sha === head.sha) return { nothing: true };
  await moveRef(octokit, where, branch, tip.sha, false);
  return tip;
}

/**
 * A draft PR of the test branch into the target, for CI that runs on pull requests only (`createPrsForTestingBranches`).
 * GitHub closes it when the branch is deleted. One already open (a repeated build) is kept.
 */
async function openTestPullRequest(
  octokit: GitHubClient,
  request: TestBranchRequest,
  branch: string,
  numbers: number[],
): Promise<void> {
  const where = { owner: request.repo.owner, repo: request.repo.name };
  const { data: open } = await octokit.rest.pulls.list({
    ...where,
    head: `${request.repo.owner}:${branch}`,
    state: 'open',
    per_page: 1,
  });
  if (open.length > 0) return;
  await octokit.rest.pulls.create({
    ...where,
    head: branch,
    base: request.targetBranch,
    draft: true,
    ...testPullRequestText(request.runId, numbers, request.targetBranch),
  });
}
