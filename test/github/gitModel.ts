/**
 * The stand-in's git: commits of whole file maps, refs, merge bases and three-way merges by file. Enough git for the
 * GitHub stand-in to answer GitHub's merge, ref and commit APIs with real, checkable trees.
 */
import { createHash } from 'node:crypto';

export type Files = Record<string, string>;

/** Who made a commit, and when: part of what the commit's SHA is computed from, as in git. */
export interface Person {
  name: string;
  email: string;
  date: string;
}

export interface Commit {
  sha: string;
  treeSha: string;
  files: Files;
  parents: string[];
  message: string;
  /** The author's name (its email is `<name>@example.com` unless `people` says otherwise), and the author date. */
  author: string;
  date: string;
  /** Author and committer in full, when the commit was made with them (GitHub's git data API). */
  people?: { author: Person; committer: Person };
}

export function treeShaOf(files: Files): string {
  const hash = createHash('sha1');
  for (const path of Object.keys(files).sort()) hash.update(`${path}\u0000${files[path]}\u0000`);
  return hash.digest('hex');
}

export class GitModel {
  readonly commits = new Map<string, Commit>();
  readonly trees = new Map<string, Files>();
  readonly refs = new Map<string, string>();
  private counter = 0;

  /** The time now: a second later at each call, so that commits made "now" are never the same object. */
  now(): string {
    return new Date(Date.UTC(2026, 0, 1, 0, 0, this.counter++)).toISOString().replace('.000Z', 'Z');
  }

  /**
   * A commit. Its SHA is computed from its content only (tree, parents, message, author and committer with their
   * dates), as git's is: without `people`, the author and committer are `author` now, so every such commit is new;
   * with `people` (dates given), the same content is the same commit.
   */
  commit(
    files: Files,
    parents: string[],
    message: string,
    author = 'Codertocat',
    people?: { author: Person; committer: Person },
  ): Commit {
    const treeSha = treeShaOf(files);
    const made =
      people ??
      (() => {
        const person = { name: author, email: `${author}@example.com`, date: this.now() };
        return { author: person, committer: person };
      })();
    const who = (person: Person) => `${person.name} <${person.email}> ${person.date}`;
    const sha = createHash('sha1')
      .update(`${treeSha}|${parents.join(',')}|${message}|${who(made.author)}|${who(made.committer)}`)
      .digest('hex');
    const existing = this.commits.get(sha);
    if (existing !== undefined) return existing;
    const commit: Commit = {
      sha,
      treeSha,
      files: { ...files },
      parents,
      message,
      author: made.author.name,
      date: made.author.date,
      ...(people === undefined ? {} : { people }),
    };
    this.commits.set(sha, commit);
    this.trees.set(treeSha, commit.files);
    return commit;
  }

  ancestors(sha: string): Set<string> {
    const seen = new Set<string>();
    const stack = [sha];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(this.commits.get(next)?.parents ?? []));
    }
    return seen;
  }

  isAncestor(ancestor: string, of: string): boolean {
    return this.ancestors(of).has(ancestor);
  }

  /** A merge base: the first ancestor of `b` (breadth first) that is an ancestor of `a`. */
  mergeBase(a: string, b: string): string | undefined {
    const ofA = this.ancestors(a);
    const queue = [b];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const next = queue.shift()!;
      if (ofA.has(next)) return next;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...(this.commits.get(next)?.parents ?? []));
    }
    return undefined;
  }

  /** Three-way merge of files: the merged files, or the paths in conflict. */
  mergeFiles(ours: string, theirs: string): { files: Files } | { conflicts: string[] } {
    const base = this.mergeBase(ours, theirs);
    const baseFiles = base === undefined ? {} : this.commits.get(base)!.files;
    const a = this.commits.get(ours)!.files;
    const b = this.commits.get(theirs)!.files;
    const files: Files = {};
    const conflicts: string[] = [];
    for (const path of new Set([...Object.keys(a), ...Object.keys(b), ...Object.keys(baseFiles)])) {
      const [x, y, o] = [a[path], b[path], baseFiles[path]];
      const merged = x === y ? x : x === o ? y : y === o ? x : null;
      if (merged === null) conflicts.push(path);
      else if (merged !== undefined) files[path] = merged;
    }
    return conflicts.length > 0 ? { conflicts: conflicts.sort() } : { files };
  }
}
