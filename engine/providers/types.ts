/**
 * The edge: what the engine asks of a git host and a CI system. Every call is idempotent — after a crash the
 * engine repeats calls whose results it had not yet stored — and carries everything it needs, so a provider may be
 * stateless.
 */
import type { MergeMethod, RepoRef } from '../model/queues.js';
import type { PullRequestState } from '../../machines/vocabulary.js';

/**
 * The target branch as a host saw it while answering, for hosts that can say: its head and the required statuses of
 * the repository configuration file there (source `service_config`).
 */
export interface TargetState {
  head: string;
  /**
   * null when the configuration sets none (or there is no configuration file); absent when it cannot be read (an
   * invalid file): keep what was known.
   */
  requiredStatuses?: string[] | null;
  /**
   * The statuses the host's branch protection (and rulesets) require on the branch (source
   * `repo_provider_branch_protection`); absent from hosts that have none.
   */
  protectionStatuses?: string[];
}

export interface PullRequestFacts {
  title: string;
  author: string;
  sha: string;
  baseBranch: string;
  /** The branch the PR is made from, when the host names one (a client may name the PR by it: `pr.branch`). */
  headBranch?: string;
  /** Whether the host would let it merge (reviews, checks, conflicts). */
  mergeable: boolean;
  /** Whether it is based on the tip of the target branch (for directMergeMode). */
  upToDate: boolean;
  /** Why it is not mergeable, for people (a missing head, the conflicting files). */
  notMergeableReason?: string;
  /** The target branch the facts were established against. */
  target?: TargetState;
  /** Lines added and deleted, when the host says (a feature of the failure likelihood). */
  changedLines?: number;
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
  /**
   * The queue's `createPrsForTestingBranches`: also open a draft pull request of the test branch (for CI that runs on
   * pull requests only), on hosts that have pull requests. It closes when the branch is deleted.
   */
  openPullRequest?: true;
}

export type TestBranchResult =
  | { ok: true; branch: string; sha: string }
  | {
      ok: false;
      reason: string;
      /** The PR that could not be applied on top of the target and the PRs before it, and the files in conflict. */
      conflict?: { number: number; files: string[] };
      /** Set when the request's base is not (or no longer) a commit of the target branch: where the target is now. */
      target?: TargetState;
      /** Set by the engine, not a host: the host kept failing and the engine gave up (the run's PRs are cancelled). */
      gaveUp?: true;
    };

export interface MergeRequest {
  repo: RepoRef;
  targetBranch: string;
  /** The target head the merge expects; the host refuses when the branch has moved. */
  expectedHead: string;
  pullRequest: { number: number; sha: string; title: string };
  /** The test branch whose tree is being merged, when there is one (none for a direct merge). */
  testBranchSha: string | null;
  /**
   * Parallel mode: PRs of other lanes (whose targets do not overlap) may have merged since the run's base. The host
   * then applies the PR onto the current head instead of refusing a head whose tree differs from the tested base.
   */
  independentBase?: boolean;
  mergeMethod: MergeMethod;
}

export type MergeResult =
  | { ok: true; head: string; target?: TargetState }
  | {
      ok: false;
      reason: string;
      /**
       * Set when the target branch is not where the engine expected (it moved, or the run tested another base):
       * where it is now. Everything tested on the old base must be tested again rather than merged.
       */
      target?: TargetState;
    };

/** A check run as the host is asked to write it: its state, and what it says (title and summary, in Markdown). */
export interface CheckRunWrite {
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure' | 'cancelled' | 'neutral';
  /** When it completed (ISO 8601), with a conclusion. */
  completedAt?: string;
  title: string;
  summary: string;
}

/** What a host recorded on a pull request (a comment, a status check), for the PR's timeline. */
export interface PullRequestNote {
  message: string;
}

export interface GitHost {
  readonly name: string;
  /** The current head of the target branch. */
  targetHead(repo: RepoRef, branch: string): Promise<string>;
  pullRequest(repo: RepoRef, number: number, targetBranch: string): Promise<PullRequestFacts | undefined>;
  buildTestBranch(request: TestBranchRequest): Promise<TestBranchResult>;
  deleteTestBranch(repo: RepoRef, branch: string): Promise<void>;
  merge(request: MergeRequest): Promise<MergeResult>;
  /** A host that has no page of its own for the PR answers a note, which the engine adds to the PR's timeline. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a host either answers nothing (its own page shows it) or a note; `undefined` would make every host that answers nothing say so
  comment(repo: RepoRef, number: number, body: string): Promise<void | PullRequestNote>;
  setStatusCheck(
    repo: RepoRef,
    sha: string,
    state: 'pending' | 'success' | 'failure',
    description: string,
    number?: number,
    // biome-ignore lint/suspicious/noConfusingVoidType: a host either answers nothing (its own page shows it) or a note; `undefined` would make every host that answers nothing say so
  ): Promise<void | PullRequestNote>;
  /**
   * Keeps one label on the PR naming its queue state (`stateLabelsEnabled`), removing the labels of other states;
   * idempotent. Hosts without labels leave it out.
   */
  setStateLabel?(repo: RepoRef, number: number, state: PullRequestState): Promise<void>;
  /**
   * Writes the check run of a PR's head that tells where it stands (GitHub's `greenline` check run): the one made
   * with `externalId` before is updated, else one is made, so that writing it again (a retry, a restart) makes no
   * second one. Hosts without check runs leave it out.
   */
  setCheckRun?(repo: RepoRef, sha: string, externalId: string, check: CheckRunWrite): Promise<void>;
  /**
   * Where people read the PR on the host (GitHub: its html_url); hosts without pages of their own leave it out, and
   * the dashboard's PR page is then the PR's page.
   */
  pullRequestUrl?(repo: RepoRef, number: number): string;
  /** Creates the queue's repository when the host keeps repositories itself and it is missing (createQueue). */
  prepareRepository?(repo: RepoRef, branch: string): Promise<void>;
}

export interface CiRun {
  org: string;
  repo: RepoRef;
  runId: string;
  branch: string;
  sha: string;
  /** When the run started (ms since the epoch); a restarted service resumes from it. */
  startedAt: number;
  /** The target head the test branch was built on (where a CI reads the repository configuration). */
  baseSha?: string;
  /** When the queue's testing timeout ends the run (ms since the epoch). */
  deadlineAt?: number;
}

/** Reports a commit status, as POST /v1/setCommitStatus would. */
export type StatusReporter = (status: {
  org: string;
  repo: RepoRef;
  sha: string;
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  description?: string;
  /** Where people read the job's output. */
  url?: string;
}) => void;

export interface CI {
  readonly name: string;
  /** Starts (or, after a restart, resumes) CI on a test branch. Results arrive later as statuses. */
  start(run: CiRun, report: StatusReporter): void;
  /** The run ended (decided, cancelled); stop reporting on it. */
  stop(runId: string): void;
}

/** CI output the service serves to the organization that owns the run (GET /ci-logs/<runId>/<status>). */
export interface CiLogSource {
  /** The log of one status of one run, or undefined when there is none for this organization. */
  openLog(org: string, runId: string, status: string): Promise<NodeJS.ReadableStream | undefined>;
}

/** External CI: statuses arrive through setCommitStatus only. */
export const externalCi: CI = {
  name: 'external',
  start: () => undefined,
  stop: () => undefined,
};
