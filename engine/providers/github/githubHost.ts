/**
 * The GitHub App as the git host (GREENLINE_PROVIDER=github). Everything goes through GitHub's REST API with the
 * installation's token: pull request facts, the target branch and its branch protection, test branches built with
 * GitHub's merge API, merges as a fast-forward of the target branch to the tested commits, one comment per PR
 * edited in place, and the commit status `greenline`. Failed requests throw: the engine's outbox retries them.
 */
import type { RepoRef } from '../../model/queues.js';
import { testBranchName } from '../../model/runs.js';
import type {
  GitHost,
  MergeRequest,
  MergeResult,
  PullRequestFacts,
  TargetState,
  TestBranchRequest,
  TestBranchResult,
} from '../types.js';
import type { GitHubApp, GitHubClient } from './client.js';
import { setStateLabel } from './labels.js';
import type { PullRequestState } from '../../../machines/vocabulary.js';

/** Marks the one comment Greenline keeps on a PR, so that it is found and edited rather than added again. */
export const COMMENT_MARKER = '<!-- greenline:comment -->';
/** The commit status Greenline sets on a PR's head. */
export const STATUS_CONTEXT = 'greenline';

function statusOf(error: unknown): number | undefined {
  return (error as { status?: number }).status;
}

/** The merge commit message of a PR on a test branch, as the local host writes it. */
export function mergeMessage(number: number, title: string): string {
  return `Merge pull request #${number} from refs/pull/${number}/head\n\n${title}`;
}

export class GitHubHost implements GitHost {
  readonly name = 'github';

  constructor(private readonly github: GitHubApp) {}

  private client(repo: RepoRef): Promise<GitHubClient> {
    return this.github.forRepo(repo);
  }

  /** The branch's head and the status checks its protection and rulesets require. */
  async target(repo: RepoRef, branch: string): Promise<TargetState> {
    const octokit = await this.client(repo);
    const where = { owner: repo.owner, repo: repo.name };
    const { data } = await octokit.rest.repos.getBranch({ ...where, branch });
    const required = new Set(data.protection?.required_status_checks?.contexts ?? []);
    for (const check of data.protection?.required_status_checks?.checks ?? []) required.add(check.context);
    const { data: rules } = await octokit.rest.repos.getBranchRules({ ...where, branch, per_page: 100 });
    for (const rule of rules) {
      if (rule.type !== 'required_status_checks') continue;
      for (const check of rule.parameters?.required_status_checks ?? []) required.add(check.context);
    }
    return { head: data.commit.sha, protectionStatuses: [...required].sort() };
  }

  async targetHead(repo: RepoRef, branch: string): Promise<string> {
    return (await this.target(repo, branch)).head;
  }

  async pullRequest(repo: RepoRef, number: number, targetBranch: string): Promise<PullRequestFacts | undefined> {
    const octokit = await this.client(repo);
    const where = { owner: repo.owner, repo: repo.name };
    let pr;
    try {
      pr = (await octokit.rest.pulls.get({ ...where, pull_number: number })).data;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
    // GitHub computes mergeability in the background: null means not yet; the outbox asks again.
    if (pr.state === 'open' && pr.mergeable === null) {
      throw new Error(`GitHub has not computed the mergeability of ${repo.owner}/${repo.name}#${number} yet; asking again`);
    }
    const target = await this.target(repo, targetBranch);
    const facts: PullRequestFacts = {
      title: pr.title,
      author: pr.user.login,
      sha: pr.head.sha,
      baseBranch: pr.base.ref,
      mergeable: false,
      upToDate: false,
      target,
    };
    if (pr.state !== 'open') return { ...facts, notMergeableReason: pr.merged ? 'it is merged already' : 'it is closed' };
    if (pr.draft === true) return { ...facts, notMergeableReason: 'it is a draft' };
    if (pr.mergeable !== true || pr.mergeable_state === 'dirty') {
      return { ...facts, notMergeableReason: `GitHub reports it not mergeable (${pr.mergeable_state})` };
    }
    const { data: comparison } = await octokit.rest.repos.compareCommitsWithBasehead({
      ...where,
      basehead: `${target.head}...${pr.head.sha}`,
      per_page: 1,
    });
    return { ...facts, mergeable: true, upToDate: comparison.status === 'ahead' || comparison.status === 'identical' };
  }

  async buildTestBranch(request: TestBranchRequest): Promise<TestBranchResult> {
    const branch = testBranchName(request.targetBranch, request.runId);
    if (request.mergeMethod === 'rebase') {
      // Thrown, not answered: the engine gives the build up after its retries and cancels the run's PRs with this.
      throw new Error('the GitHub host builds test branches by merge_commit or squash; rebase is not supported yet');
    }
    const octokit = await this.client(request.repo);
    const where = { owner: request.repo.owner, repo: request.repo.name };
    try {
      await octokit.rest.git.getCommit({ ...where, commit_sha: request.baseSha });
    } catch (error) {
      if (statusOf(error) !== 404 && statusOf(error) !== 422) throw error;
      return { ok: false, reason: `the base ${request.baseSha.slice(0, 12)} is not in the repository`, target: await this.target(request.repo, request.targetBranch) };
    }
    // A branch left by an attempt cut short is started again from the base: every step below is repeated.
    try {
      await octokit.rest.git.createRef({ ...where, ref: `refs/heads/${branch}`, sha: request.baseSha });
    } catch (error) {
      if (statusOf(error) !== 422) throw error;
      await octokit.rest.git.updateRef({ ...where, ref: `heads/${branch}`, sha: request.baseSha, force: true });
    }
    let head = request.baseSha;
    const applied: number[] = [];
    for (const pr of request.pullRequests) {
      const { data: facts } = await octokit.rest.pulls.get({ ...where, pull_number: pr.number });
      const previous = head;
      let merged;
      try {
        merged = await octokit.rest.repos.merge({ ...where, base: branch, head: pr.sha, commit_message: mergeMessage(pr.number, facts.title) });
      } catch (error) {
        if (statusOf(error) !== 409) throw error;
        await this.deleteTestBranch(request.repo, branch);
        const onto = [request.targetBranch, ...applied.map((number) => `#${number}`)].join(' + ');
        // GitHub's merge API does not name the files in conflict.
        return { ok: false, reason: `#${pr.number} conflicts with ${onto}`, conflict: { number: pr.number, files: [] } };
      }
      if ((merged.status as number) === 204 || merged.data === undefined) {
        // Nothing to merge: the PR's commits are on the branch already.
        if (request.mergeMethod === 'squash') {
          await this.deleteTestBranch(request.repo, branch);
          const onto = [request.targetBranch, ...applied.map((number) => `#${number}`)].join(' + ');
          return { ok: false, reason: `#${pr.number} changes nothing on top of ${onto}`, conflict: { number: pr.number, files: [] } };
        }
      } else {
        head = merged.data.sha;
        if (request.mergeMethod === 'squash') {
          const { data: squashed } = await octokit.rest.git.createCommit({
            ...where,
            message: `${facts.title} (#${pr.number})`,
            tree: merged.data.commit.tree.sha,
            parents: [previous],
          });
          await octokit.rest.git.updateRef({ ...where, ref: `heads/${branch}`, sha: squashed.sha, force: true });
          head = squashed.sha;
        }
      }
      applied.push(pr.number);
    }
    if (request.openPullRequest === true) await this.openTestPullRequest(octokit, request, branch, applied);
    return { ok: true, branch, sha: head };
  }

  /**
   * A draft PR of the test branch into the target, for CI that runs on pull requests only (`createPrsForTestingBranches`).
   * GitHub closes it when the branch is deleted. One already open (a repeated build) is kept.
   */
  private async openTestPullRequest(octokit: GitHubClient, request: TestBranchRequest, branch: string, numbers: number[]): Promise<void> {
    const where = { owner: request.repo.owner, repo: request.repo.name };
    const { data: open } = await octokit.rest.pulls.list({ ...where, head: `${request.repo.owner}:${branch}`, state: 'open', per_page: 1 });
    if (open.length > 0) return;
    await octokit.rest.pulls.create({
      ...where,
      head: branch,
      base: request.targetBranch,
      draft: true,
      title: `Greenline test run ${request.runId}`,
      body: `Tests ${numbers.map((number) => `#${number}`).join(', ')} on top of ${request.targetBranch}. Greenline deletes the branch, and GitHub closes this pull request, when the run ends.`,
    });
  }

  async deleteTestBranch(repo: RepoRef, branch: string): Promise<void> {
    const octokit = await this.client(repo);
    try {
      await octokit.rest.git.deleteRef({ owner: repo.owner, repo: repo.name, ref: `heads/${branch}` });
    } catch (error) {
      // Gone already: deleting is done.
      if (statusOf(error) !== 422 && statusOf(error) !== 404) throw error;
    }
  }

  /**
   * Finds the commit that applied the PR on the test branch: walking first parents from the branch's SHA, the first
   * commit whose first parent is not a later PR's. With `merge_commit` its message names the PR; with `squash` too.
   */
  private async testedCommit(octokit: GitHubClient, repo: RepoRef, from: string, number: number): Promise<{ sha: string; parent: string } | undefined> {
    const where = { owner: repo.owner, repo: repo.name };
    let sha = from;
    for (let steps = 0; steps < 200; steps++) {
      const { data: commit } = await octokit.rest.git.getCommit({ ...where, commit_sha: sha });
      const parent = commit.parents[0]?.sha;
      if (parent === undefined) return undefined;
      if (commit.message.startsWith(`Merge pull request #${number} from `) || commit.message.split('\n')[0]!.endsWith(`(#${number})`)) {
        return { sha, parent };
      }
      sha = parent;
    }
    return undefined;
  }

  async merge(request: MergeRequest): Promise<MergeResult> {
    const octokit = await this.client(request.repo);
    const where = { owner: request.repo.owner, repo: request.repo.name };
    const pr = request.pullRequest;
    const before = await this.target(request.repo, request.targetBranch);
    if (request.testBranchSha === null) return this.mergeDirectly(octokit, request, before);
    const tested = await this.testedCommit(octokit, request.repo, request.testBranchSha, pr.number);
    if (tested === undefined) {
      return { ok: false, reason: `the commits tested for #${pr.number} are not found on its test branch`, target: before };
    }
    // Repeated after a crash: the branch holds the tested commit already.
    if (before.head === tested.sha) return { ok: true, head: tested.sha, target: before };
    if (before.head !== request.expectedHead) {
      return { ok: false, reason: `${request.targetBranch} moved to ${before.head.slice(0, 12)}`, target: before };
    }
    if (tested.parent !== request.expectedHead) {
      return { ok: false, reason: `#${pr.number} was tested on another base than ${request.expectedHead.slice(0, 12)}`, target: before };
    }
    try {
      // force: false is a fast-forward only: GitHub refuses anything else, and the check above was the expected head.
      await octokit.rest.git.updateRef({ ...where, ref: `heads/${request.targetBranch}`, sha: tested.sha, force: false });
    } catch (error) {
      if (statusOf(error) !== 422 && statusOf(error) !== 409) throw error;
      const now = await this.target(request.repo, request.targetBranch);
      if (now.head !== request.expectedHead) return { ok: false, reason: `${request.targetBranch} moved to ${now.head.slice(0, 12)}`, target: now };
      return { ok: false, reason: `GitHub refused to move ${request.targetBranch}: ${(error as Error).message}` };
    }
    // merge_commit: the PR's head is now in the target, and GitHub marks the PR merged itself. squash: the PR's own
    // commits are not, so it is closed here (with the comment saying where it went).
    if (request.mergeMethod === 'squash') {
      await octokit.rest.pulls.update({ ...where, pull_number: pr.number, state: 'closed' });
    }
    return { ok: true, head: tested.sha, target: { ...before, head: tested.sha } };
  }

  /**
   * A direct merge (`directMergeMode: always`: no test run) goes through GitHub's merge API with the queue's method,
   * pinned to the PR head the queue checked; the target must be at the expected head just before.
   */
  private async mergeDirectly(octokit: GitHubClient, request: MergeRequest, before: TargetState): Promise<MergeResult> {
    const where = { owner: request.repo.owner, repo: request.repo.name };
    const pr = request.pullRequest;
    const { data: current } = await octokit.rest.pulls.get({ ...where, pull_number: pr.number });
    if (current.merged === true && current.merge_commit_sha !== null && before.head === current.merge_commit_sha) {
      return { ok: true, head: current.merge_commit_sha, target: before };
    }
    if (before.head !== request.expectedHead) return { ok: false, reason: `${request.targetBranch} moved to ${before.head.slice(0, 12)}`, target: before };
    const method = request.mergeMethod === 'merge_commit' ? 'merge' : request.mergeMethod;
    try {
      const { data } = await octokit.rest.pulls.merge({ ...where, pull_number: pr.number, sha: pr.sha, merge_method: method });
      return { ok: true, head: data.sha, target: { ...before, head: data.sha } };
    } catch (error) {
      // 405: not mergeable (protection, conflicts); 409: the head moved.
      if (statusOf(error) !== 405 && statusOf(error) !== 409 && statusOf(error) !== 422) throw error;
      return { ok: false, reason: `GitHub refused to merge #${pr.number}: ${(error as Error).message}` };
    }
  }

  async comment(repo: RepoRef, number: number, body: string): Promise<void> {
    const octokit = await this.client(repo);
    const where = { owner: repo.owner, repo: repo.name };
    const text = `${COMMENT_MARKER}\n${body}`;
    let mine: { id: number | bigint; body?: string | undefined } | undefined;
    for (let page = 1; mine === undefined; page++) {
      const { data: comments } = await octokit.rest.issues.listComments({ ...where, issue_number: number, per_page: 100, page });
      mine = comments.find((comment) => comment.user?.type === 'Bot' && comment.body?.startsWith(COMMENT_MARKER) === true);
      if (comments.length < 100) break;
    }
    if (mine === undefined) await octokit.rest.issues.createComment({ ...where, issue_number: number, body: text });
    else if (mine.body !== text) await octokit.rest.issues.updateComment({ ...where, comment_id: Number(mine.id), body: text });
  }

  async setStateLabel(repo: RepoRef, number: number, state: PullRequestState): Promise<void> {
    return setStateLabel(await this.client(repo), repo, number, state);
  }

  async setStatusCheck(repo: RepoRef, sha: string, state: 'pending' | 'success' | 'failure', description: string): Promise<void> {
    const octokit = await this.client(repo);
    await octokit.rest.repos.createCommitStatus({
      owner: repo.owner,
      repo: repo.name,
      sha,
      state,
      context: STATUS_CONTEXT,
      description: description.slice(0, 140),
    });
  }
}
