/**
 * The GitHub App as the git host (GREENLINE_PROVIDER=github). Everything goes through GitHub's REST API with the
 * installation's token: pull request facts, the target branch and its branch protection, test branches built with
 * GitHub's merge API and deterministic commits of the git data API (testBranches.ts), merges as a fast-forward of the target branch to the tested commits, one comment per PR
 * edited in place, and the commit status `greenline`. Failed requests throw: the engine's outbox retries them.
 */
import type { RepoRef } from '../../model/queues.js';
import type {
  CheckRunWrite,
  GitHost,
  MergeRequest,
  MergeResult,
  PullRequestFacts,
  TargetState,
  TestBranchRequest,
  TestBranchResult,
} from '../types.js';
import type { GitHubApp, GitHubClient } from './client.js';
import { merge } from './gitHubMerges.js';
import { CheckRunWriter } from './checkRunWrites.js';
import { buildTestBranch, statusOf } from './testBranches.js';
import { setStateLabel } from './labels.js';
import { missingApprovals } from './reviews.js';
import { repoConfigAt } from './repoConfig.js';
import type { PullRequestState } from '../../../machines/vocabulary.js';

/** Marks the one comment Greenline keeps on a PR, so that it is found and edited rather than added again. */
export const COMMENT_MARKER = '<!-- greenline:comment -->';
/** The commit status Greenline sets on a PR's head. */
export const STATUS_CONTEXT = 'greenline';

export { mergeMessage } from './testBranches.js';

export class GitHubHost implements GitHost {
  readonly name = 'github';

  private readonly checkRuns = new CheckRunWriter();
  /** Repositories whose check runs GitHub refused (403), so that it is said once. */
  private readonly checkRunsRefused = new Set<string>();

  constructor(private readonly github: GitHubApp) {}

  /** A PR's html_url, as GitHub forms it (on github.com and GitHub Enterprise alike: https://<host>/<owner>/<repo>/pull/<n>). */
  pullRequestUrl(repo: RepoRef, number: number): string {
    return `https://${repo.host}/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}/pull/${number}`;
  }

  private client(repo: RepoRef): Promise<GitHubClient> {
    return this.github.forRepo(repo);
  }

  /**
   * The branch's head, the status checks its protection and rulesets require, and those `.greenline.yaml` at that
   * head requires (read through the contents API).
   */
  async target(repo: RepoRef, branch: string): Promise<TargetState> {
    const octokit = await this.client(repo);
    const where = { owner: repo.owner, repo: repo.name };
    const { data } = await octokit.rest.repos.getBranch({ ...where, branch });
    const required = new Set(data.protection?.required_status_checks?.contexts ?? []);
    for (const check of data.protection?.required_status_checks?.checks ?? []) required.add(check.context);
    const rules = await octokit.paginate(octokit.rest.repos.getBranchRules, { ...where, branch, per_page: 100 });
    for (const rule of rules) {
      if (rule.type !== 'required_status_checks') continue;
      for (const check of rule.parameters?.required_status_checks ?? []) required.add(check.context);
    }
    const config = await repoConfigAt(octokit, repo, data.commit.sha);
    return { head: data.commit.sha, protectionStatuses: [...required].sort(), ...config };
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
      throw new Error(
        `GitHub has not computed the mergeability of ${repo.owner}/${repo.name}#${number} yet; asking again`,
      );
    }
    const target = await this.target(repo, targetBranch);
    const facts: PullRequestFacts = {
      title: pr.title,
      author: pr.user.login,
      sha: pr.head.sha,
      baseBranch: pr.base.ref,
      headBranch: pr.head.ref,
      mergeable: false,
      upToDate: false,
      target,
    };
    if (pr.state !== 'open')
      return { ...facts, notMergeableReason: pr.merged ? 'it is merged already' : 'it is closed' };
    if (pr.draft === true) return { ...facts, notMergeableReason: 'it is a draft' };
    if (pr.mergeable !== true || pr.mergeable_state === 'dirty') {
      return { ...facts, notMergeableReason: `GitHub reports it not mergeable (${pr.mergeable_state})` };
    }
    const unapproved = await missingApprovals(octokit, repo, number, targetBranch);
    if (unapproved !== undefined) return { ...facts, notMergeableReason: unapproved };
    const { data: comparison } = await octokit.rest.repos.compareCommitsWithBasehead({
      ...where,
      basehead: `${target.head}...${pr.head.sha}`,
      per_page: 1,
    });
    return { ...facts, mergeable: true, upToDate: comparison.status === 'ahead' || comparison.status === 'identical' };
  }

  async buildTestBranch(request: TestBranchRequest): Promise<TestBranchResult> {
    return buildTestBranch(await this.client(request.repo), this, request);
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

  async merge(request: MergeRequest): Promise<MergeResult> {
    return merge(await this.client(request.repo), this, request);
  }

  async comment(repo: RepoRef, number: number, body: string): Promise<void> {
    const octokit = await this.client(repo);
    const where = { owner: repo.owner, repo: repo.name };
    const text = `${COMMENT_MARKER}\n${body}`;
    let mine: { id: number | bigint; body?: string | undefined } | undefined;
    for await (const { data: comments } of octokit.paginate.iterator(octokit.rest.issues.listComments, {
      ...where,
      issue_number: number,
      per_page: 100,
    })) {
      mine = comments.find(
        (comment) => comment.user?.type === 'Bot' && comment.body?.startsWith(COMMENT_MARKER) === true,
      );
      if (mine !== undefined) break;
    }
    if (mine === undefined) await octokit.rest.issues.createComment({ ...where, issue_number: number, body: text });
    else if (mine.body !== text)
      await octokit.rest.issues.updateComment({ ...where, comment_id: Number(mine.id), body: text });
  }

  async setStateLabel(repo: RepoRef, number: number, state: PullRequestState): Promise<void> {
    return setStateLabel(await this.client(repo), repo, number, state);
  }

  /** The `greenline` check run of a PR's head, found again by its external id (checkRunWrites.ts). */
  /**
   * A 403 (the App without `checks: write`, as an installation that has not accepted issue 32's permissions) is not
   * tried again: the check run only informs, and an effect retried for ever would hold up the queue's outbox behind
   * it. It is said once per repository.
   */
  async setCheckRun(repo: RepoRef, sha: string, externalId: string, check: CheckRunWrite): Promise<void> {
    try {
      await this.checkRuns.write(await this.client(repo), repo, sha, externalId, check);
    } catch (error) {
      if (statusOf(error) !== 403) throw error;
      const name = `${repo.owner}/${repo.name}`;
      if (!this.checkRunsRefused.has(name))
        console.warn(
          `greenline: GitHub refused the check runs of ${name} (403: does the App have \`checks: write\`?); they are not written`,
        );
      this.checkRunsRefused.add(name);
    }
  }

  async setStatusCheck(
    repo: RepoRef,
    sha: string,
    state: 'pending' | 'success' | 'failure',
    description: string,
  ): Promise<void> {
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
