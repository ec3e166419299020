/**
 * The test's own git: a working clone that commits and pushes to the queue's bare repository as a person would (the
 * target branch, and pull request N as `refs/pull/N/head`). git runs in the local host's isolating environment
 * (gitRunner.ts `gitEnvironment`: no user or system configuration) with fixed identities.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gitEnvironment } from '../../engine/providers/local/gitRunner.js';

const run = promisify(execFile);

/** git for the test's own clone: no user or system configuration, fixed identities. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    env: gitEnvironment({
      HOME: cwd,
      GIT_AUTHOR_NAME: process.env.TEST_AUTHOR ?? 'Ada Lovelace',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada Lovelace',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    }),
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
  async commit(
    message: string,
    files: Record<string, string | null>,
    author?: { name: string; email: string },
  ): Promise<string> {
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
    await git(
      this.dir,
      ...who,
      'commit',
      '--quiet',
      '--allow-empty',
      '-m',
      message,
      ...(author === undefined ? [] : [`--author=${author.name} <${author.email}>`]),
    );
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
  async pr(
    number: number,
    base: string,
    files: Record<string, string | null>,
    title = `Change ${number}`,
  ): Promise<string> {
    await this.checkout(base);
    await this.commit(title, files);
    return this.pushPr(number);
  }
}
