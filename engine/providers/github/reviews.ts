/**
 * Required approving reviews. How many approvals the target branch requires: the most its rulesets' `pull_request`
 * rules ask (`GET .../rules/branches/{branch}`, readable with `metadata`), and its classic branch protection's
 * `required_approving_review_count` (`GET .../branches/{branch}/protection/required_pull_request_reviews`, which
 * needs the App's `administration: read`; without it, or without protection, GitHub answers 403 or 404 and only the
 * rulesets count). How many a PR has: its reviewers whose latest deciding review (approved, changes requested,
 * dismissed) is an approval.
 */
import type { RepoRef } from '../../model/queues.js';
import type { GitHubClient } from './client.js';
import { statusOf } from './testBranches.js';

export async function requiredApprovals(octokit: GitHubClient, repo: RepoRef, branch: string): Promise<number> {
  const where = { owner: repo.owner, repo: repo.name };
  let required = 0;
  const rules = await octokit.paginate(octokit.rest.repos.getBranchRules, { ...where, branch, per_page: 100 });
  for (const rule of rules) {
    if (rule.type === 'pull_request')
      required = Math.max(required, rule.parameters?.required_approving_review_count ?? 0);
  }
  try {
    const { data } = await octokit.rest.repos.getPullRequestReviewProtection({ ...where, branch });
    required = Math.max(required, data.required_approving_review_count ?? 0);
  } catch (error) {
    if (statusOf(error) !== 404 && statusOf(error) !== 403) throw error;
  }
  return required;
}

export async function approvals(octokit: GitHubClient, repo: RepoRef, number: number): Promise<number> {
  const latest = new Map<string, string>();
  // Every page, oldest first: a PR's latest deciding review may be its 1001st.
  const reviews = await octokit.paginate(octokit.rest.pulls.listReviews, {
    owner: repo.owner,
    repo: repo.name,
    pull_number: number,
    per_page: 100,
  });
  for (const review of reviews) {
    if (review.user !== null && review.state !== 'COMMENTED' && review.state !== 'PENDING')
      latest.set(review.user.login, review.state);
  }
  return [...latest.values()].filter((state) => state === 'APPROVED').length;
}

/** Why the PR may not merge for want of approvals, or undefined when it has enough. */
export async function missingApprovals(
  octokit: GitHubClient,
  repo: RepoRef,
  number: number,
  branch: string,
): Promise<string | undefined> {
  const required = await requiredApprovals(octokit, repo, branch);
  if (required === 0) return undefined;
  const have = await approvals(octokit, repo, number);
  return have >= required ? undefined : `it has ${have} of the ${required} approving review(s) ${branch} requires`;
}
