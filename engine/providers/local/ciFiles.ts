/**
 * Where the built-in CI keeps its files, under `local-ci/` in the data folder: per run a folder with `run.json` (whose
 * run it is), and per status its log, its outcome once known and the pid of its command while it runs; worktrees
 * under `local-ci/work/`. Status names become file names by `statusFileName`.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CiRun } from '../types.js';

/** A command's outcome, written next to its log before it is reported. */
export interface Outcome {
  state: 'success' | 'failure' | 'error';
  description: string;
  exitCode: number | null;
  signal: string | null;
  startedAt: string;
  endedAt: string;
}

/** Whose run a run folder is (the log server checks the organization). */
export interface RunMeta {
  org: string;
  repo: CiRun['repo'];
  sha: string;
  branch: string;
}

/** A file name for a status name: readable when short and plain, a hash otherwise; never a path. */
export function statusFileName(status: string): string {
  const encoded = [...Buffer.from(status, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).padStart(2, '0')}`,
    )
    .join('');
  return encoded.length <= 120 ? encoded : `h-${createHash('sha256').update(status).digest('hex')}`;
}

export class CiFiles {
  constructor(private readonly dataDir: string) {}

  runDir(runId: string): string {
    return join(this.dataDir, 'local-ci', runId);
  }

  workDir(runId: string, status: string): string {
    return join(this.dataDir, 'local-ci', 'work', runId, statusFileName(status));
  }

  logPath(runId: string, status: string): string {
    return join(this.runDir(runId), `${statusFileName(status)}.log`);
  }

  outcomePath(runId: string, status: string): string {
    return join(this.runDir(runId), `${statusFileName(status)}.outcome.json`);
  }

  pidPath(runId: string, status: string): string {
    return join(this.runDir(runId), `${statusFileName(status)}.pid`);
  }

  metaPath(runId: string): string {
    return join(this.runDir(runId), 'run.json');
  }

  /** A status's log, only to the organization that owns the run; undefined when there is none (yet) or it is not theirs. */
  async openLog(org: string, runId: string, status: string): Promise<NodeJS.ReadableStream | undefined> {
    const meta = await readJson<RunMeta>(this.metaPath(runId));
    if (meta === undefined || meta.org !== org) return undefined;
    const path = this.logPath(runId, status);
    const isFile = await stat(path).then(
      (info) => info.isFile(),
      () => false,
    );
    return isFile ? createReadStream(path) : undefined;
  }
}

/** What marks a job's command in its environment (GREENLINE_CI_JOB), to know a leftover process for ours. */
export function jobMarker(runId: string, status: string): string {
  return `${runId}/${statusFileName(status)}`;
}

export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

export async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
