/**
 * The local host's records of test branches: what each PR contributed to a test branch (its commits and the commit
 * it was applied on), one small JSON file per test branch SHA under `local-git/test-branches/<repo>/`, which merging
 * reads. Records outlive their branches by RECORD_DAYS. Also where the host keeps things on disk, per repository.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { MergeMethod, RepoRef } from '../../model/queues.js';

/** What one PR contributed to a test branch. */
export interface Segment {
  number: number;
  prSha: string;
  /** The commit the PR was applied on (the base, or the previous PR's last commit). */
  parent: string;
  /** The commits it added, oldest first (none when its changes were already there). */
  commits: string[];
}

/** The record of a test branch, by its SHA. */
export interface TestBranchRecord {
  branch: string;
  baseSha: string;
  mergeMethod: MergeMethod;
  tip: string;
  segments: Segment[];
}

/** Records of test branches are kept this long: merges read them after the branch is deleted. */
const RECORD_DAYS = 14;

function safeSegments(parts: string[]): string[] {
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..' || part.includes('\u0000') || part.includes('\\')) {
      throw new Error(`"${part}" cannot be part of a repository path`);
    }
  }
  return parts;
}

/** The path of a repository's folders under the data folder: host, owner, name, in lower case. */
export function repoPathParts(repo: RepoRef): string[] {
  return safeSegments([repo.host.toLowerCase(), ...repo.owner.toLowerCase().split('/'), repo.name.toLowerCase()]);
}

export class TestBranchRecords {
  private readonly swept = new Set<string>();

  constructor(private readonly dataDir: string) {}

  async write(repo: RepoRef, record: TestBranchRecord): Promise<void> {
    const path = this.path(repo, record.tip);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(record));
    await rename(temporary, path);
  }

  async read(repo: RepoRef, sha: string): Promise<TestBranchRecord | undefined> {
    if (!/^[0-9a-f]{40}$/.test(sha)) return undefined;
    try {
      return JSON.parse(await readFile(this.path(repo, sha), 'utf8')) as TestBranchRecord;
    } catch {
      return undefined;
    }
  }

  /** Once per repository and process: forgets records older than RECORD_DAYS. */
  async sweep(repo: RepoRef): Promise<void> {
    const dir = this.dir(repo);
    if (this.swept.has(dir)) return;
    this.swept.add(dir);
    const cutoff = Date.now() - RECORD_DAYS * 24 * 60 * 60_000;
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info !== undefined && info.mtimeMs < cutoff) await rm(path, { force: true });
    }
  }

  private dir(repo: RepoRef): string {
    return join(this.dataDir, 'local-git', 'test-branches', ...repoPathParts(repo));
  }

  private path(repo: RepoRef, sha: string): string {
    return join(this.dir(repo), `${sha}.json`);
  }
}
