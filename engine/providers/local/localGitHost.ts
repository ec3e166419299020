/**
 * The local git host (GREENLINE_PROVIDER=local): each queue's repository is a bare git repository in the data
 * folder, `repos/<host>/<owner>/<name>.git` (lower case), created when a queue is created and adopted when it is
 * there already. People push to it: the target branch, and pull request N as `refs/pull/N/head`.
 *
 * - Test branches are real commits: `refs/heads/greenline/<target>/<runId>` holds the run's base plus its PRs,
 *   applied in order with the queue's merge method (applyPullRequest.ts). What each PR contributed is kept in a
 *   small record per test branch (`local-git/test-branches/...`), which merging reads.
 *   (stackPullRequests.ts, testBranchRecords.ts)
 * - Merging puts a PR's tested commits on the target branch with one compare-and-swap of the ref (localMerge.ts).
 * - Every call is safe to repeat: an existing test branch is answered as built, a merge already done is answered
 *   as merged. Operations on one repository are serialised, failed git commands retried (gitRunner.ts), and the
 *   target branch only ever moves by one `update-ref` from the expected head to a commit that already exists.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RepoRef } from '../../model/queues.js';
import { testBranchName } from '../../model/testRuns.js';
import { hostNoteText } from '../../model/texts.js';
import type {
  GitHost,
  MergeRequest,
  MergeResult,
  PullRequestFacts,
  PullRequestNote,
  TargetState,
  TestBranchRequest,
  TestBranchResult,
} from '../types.js';
import { GitRunner } from './gitRunner.js';
import {
  EMPTY_REPO_CONFIG,
  parseRepoConfig,
  REPO_CONFIG_FILE,
  RepoConfigError,
  type RepoConfig,
} from './repoConfig.js';
import { mergeTested, requireTarget, type MergeContext } from './localMerge.js';
import { gitDate, Repository, ZERO_SHA, type Ident } from './repository.js';
import { repoPathParts, TestBranchRecords } from './testBranchRecords.js';
import { stackPullRequests } from './stackPullRequests.js';

export interface LocalGitHostOptions {
  /** The data folder: repositories go under `repos/`, the host's records under `local-git/`. */
  dataDir: string;
  runner?: GitRunner;
  /** Committer of the commits Greenline makes (default `Greenline <greenline@localhost>`). */
  identity?: { name: string; email: string };
  /** Time for commit dates (ms since the epoch); the wall clock unless given. */
  now?: () => number;
}

export const STATUS_CHECK_CONTEXT = 'greenline';

export class LocalGitHost implements GitHost {
  readonly name = 'local';
  readonly runner: GitRunner;
  private readonly identity: { name: string; email: string };
  private readonly now: () => number;
  private readonly records: TestBranchRecords;
  private readonly mergeContext: MergeContext;

  constructor(private readonly options: LocalGitHostOptions) {
    this.runner = options.runner ?? new GitRunner();
    this.identity = options.identity ?? { name: 'Greenline', email: 'greenline@localhost' };
    this.now = options.now ?? Date.now;
    this.records = new TestBranchRecords(options.dataDir);
    this.mergeContext = {
      records: this.records,
      committer: () => ({ ...this.identity, date: gitDate(this.now()) }),
      targetState: (repository, head) => this.targetState(repository, head),
    };
  }

  /** `<data>/repos/<host>/<owner>/<name>.git`, in lower case (hosts, owners and names are case-insensitive). */
  repositoryPath(repo: RepoRef): string {
    const parts = repoPathParts(repo);
    const name = parts.pop() as string;
    return join(this.options.dataDir, 'repos', ...parts, `${name}.git`);
  }

  /** Serialises `fn` with every other operation on the repository, which exists (created if missing) when it runs. */
  private withRepository<T>(
    repo: RepoRef,
    initialBranch: string,
    fn: (repository: Repository) => Promise<T>,
  ): Promise<T> {
    const gitDir = this.repositoryPath(repo);
    return this.runner.exclusive(gitDir, async () => {
      const repository = new Repository(this.runner, gitDir);
      await this.ensure(repository, initialBranch);
      await this.records.sweep(repo);
      return fn(repository);
    });
  }

  private async ensure(repository: Repository, initialBranch: string): Promise<void> {
    const exists = await stat(repository.gitDir).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (exists) return;
    await mkdir(dirname(repository.gitDir), { recursive: true });
    await this.runner.run({
      gitDir: repository.gitDir,
      args: ['init', '--quiet', '--bare', `--initial-branch=${initialBranch}`],
    });
    // A reflog on a bare repository too: `git reflog <branch>` then shows every move of the target branch.
    await this.runner.run({ gitDir: repository.gitDir, args: ['config', 'core.logAllRefUpdates', 'always'] });
  }

  async prepareRepository(repo: RepoRef, branch: string): Promise<void> {
    await this.withRepository(repo, branch, async (repository) => {
      await repository.runner.run({ gitDir: repository.gitDir, args: ['rev-parse', '--git-dir'] });
    });
  }

  async targetHead(repo: RepoRef, branch: string): Promise<string> {
    return this.withRepository(
      repo,
      branch,
      async (repository) => (await repository.resolve(`refs/heads/${branch}`)) ?? '',
    );
  }

  /** The repository configuration at a commit; throws RepoConfigError when the file is invalid. */
  async readConfigAt(repo: RepoRef, commit: string): Promise<RepoConfig> {
    return this.withRepository(repo, 'main', (repository) => this.configAt(repository, commit));
  }

  private async configAt(repository: Repository, commit: string): Promise<RepoConfig> {
    const text = await repository.readFile(commit, REPO_CONFIG_FILE);
    return text === undefined ? EMPTY_REPO_CONFIG : parseRepoConfig(text);
  }

  /** The target as it is: its head and (when the file is valid) the required statuses of its configuration. */
  private async targetState(repository: Repository, head: string): Promise<TargetState> {
    try {
      return { head, requiredStatuses: (await this.configAt(repository, head)).requiredStatuses };
    } catch (error) {
      if (error instanceof RepoConfigError) return { head };
      throw error;
    }
  }

  async pullRequest(repo: RepoRef, number: number, targetBranch: string): Promise<PullRequestFacts> {
    return this.withRepository(repo, targetBranch, async (repository) => {
      const notMergeable = (reason: string, facts: Partial<PullRequestFacts> = {}): PullRequestFacts => ({
        title: '',
        author: '',
        sha: '',
        baseBranch: targetBranch,
        upToDate: false,
        ...facts,
        mergeable: false,
        notMergeableReason: reason,
      });
      const sha = await repository.resolve(`refs/pull/${number}/head`);
      if (sha === undefined) return notMergeable(`its head refs/pull/${number}/head does not exist in the repository`);
      const summary = await repository.summary(sha);
      const known = { title: summary.subject, author: summary.authorName, sha };
      const head = await repository.resolve(`refs/heads/${targetBranch}`);
      if (head === undefined) return notMergeable(`the target branch ${targetBranch} does not exist yet`, known);
      let config: RepoConfig;
      try {
        config = await this.configAt(repository, head);
      } catch (error) {
        if (error instanceof RepoConfigError) return notMergeable(`${error.message} (on ${targetBranch})`, known);
        throw error;
      }
      const target: TargetState = { head, requiredStatuses: config.requiredStatuses };
      const merged = await repository.mergeTrees(head, sha);
      if (!merged.clean)
        return notMergeable(`it conflicts with ${targetBranch} in ${merged.files.join(', ')}`, { ...known, target });
      return {
        ...known,
        baseBranch: targetBranch,
        mergeable: true,
        upToDate: await repository.isAncestor(head, sha),
        target,
      };
    });
  }

  async buildTestBranch(request: TestBranchRequest): Promise<TestBranchResult> {
    const branch = testBranchName(request.targetBranch, request.runId);
    const ref = `refs/heads/${branch}`;
    return this.withRepository(request.repo, request.targetBranch, async (repository) => {
      const existing = await repository.resolve(ref);
      if (existing !== undefined && (await this.records.read(request.repo, existing))?.branch === branch) {
        return { ok: true, branch, sha: existing };
      }
      if (!(await repository.hasCommit(request.baseSha))) {
        const head = await requireTarget(repository, request.targetBranch);
        return {
          ok: false,
          reason: `the base ${request.baseSha || '(none)'} is not a commit of the repository; ${request.targetBranch} is at ${head}`,
          target: await this.targetState(repository, head),
        };
      }
      const committer: Ident = { ...this.identity, date: gitDate(this.now()) };
      const stacked = await stackPullRequests(repository, request, committer);
      if (!stacked.ok) return stacked;
      const { segments, tip: current } = stacked;
      // The record first: a test branch that exists always has one.
      await this.records.write(request.repo, {
        branch,
        baseSha: request.baseSha,
        mergeMethod: request.mergeMethod,
        tip: current,
        segments,
      });
      if (!(await repository.compareAndSwap(ref, current, existing ?? ZERO_SHA)))
        throw new Error(`${ref} changed while it was being built`);
      return { ok: true, branch, sha: current };
    });
  }

  async deleteTestBranch(repo: RepoRef, branch: string): Promise<void> {
    if (!branch.startsWith('greenline/')) return;
    const gitDir = this.repositoryPath(repo);
    await this.runner.exclusive(gitDir, async () => {
      if (
        !(await stat(gitDir).then(
          () => true,
          () => false,
        ))
      )
        return;
      const repository = new Repository(this.runner, gitDir);
      if ((await repository.resolve(`refs/heads/${branch}`)) !== undefined)
        await repository.deleteRef(`refs/heads/${branch}`);
    });
  }

  async merge(request: MergeRequest): Promise<MergeResult> {
    return this.withRepository(request.repo, request.targetBranch, (repository) =>
      mergeTested(repository, request, this.mergeContext),
    );
  }

  async comment(_repo: RepoRef, _number: number, body: string): Promise<PullRequestNote> {
    return { message: hostNoteText({ kind: 'comment', body }) };
  }

  async setStatusCheck(
    _repo: RepoRef,
    _sha: string,
    state: 'pending' | 'success' | 'failure',
    description: string,
  ): Promise<PullRequestNote> {
    return { message: hostNoteText({ kind: 'statusCheck', context: STATUS_CHECK_CONTEXT, state, description }) };
  }

  /** Adds a detached worktree of `commit` at `path` (the built-in CI runs commands there). */
  async addWorktree(repo: RepoRef, commit: string, path: string): Promise<void> {
    await this.withRepository(repo, 'main', async (repository) => {
      await mkdir(dirname(path), { recursive: true });
      // The whole step is tried again, not just git: a failed `worktree add` can leave the folder behind.
      for (let attempt = 1; ; attempt++) {
        await rm(path, { recursive: true, force: true });
        await repository.pruneWorktrees();
        try {
          await repository.addWorktree(path, commit);
          return;
        } catch (error) {
          if (attempt >= 3) throw error;
        }
      }
    });
  }

  async removeWorktree(repo: RepoRef, path: string): Promise<void> {
    await this.withRepository(repo, 'main', async (repository) => {
      await repository.removeWorktree(path);
      await rm(path, { recursive: true, force: true });
      await repository.pruneWorktrees();
    });
  }
}
