/**
 * One bare repository and the git vocabulary the local host speaks to it: every method is one git command (or a
 * few), read-only unless its name says it writes. Nothing here writes objects by hand: trees come from
 * `merge-tree --write-tree`, commits from `commit-tree`, refs move with `update-ref` (compare-and-swap).
 */
import type { GitRunner } from './gitRunner.js';

export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** Who and when, for commit-tree. Dates are git's internal format: `<unix seconds> <+hhmm>`. */
export interface Ident {
  name: string;
  email: string;
  date: string;
}

/** A commit as `cat-file commit` shows it. */
export interface CommitObject {
  sha: string;
  tree: string;
  parents: string[];
  author: Ident;
  committer: Ident;
  encoding: string | null;
  /** The message, byte for byte. */
  message: Buffer;
}

export type MergeOutcome = { clean: true; tree: string } | { clean: false; files: string[] };

function parseIdent(line: string): Ident {
  const match = /^(.*) <([^>]*)> (\d+ [+-]\d{4})$/.exec(line);
  if (match === null) throw new Error(`unreadable identity line: ${line}`);
  return { name: match[1] ?? '', email: match[2] ?? '', date: match[3] ?? '' };
}

export function identityEnv(author: Ident, committer: Ident): Record<string, string> {
  // "@" marks the raw form: git would misread a time before 1973 ("0 +0000") as a malformed date.
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: `@${author.date}`,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: `@${committer.date}`,
  };
}

/** A date in git's internal format for a time in milliseconds, in UTC. */
export function gitDate(ms: number): string {
  return `${Math.floor(ms / 1000)} +0000`;
}

export class Repository {
  constructor(
    readonly runner: GitRunner,
    readonly gitDir: string,
  ) {}

  private git(
    args: readonly string[],
    extra: { input?: string | Buffer; env?: Record<string, string>; okExitCodes?: number[] } = {},
  ) {
    return this.runner.run({ gitDir: this.gitDir, args, ...extra });
  }

  /** The commit a ref or revision names, or undefined when there is none. */
  async resolve(revision: string): Promise<string | undefined> {
    const out = await this.git(['rev-parse', '-q', '--verify', '--end-of-options', `${revision}^{commit}`], {
      okExitCodes: [0, 1],
    });
    return out.exitCode === 0 && out.text !== '' ? out.text : undefined;
  }

  async hasCommit(sha: string): Promise<boolean> {
    if (!/^[0-9a-f]{40}$/.test(sha)) return false;
    const out = await this.git(['cat-file', '-e', `${sha}^{commit}`], { okExitCodes: [0, 1, 128] });
    return out.exitCode === 0;
  }

  /** The tree of each commit, in order. */
  async trees(...commits: string[]): Promise<string[]> {
    if (commits.length === 0) return [];
    const out = await this.git(['rev-parse', ...commits.map((commit) => `${commit}^{tree}`)]);
    return out.text.split('\n');
  }

  async tree(commit: string): Promise<string> {
    return (await this.trees(commit))[0] as string;
  }

  async emptyTree(): Promise<string> {
    return (await this.git(['mktree'], { input: '' })).text;
  }

  async readCommit(sha: string): Promise<CommitObject> {
    const raw = (await this.git(['cat-file', 'commit', sha])).stdout;
    const split = raw.indexOf('\n\n');
    const header = raw.subarray(0, split === -1 ? raw.length : split).toString('utf8');
    const message = split === -1 ? Buffer.alloc(0) : raw.subarray(split + 2);
    const commit: Partial<CommitObject> & { parents: string[] } = { sha, parents: [], encoding: null, message };
    for (const line of header.split('\n')) {
      if (line.startsWith(' ')) continue; // a continuation (gpgsig, mergetag)
      const space = line.indexOf(' ');
      const key = line.slice(0, space);
      const value = line.slice(space + 1);
      if (key === 'tree') commit.tree = value;
      else if (key === 'parent') commit.parents.push(value);
      else if (key === 'author') commit.author = parseIdent(value);
      else if (key === 'committer') commit.committer = parseIdent(value);
      else if (key === 'encoding') commit.encoding = value;
    }
    if (commit.tree === undefined || commit.author === undefined || commit.committer === undefined) {
      throw new Error(`commit ${sha} is missing a header`);
    }
    return commit as CommitObject;
  }

  /** Subject and author name of a commit. */
  async summary(sha: string): Promise<{ subject: string; authorName: string; authorEmail: string }> {
    const out = await this.git(['log', '-1', '--no-show-signature', '--format=%s%x00%an%x00%ae', sha]);
    const [subject = '', authorName = '', authorEmail = ''] = out.text.split('\u0000');
    return { subject, authorName, authorEmail };
  }

  /** Subjects of the commits reachable from `tip` but not from `base`, oldest first. */
  async subjects(base: string, tip: string): Promise<string[]> {
    const out = await this.git(['log', '--reverse', '--no-merges', '--format=%s', `${base}..${tip}`]);
    return out.text === '' ? [] : out.text.split('\n');
  }

  /** Non-merge commits reachable from `tip` but not from `base`, oldest first (what a rebase replays). */
  async commitsToReplay(base: string, tip: string): Promise<string[]> {
    const out = await this.git(['rev-list', '--reverse', '--topo-order', '--no-merges', `${base}..${tip}`]);
    return out.text === '' ? [] : out.text.split('\n');
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const out = await this.git(['merge-base', '--is-ancestor', ancestor, descendant], { okExitCodes: [0, 1] });
    return out.exitCode === 0;
  }

  /**
   * A three-way merge of two commits at their merge base, written as a tree without touching any ref, index or
   * worktree (`git merge-tree --write-tree`, git 2.38+). Unrelated histories count as a conflict of every file.
   */
  async mergeTrees(ours: string, theirs: string): Promise<MergeOutcome> {
    const out = await this.git(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs], {
      okExitCodes: [0, 1, 128],
    });
    if (out.exitCode === 128) {
      if (/unrelated histories/.test(out.stderr)) return { clean: false, files: ['(no common history)'] };
      throw new Error(`git merge-tree failed: ${out.stderr.trim()}`);
    }
    const parts = out.stdout
      .toString('utf8')
      .split('\u0000')
      .filter((part) => part !== '');
    const [tree, ...files] = parts;
    if (tree === undefined) throw new Error('git merge-tree wrote no tree');
    return out.exitCode === 0 ? { clean: true, tree } : { clean: false, files: [...new Set(files)] };
  }

  /** Writes a commit object (no ref moves). */
  async commitTree(
    tree: string,
    parents: readonly string[],
    message: string | Buffer,
    author: Ident,
    committer: Ident,
    encoding: string | null = null,
  ): Promise<string> {
    const args = [
      ...(encoding === null ? [] : ['-c', `i18n.commitEncoding=${encoding}`]),
      'commit-tree',
      tree,
      ...parents.flatMap((parent) => ['-p', parent]),
    ];
    // `-c` must come before the subcommand: git's own options.
    const out = await this.git(args, { input: message, env: identityEnv(author, committer) });
    return out.text;
  }

  /** The content of a file at a commit, or undefined when the commit has no such file. */
  async readFile(commit: string, path: string): Promise<string | undefined> {
    const listing = (await this.git(['ls-tree', '-z', commit, '--', path])).stdout.toString('utf8');
    const match = /^\d+ blob ([0-9a-f]{40})\t/.exec(listing);
    if (match === null) return undefined;
    return (await this.git(['cat-file', 'blob', match[1] as string])).stdout.toString('utf8');
  }

  /**
   * Moves a ref from `expected` (ZERO_SHA: it must not exist) to `next`, atomically. True when the ref now points
   * at `next` (also when an earlier attempt already moved it), false when it holds something else.
   */
  async compareAndSwap(ref: string, next: string, expected: string): Promise<boolean> {
    const out = await this.git(['update-ref', '-m', 'greenline', ref, next, expected], { okExitCodes: [0, 128] });
    if (out.exitCode === 0) return true;
    const now = await this.resolve(ref);
    if (now === next) return true;
    if ((now ?? ZERO_SHA) !== expected) return false;
    throw new Error(`git update-ref ${ref} failed: ${out.stderr.trim()}`);
  }

  async deleteRef(ref: string): Promise<void> {
    await this.git(['update-ref', '-m', 'greenline', '-d', ref]);
  }

  async addWorktree(path: string, commit: string): Promise<void> {
    await this.git(['worktree', 'add', '--detach', '--force', path, commit]);
  }

  async removeWorktree(path: string): Promise<void> {
    await this.git(['worktree', 'remove', '--force', '--force', path], { okExitCodes: [0, 128] });
    await this.git(['worktree', 'prune']);
  }

  /**
   * Packs loose objects and drops unreachable ones past git's grace period (two weeks), when git thinks it is
   * time: what a push does (receive.autogc), since plumbing commands never do it.
   */
  async collectGarbage(): Promise<void> {
    await this.git(['gc', '--auto', '--quiet']);
  }

  async pruneWorktrees(): Promise<void> {
    await this.git(['worktree', 'prune']);
  }
}
