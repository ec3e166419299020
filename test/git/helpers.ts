/**
 * Real git in temporary folders: a data folder for the service (its bare repositories) and a working clone where
 * the test commits and pushes, as a person would. The engine runs on a virtual clock (its timers move only when
 * told) that starts at the wall clock's time, so deadlines mean the same to the engine and to the built-in CI.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Engine, type QueueKey } from '../../engine/engine.js';
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

const run = promisify(execFile);

export const KEY: QueueKey = { org: 'acme', repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, branch: 'main' };

/** git for the test's own clone: no user or system configuration, fixed identities. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: process.env.TEST_AUTHOR ?? 'Ada Lovelace',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada Lovelace',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.replace(/\n$/, '');
}

/** A working clone that pushes to the queue's bare repository. */
export class Clone {
  constructor(
    readonly dir: string,
    readonly remote: string,
  ) {}

  static async create(dir: string, remote: string): Promise<Clone> {
    await mkdir(dir, { recursive: true });
    await git(dir, 'init', '--quiet', '--initial-branch=main');
    return new Clone(dir, remote);
  }

  git(...args: string[]): Promise<string> {
    return git(this.dir, ...args);
  }

  /** Writes files (null deletes one) and commits them; answers the new commit. */
  async commit(message: string, files: Record<string, string | null>, author?: { name: string; email: string }): Promise<string> {
    for (const [path, content] of Object.entries(files)) {
      const full = join(this.dir, path);
      if (content === null) await rm(full, { force: true });
      else {
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, content);
      }
    }
    await this.git('add', '--all');
    const who = author === undefined ? [] : ['-c', `user.name=${author.name}`, '-c', `user.email=${author.email}`];
    await git(this.dir, ...who, 'commit', '--quiet', '--allow-empty', '-m', message, ...(author === undefined ? [] : [`--author=${author.name} <${author.email}>`]));
    return this.git('rev-parse', 'HEAD');
  }

  async checkout(revision: string, newBranch?: string): Promise<void> {
    if (newBranch === undefined) await this.git('checkout', '--quiet', '--detach', revision);
    else await this.git('checkout', '--quiet', '-B', newBranch, revision);
  }

  /** Pushes HEAD as the target branch. */
  async pushBase(branch = 'main'): Promise<void> {
    await this.git('push', '--quiet', '--force', this.remote, `HEAD:refs/heads/${branch}`);
  }

  /** Pushes HEAD as pull request N (`refs/pull/N/head`). */
  async pushPr(number: number): Promise<string> {
    await this.git('push', '--quiet', '--force', this.remote, `HEAD:refs/pull/${number}/head`);
    return this.git('rev-parse', 'HEAD');
  }

  /** git in the bare repository. */
  bare(...args: string[]): Promise<string> {
    return git(this.dir, `--git-dir=${this.remote}`, ...args);
  }

  /** Commits a PR on top of `base` and pushes it as refs/pull/N/head; answers its head. */
  async pr(number: number, base: string, files: Record<string, string | null>, title = `Change ${number}`): Promise<string> {
    await this.checkout(base);
    await this.commit(title, files);
    return this.pushPr(number);
  }
}

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
    this.host = new LocalGitHost({ dataDir: this.dataDir, runner: new GitRunner({ retryDelayMs: 5, ...this.options.runner }) });
    this.ci = this.options.localCi === true ? new LocalCi({ dataDir: this.dataDir, host: this.host, jobs: 2, killGraceMs: 200 }) : undefined;
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
    const found = this.runs().find((candidate) => candidate.status === 'in_progress' && candidate.prs.join() === prs.join());
    if (found === undefined) {
      const active = this.runs().filter((r) => r.status === 'in_progress');
      throw new Error(`no active run tests ${prs.join(', ')}; active: ${active.map((r) => `[${r.prs.join()}] on [${r.basePrs.join()}]`).join(' ')}`);
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
