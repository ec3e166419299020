/**
 * Runs git for the local provider: spawned with an argument list (never through a shell), with a configuration that
 * does not depend on the user's (no system or global config, C locale, no prompts), and with two guarantees the
 * host builds on:
 *
 * - operations on one repository are serialised (`exclusive`): a test branch, a merge and a worktree are never
 *   prepared at the same time in one repository by this process;
 * - a failed command is retried a few times before the failure reaches the caller (a lock held by a concurrent
 *   `git push`, a process killed by the system). Callers make every command safe to repeat.
 *
 * `beforeRun` is a seam for tests: it sees every attempt first and may throw to make that attempt fail.
 */
import { spawn } from 'node:child_process';

export interface GitCommand {
  /** The repository (`--git-dir`). */
  gitDir: string;
  args: readonly string[];
  /** Bytes for standard input. */
  input?: string | Buffer;
  /** Variables added to git's environment (identities and dates for commit-tree). */
  env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures (`merge-tree` exits 1 on conflicts). Default: only 0. */
  okExitCodes?: readonly number[];
}

export interface GitOutput {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
  /** stdout as UTF-8 with the trailing newline removed. */
  text: string;
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly command: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export interface GitRunnerOptions {
  /** The git executable (default `git` on PATH). */
  binary?: string;
  /** Attempts per command, the first included (default 3). */
  attempts?: number;
  /** Delay before the second attempt; it doubles for each further one (default 100 ms). */
  retryDelayMs?: number;
  /** A command still running after this long is killed and counts as failed (default 10 minutes). */
  timeoutMs?: number;
  /** Test seam: called before every attempt; throwing fails that attempt as a git failure would. */
  beforeRun?: (command: GitCommand, attempt: number) => void | Promise<void>;
  /** Told of every failed attempt that will be retried. */
  onRetry?: (command: GitCommand, error: Error, attempt: number) => void;
}

/** Variables that make git's behaviour independent of the machine's and the user's configuration. */
export function gitEnvironment(extra: Readonly<Record<string, string>> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
  };
  if (process.env.TMPDIR !== undefined) env.TMPDIR = process.env.TMPDIR;
  return { ...env, ...extra };
}

export class GitRunner {
  private readonly binary: string;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly timeoutMs: number;
  private readonly locks = new Map<string, Promise<void>>();

  constructor(private readonly options: GitRunnerOptions = {}) {
    this.binary = options.binary ?? 'git';
    this.attempts = Math.max(1, options.attempts ?? 3);
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.timeoutMs = options.timeoutMs ?? 10 * 60_000;
  }

  /** Runs `fn` once every operation started earlier on the same repository has finished. */
  async exclusive<T>(gitDir: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(gitDir) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.locks.set(gitDir, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.locks.get(gitDir) === tail) this.locks.delete(gitDir);
    }
  }

  /** Runs a command, retrying failed attempts; throws GitError once every attempt failed. */
  async run(command: GitCommand): Promise<GitOutput> {
    let lastError: Error | undefined;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      try {
        await this.options.beforeRun?.(command, attempt);
        return await this.once(command);
      } catch (error) {
        lastError = error instanceof Error ? error : new Error(String(error));
        if (attempt === this.attempts) break;
        this.options.onRetry?.(command, lastError, attempt);
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs * 2 ** (attempt - 1)));
      }
    }
    throw lastError ?? new Error('git did not run');
  }

  /** One attempt. */
  private once(command: GitCommand): Promise<GitOutput> {
    // Nothing a repository holds runs as Greenline: no hooks (a pushed or CI-written one), no fsmonitor command.
    const args = [
      '-c',
      'core.hooksPath=/dev/null',
      '-c',
      'core.fsmonitor=false',
      `--git-dir=${command.gitDir}`,
      ...command.args,
    ];
    const ok = command.okExitCodes ?? [0];
    return new Promise<GitOutput>((resolve, reject) => {
      const child = spawn(this.binary, args, {
        env: gitEnvironment(command.env),
        stdio: ['pipe', 'pipe', 'pipe'],
        timeout: this.timeoutMs,
        killSignal: 'SIGKILL',
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (error) =>
        reject(new GitError(`git ${command.args[0] ?? ''} could not run: ${error.message}`, args, null, '')),
      );
      child.on('close', (code, signal) => {
        const stdout = Buffer.concat(out);
        const stderr = Buffer.concat(err).toString('utf8');
        if (code === null || !ok.includes(code)) {
          const why = code === null ? `was killed (${signal ?? 'signal'})` : `exited with ${code}`;
          reject(
            new GitError(
              `git ${command.args.join(' ')} ${why}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`,
              args,
              code,
              stderr,
            ),
          );
          return;
        }
        resolve({ exitCode: code, stdout, stderr, text: stdout.toString('utf8').replace(/\n$/, '') });
      });
      // A command that exits without reading its input closes the pipe: that is not an error of ours.
      child.stdin.on('error', () => undefined);
      child.stdin.end(command.input ?? '');
    });
  }
}
