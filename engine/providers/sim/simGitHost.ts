/**
 * The simulated git host (GREENLINE_PROVIDER=sim): every PR number exists, is mergeable and is based on the tip of
 * its target branch; title `PR #n`, author `sim`. SHAs are deterministic hashes of what they stand for, so the host
 * keeps no state: the engine tells it the target head it expects, and merging answers the next head.
 */
import { createHash } from 'node:crypto';
import type { RepoRef } from '../../model/queues.js';
import { testBranchName } from '../../model/testRuns.js';
import type {
  GitHost,
  MergeRequest,
  MergeResult,
  PullRequestFacts,
  TestBranchRequest,
  TestBranchResult,
} from '../types.js';

export function simSha(...parts: (string | number)[]): string {
  return createHash('sha1').update(parts.join('\u0000')).digest('hex');
}

function repoId(repo: RepoRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase();
}

export class SimGitHost implements GitHost {
  readonly name = 'sim';

  /** `facts`: a PR's author and size, when a simulated workload gives them (its predictive features). */
  constructor(private readonly facts: (number: number) => { author?: string; changedLines?: number } = () => ({})) {}

  async targetHead(repo: RepoRef, branch: string): Promise<string> {
    return simSha('head', repoId(repo), branch);
  }

  async pullRequest(repo: RepoRef, number: number, targetBranch: string): Promise<PullRequestFacts> {
    const { author, changedLines } = this.facts(number);
    return {
      title: `PR #${number}`,
      author: author ?? 'sim',
      sha: simSha('pr', repoId(repo), number),
      baseBranch: targetBranch,
      // A simulated PR is made from a branch of its own number.
      headBranch: `pr-${number}`,
      mergeable: true,
      upToDate: true,
      ...(changedLines === undefined ? {} : { changedLines }),
    };
  }

  async buildTestBranch(request: TestBranchRequest): Promise<TestBranchResult> {
    const shas = request.pullRequests.map((pr) => pr.sha).join(',');
    return {
      ok: true,
      branch: testBranchName(request.targetBranch, request.runId),
      sha: simSha('test', repoId(request.repo), request.baseSha, shas, request.mergeMethod, request.runId),
    };
  }

  async deleteTestBranch(): Promise<void> {}

  async merge(request: MergeRequest): Promise<MergeResult> {
    const pr = request.pullRequest;
    return { ok: true, head: simSha('merge', request.expectedHead, pr.number, pr.sha, request.mergeMethod) };
  }

  async comment(): Promise<void> {}

  async setStatusCheck(): Promise<void> {}
}
