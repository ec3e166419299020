import { mkdir, rm, rmdir, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import type { CI, CiLogSource, CiRun, StatusReporter } from '../types.js';
import { CiFiles, jobMarker, readJson, writeAtomically, type Outcome, type RunMeta } from './ciFiles.js';
import { outcomeOf, runCommand } from './ciCommand.js';
import { killJob, killLeftover, Slots, type Job } from './ciProcesses.js';
import type { LocalGitHost } from './localGitHost.js';
import { RepoConfigError, type RepoConfig } from './repoConfig.js';

/** The status that reports an unreadable configuration (the run fails rather than waits). */
export const CONFIG_STATUS = 'greenline/config';

export { statusFileName } from './ciFiles.js';

export interface LocalCiOptions {
  dataDir: string;
  host: LocalGitHost;
  /** Commands running at once, over every run (default: the number of CPUs). */
  jobs?: number;
  /** Where people reach the service, for the links to logs (it can be set later: `setPublicUrl`). */
  publicUrl?: string;
  /** The shell that runs commands (default /bin/sh). */
  shell?: string;
  /** After SIGTERM, how long a command has before SIGKILL (default 5 s). */
  killGraceMs?: number;
  onError?: (message: string, error: unknown) => void;
}

interface RunState {
  run: CiRun;
  report: StatusReporter;
  stopped: boolean;
  jobs: Map<string, Job>;
  timer?: NodeJS.Timeout;
}

const RUN_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** How long after the run's deadline the runner kills commands itself, should the engine not have stopped them. */
const DEADLINE_GRACE_MS = 10_000;

export class LocalCi implements CI, CiLogSource {
  readonly name = 'local';
  private readonly runs = new Map<string, RunState>();
  private readonly slots: Slots;
  private readonly files: CiFiles;
  private readonly shell: string;
  private readonly killGraceMs: number;
  private readonly onError: (message: string, error: unknown) => void;
  private publicUrl: string;
  private closed = false;
  /** Set by `abandon`: nothing more is recorded, reported or cleaned up, as after a crash. */
  private abandoned = false;
  /** Every job's promise, so `close` can wait for them. */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: LocalCiOptions) {
    this.files = new CiFiles(options.dataDir);
    this.slots = new Slots(Math.max(1, options.jobs ?? availableParallelism()));
    this.shell = options.shell ?? '/bin/sh';
    this.killGraceMs = options.killGraceMs ?? 5_000;
    this.onError = options.onError ?? ((message, error) => console.error(`greenline: ${message}:`, error));
    this.publicUrl = (options.publicUrl ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  }

  setPublicUrl(url: string): void {
    this.publicUrl = url.replace(/\/+$/, '');
  }

  logUrl(runId: string, status: string): string {
    return `${this.publicUrl}/ci-logs/${encodeURIComponent(runId)}/${encodeURIComponent(status)}`;
  }

  start(run: CiRun, report: StatusReporter): void {
    if (this.closed || this.runs.has(run.runId) || !RUN_ID.test(run.runId)) return;
    const state: RunState = { run, report, stopped: false, jobs: new Map() };
    this.runs.set(run.runId, state);
    this.track(
      this.begin(state).catch((error) => {
        if (state.stopped) return;
        this.onError(`local CI for ${run.runId}`, error);
        // Failing the run visibly beats leaving it to the testing timeout.
        this.report(
          state,
          CONFIG_STATUS,
          'error',
          `the built-in CI could not start: ${(error as Error).message}`.slice(0, 1000),
          false,
        );
      }),
    );
  }

  stop(runId: string): void {
    const state = this.runs.get(runId);
    if (state === undefined) return;
    this.runs.delete(runId);
    state.stopped = true;
    if (state.timer !== undefined) clearTimeout(state.timer);
    for (const job of state.jobs.values()) killJob(job, 'stopped', this.killGraceMs);
  }

  /** Stops every job (each runs again after the next start) and waits until they have ended. */
  async close(): Promise<void> {
    this.closed = true;
    for (const runId of [...this.runs.keys()]) this.stop(runId);
    await this.idle();
  }

  /** Waits until every job started so far has ended and reported what it had to, stopping none. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * Forgets every run without ending its commands or recording anything more: what a crash (kill -9) leaves
   * behind. Tests of recovery use it; the next runner on the same data folder cleans up.
   */
  abandon(): void {
    this.closed = true;
    this.abandoned = true;
    for (const state of this.runs.values()) {
      state.stopped = true;
      if (state.timer !== undefined) clearTimeout(state.timer);
    }
    this.runs.clear();
  }

  async openLog(org: string, runId: string, status: string): Promise<NodeJS.ReadableStream | undefined> {
    return RUN_ID.test(runId) ? this.files.openLog(org, runId, status) : undefined;
  }

  private track(promise: Promise<void>): void {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
  }

  private async begin(state: RunState): Promise<void> {
    const { run } = state;
    await mkdir(this.files.runDir(run.runId), { recursive: true });
    const meta: RunMeta = { org: run.org, repo: run.repo, sha: run.sha, branch: run.branch };
    await writeAtomically(this.files.metaPath(run.runId), JSON.stringify(meta));
    let config: RepoConfig;
    try {
      config = await this.options.host.readConfigAt(run.repo, run.baseSha || run.sha);
    } catch (error) {
      if (!(error instanceof RepoConfigError)) throw error;
      this.report(state, CONFIG_STATUS, 'error', error.message.slice(0, 1000), false);
      return;
    }
    if (state.stopped) return;
    if (run.deadlineAt !== undefined) {
      // The engine cancels the run at its deadline and stops it here; this only backs that up, a little later.
      state.timer = setTimeout(
        () => {
          for (const job of state.jobs.values()) killJob(job, 'timeout', this.killGraceMs);
        },
        Math.max(0, run.deadlineAt + DEADLINE_GRACE_MS - Date.now()),
      );
      state.timer.unref();
    }
    for (const [status, command] of config.ci) {
      const outcome = await readJson<Outcome>(this.files.outcomePath(run.runId, status));
      if (outcome !== undefined) {
        this.report(state, status, outcome.state, outcome.description, true);
        // A crash right after the outcome was written may have left the worktree behind.
        const worktree = this.files.workDir(run.runId, status);
        if (
          await stat(worktree).then(
            () => true,
            () => false,
          )
        )
          await this.options.host.removeWorktree(run.repo, worktree);
        continue;
      }
      const job: Job = { done: Promise.resolve() };
      job.done = this.runJob(state, status, command, job).catch((error) => {
        if (!state.stopped) {
          this.onError(`local CI job ${status} of ${run.runId}`, error);
          this.report(state, status, 'error', `the runner failed: ${(error as Error).message}`.slice(0, 1000), false);
        }
      });
      state.jobs.set(status, job);
      this.track(job.done);
    }
  }

  private report(
    state: RunState,
    status: string,
    outcome: 'pending' | Outcome['state'],
    description: string,
    withLog: boolean,
  ): void {
    if (state.stopped) return;
    const run = state.run;
    state.report({
      org: run.org,
      repo: run.repo,
      sha: run.sha,
      context: status,
      state: outcome,
      description,
      ...(withLog ? { url: this.logUrl(run.runId, status) } : {}),
    });
  }

  private async runJob(state: RunState, status: string, command: string, job: Job): Promise<void> {
    const { run } = state;
    await killLeftover(this.files.pidPath(run.runId, status), jobMarker(run.runId, status));
    this.report(state, status, 'pending', 'waiting for a runner', false);
    await this.slots.acquire();
    const worktree = this.files.workDir(run.runId, status);
    let checkedOut = false;
    try {
      if (state.stopped) return;
      if (job.ended === 'timeout') {
        await this.finish(state, status, {
          state: 'error',
          description: "the queue's testing timeout passed before a runner was free",
          exitCode: null,
          signal: null,
          startedAt: new Date().toISOString(),
          endedAt: new Date().toISOString(),
        });
        return;
      }
      await this.options.host.addWorktree(run.repo, run.sha, worktree);
      checkedOut = true;
      if (state.stopped) return;
      const startedAt = new Date().toISOString();
      const exit = await runCommand(
        {
          shell: this.shell,
          command,
          run,
          status,
          worktree,
          logPath: this.files.logPath(run.runId, status),
          pidPath: this.files.pidPath(run.runId, status),
          onStarted: () => {
            this.report(state, status, 'pending', `running: ${command}`.slice(0, 1000), true);
            if (state.stopped) killJob(job, 'stopped', this.killGraceMs);
          },
        },
        job,
      );
      // An abandoned runner (a crash, for tests) touches nothing more: the next one owns these files.
      if (this.abandoned) return;
      await rm(this.files.pidPath(run.runId, status), { force: true });
      if (job.ended === 'stopped' || state.stopped) return;
      const outcome = outcomeOf(exit, job.ended === 'timeout', startedAt);
      await this.finish(state, status, outcome);
    } finally {
      this.slots.release();
      if (checkedOut && !this.abandoned) {
        await this.options.host
          .removeWorktree(run.repo, worktree)
          .catch((error) => this.onError(`removing the worktree ${worktree}`, error));
        // The run's folder goes with its last worktree (rmdir refuses while another command of the run is at work).
        await rmdir(dirname(worktree)).catch(() => undefined);
      }
    }
  }

  /** Records a command's outcome (so a restart reports it again rather than running it again), then reports it. */
  private async finish(state: RunState, status: string, outcome: Outcome): Promise<void> {
    await writeAtomically(this.files.outcomePath(state.run.runId, status), JSON.stringify(outcome));
    this.report(state, status, outcome.state, outcome.description, true);
  }
}
