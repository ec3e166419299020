/**
 * The edge: what the engine asks of a git host and a CI system. Every call is idempotent — after a crash the
 * engine repeats calls whose results it had not yet stored — and carries everything it needs, so a provider may be
 * stateless.
 */
import type { MergeMethod, RepoRef } from '../queues.js';

export interface PullRequestFacts {
  title: string;
  author: string;
  sha: string;
  baseBranch: string;
  /** Whether the host would let it merge (reviews, checks, conflicts). */
  mergeable: boolean;
  /** Whether it is based on the tip of the target branch (for directMergeMode). */
  upToDate: boolean;
}

export interface TestBranchRequest {
  repo: RepoRef;
  targetBranch: string;
  runId: string;
  /** The target head the branch starts from. */
  baseSha: string;
  /** Applied in order: the PRs of the base, then the PRs under test. */
  pullRequests: { number: number; sha: string }[];
  mergeMethod: MergeMethod;
}

export type TestBranchResult = { ok: true; branch: string; sha: string } | { ok: false; reason: string };

export interface MergeRequest {
  repo: RepoRef;
  targetBranch: string;
  /** The target head the merge expects; the host refuses when the branch has moved. */
  expectedHead: string;
  pullRequest: { number: number; sha: string; title: string };
  /** The test branch whose tree is being merged, when there is one (none for a direct merge). */
  testBranchSha: string | null;
  mergeMethod: MergeMethod;
}

export type MergeResult = { ok: true; head: string } | { ok: false; reason: string };

export interface GitHost {
  readonly name: string;
  /** The current head of the target branch. */
  targetHead(repo: RepoRef, branch: string): Promise<string>;
  pullRequest(repo: RepoRef, number: number, targetBranch: string): Promise<PullRequestFacts | undefined>;
  buildTestBranch(request: TestBranchRequest): Promise<TestBranchResult>;
  deleteTestBranch(repo: RepoRef, branch: string): Promise<void>;
  merge(request: MergeRequest): Promise<MergeResult>;
  comment(repo: RepoRef, number: number, body: string): Promise<void>;
  setStatusCheck(repo: RepoRef, sha: string, state: 'pending' | 'success' | 'failure', description: string): Promise<void>;
}

export interface CiRun {
  org: string;
  repo: RepoRef;
  runId: string;
  branch: string;
  sha: string;
  /** When the run started (ms since the epoch); a restarted service resumes from it. */
  startedAt: number;
}

/** Reports a commit status, as POST /v1/setCommitStatus would. */
export type StatusReporter = (status: {
  org: string;
  repo: RepoRef;
  sha: string;
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  description?: string;
}) => void;

export interface CI {
  readonly name: string;
  /** Starts (or, after a restart, resumes) CI on a test branch. Results arrive later as statuses. */
  start(run: CiRun, report: StatusReporter): void;
  /** The run ended (decided, cancelled); stop reporting on it. */
  stop(runId: string): void;
}

/** External CI: statuses arrive through setCommitStatus only. */
export const externalCi: CI = {
  name: 'external',
  start: () => undefined,
  stop: () => undefined,
};
