import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type QueueKey } from '../../engine/engine.js';
import { Clone } from './clone.js';
import { LocalCi } from '../../engine/providers/local/localCi.js';
import { LocalGitHost } from '../../engine/providers/local/localGitHost.js';
import { GitRunner, type GitRunnerOptions } from '../../engine/providers/local/gitRunner.js';
import type { CI } from '../../engine/providers/types.js';
import type { PullRequestRecord, TimelineEntry } from '../../engine/model/pullRequests.js';
import type { QueuePatch } from '../../engine/model/queues.js';
import type { TestRunRecord } from '../../engine/model/testRuns.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore, openLmdbStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';

export const KEY: QueueKey = {
  org: 'acme',
  repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
  branch: 'main',
};

export { Clone, git } from './clone.js';

export interface GitQueueOptions {
  runner?: GitRunnerOptions;
  /** Give the built-in CI: the runner of the local provider. */
  localCi?: boolean;
  /** An LMDB store in the data folder (to restart on it) instead of memory. */
  lmdb?: boolean;
}

/** An engine with the local git host on a temporary data folder, and a clone to push from. */
export class GitQueue {
  readonly scheduler = new VirtualScheduler(Date.now());
  readonly errors: string[] = [];
  store!: Store;
  host!: LocalGitHost;
  ci: LocalCi | undefined;
  engine!: Engine;
  clone!: Clone;
  queueId = '';

  private constructor(
    readonly root: string,
    readonly options: GitQueueOptions,
  ) {}

  static async create(options: GitQueueOptions = {}): Promise<GitQueue> {
    const root = await mkdtemp(join(tmpdir(), 'greenline-git-'));
    const queue = new GitQueue(root, options);
    queue.boot();
    queue.clone = await Clone.create(join(root, 'clone'), queue.host.repositoryPath(KEY.repo));
    return queue;
  }

  get dataDir(): string {
    return join(this.root, 'data');
  }

  /** A new engine, host and CI on the same data folder (the store too, when it is LMDB). */
  boot(): Engine {
    if (this.options.lmdb === true) this.store = openLmdbStore({ dir: join(this.dataDir, 'store'), noSync: true });
    else this.store ??= createMemoryStore();
    this.host = new LocalGitHost({
      dataDir: this.dataDir,
      runner: new GitRunner({ retryDelayMs: 5, ...this.options.runner }),
    });
    this.ci =
      this.options.localCi === true
        ? new LocalCi({ dataDir: this.dataDir, host: this.host, jobs: 2, killGraceMs: 200 })
        : undefined;
    const ci: CI | undefined = this.ci;
    this.engine = new Engine(this.store, {
      scheduler: this.scheduler,
      gitHost: this.host,
      ...(ci === undefined ? {} : { ci }),
      onError: (message, error) => this.errors.push(`${message}: ${String(error)}`),
    });
    this.engine.start();
    return this.engine;
  }

  /** Stops the engine and CI as a shutdown would (commands still running are ended), then boots anew. */
  async restart(): Promise<void> {
    this.engine.stop();
    await this.engine.settle();
    await this.ci?.close();
    if (this.options.lmdb === true) await this.store.close();
    this.boot();
    await this.engine.settle();
  }

  /** A crash: the engine stops, the CI runner vanishes leaving its commands running; then a new life on the same data. */
  async crash(): Promise<void> {
    this.engine.stop();
    await this.engine.settle();
    this.ci?.abandon();
    if (this.options.lmdb === true) await this.store.close();
    this.boot();
    await this.engine.settle();
  }

  async close(): Promise<void> {
    this.engine.stop();
    await this.engine.settle();
    await this.ci?.close();
    await this.store.close();
    await rm(this.root, { recursive: true, force: true });
  }

  async create(patch: QueuePatch = {}): Promise<void> {
    await this.engine.prepareRepository(KEY);
    this.queueId = this.engine.createQueue(KEY, patch).id;
    await this.engine.settle();
  }

  async submit(...numbers: number[]): Promise<void> {
    for (const number of numbers) this.engine.submitPullRequest(KEY, number);
    await this.engine.settle();
  }

  pr(number: number): PullRequestRecord {
    return this.engine.getSubmittedPullRequest(KEY, number).pr;
  }

  timeline(number: number): TimelineEntry[] {
    return this.engine.getSubmittedPullRequest(KEY, number, true).timeline ?? [];
  }

  runs(): TestRunRecord[] {
    return this.store.read((tx) => [...tx.scan('testRuns', { prefix: [this.queueId] })].map((entry) => entry.value));
  }

  run(id: string): TestRunRecord {
    const found = this.runs().find((candidate) => candidate.id === id);
    if (found === undefined) throw new Error(`no run ${id}`);
    return found;
  }

  /** The active run testing exactly these PRs. */
  runOf(...prs: number[]): TestRunRecord {
    const found = this.runs().find(
      (candidate) => candidate.status === 'in_progress' && candidate.prs.join() === prs.join(),
    );
    if (found === undefined) {
      const active = this.runs().filter((r) => r.status === 'in_progress');
      throw new Error(
        `no active run tests ${prs.join(', ')}; active: ${active.map((r) => `[${r.prs.join()}] on [${r.basePrs.join()}]`).join(' ')}`,
      );
    }
    return found;
  }

  async report(run: TestRunRecord, state: 'success' | 'failure' | 'pending', context = 'ci'): Promise<void> {
    this.engine.setCommitStatus(KEY.org, { repo: KEY.repo, sha: run.testBranchSha, context, state });
    await this.engine.settle();
  }

  /** The target branch's head and tree. */
  async target(branch = 'main'): Promise<{ head: string; tree: string }> {
    const head = await this.clone.bare('rev-parse', `refs/heads/${branch}`);
    return { head, tree: await this.clone.bare('rev-parse', `${head}^{tree}`) };
  }

  /** A commit's message, byte for byte. */
  async message(commit: string): Promise<string> {
    const raw = await this.clone.bare('cat-file', 'commit', commit);
    return `${raw.slice(raw.indexOf('\n\n') + 2)}\n`;
  }

  async treeOf(commit: string): Promise<string> {
    return this.clone.bare('rev-parse', `${commit}^{tree}`);
  }

  /** The refs under refs/heads/greenline/ (test branches). */
  async testBranches(): Promise<string[]> {
    const out = await this.clone.bare('for-each-ref', '--format=%(refname)', 'refs/heads/greenline/');
    return out === '' ? [] : out.split('\n');
  }

  /**
   * Polls (real time: a CI process is at work) until `check` holds. No deadline of its own unless `ms` is given: on a
   * loaded machine a CI process may take many times its quiet time, and the test's budget (vitest.config.ts) stops
   * one that is stuck.
   */
  async until<T>(read: () => T | Promise<T>, check: (value: T) => boolean, what: string, ms?: number): Promise<T> {
    const deadline = ms === undefined ? Number.POSITIVE_INFINITY : Date.now() + ms;
    for (;;) {
      await this.engine.settle();
      const value = await read();
      if (check(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still not there after ${ms} ms: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** Whether a process is still running. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
