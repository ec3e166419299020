/**
 * Test clusters left behind by a test run that was killed (its `stop()` never ran): each cluster's folder names the
 * process that started it (`owner`); a folder whose owner is gone has its server stopped and is removed, so killed
 * runs do not pile up servers and data under the temporary folder. Folders of a live owner are never touched.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CLUSTER_PREFIX = 'greenline-pg-';
const OWNER = 'owner';
/** A folder from before owners were written is stale once it is this old. */
const UNOWNED_STALE_MS = 3_600_000;

export function recordOwner(root: string): void {
  writeFileSync(join(root, OWNER), String(process.pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(root: string): boolean {
  const ownerFile = join(root, OWNER);
  if (existsSync(ownerFile)) {
    const pid = Number(readFileSync(ownerFile, 'utf8'));
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid);
  }
  return Date.now() - statSync(root).mtimeMs > UNOWNED_STALE_MS;
}

/** Stops the server of a stale cluster (immediate shutdown: its data is thrown away) and removes its folder. */
function reap(root: string, bin: string, user: { uid: number; gid: number } | undefined): void {
  const data = join(root, 'data');
  const pidFile = join(data, 'postmaster.pid');
  if (existsSync(pidFile)) {
    try {
      execFileSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop'], {
        stdio: 'ignore',
        ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
      });
    } catch {
      // not running (a stale pid file) or already stopping: removing the folder is what is left
    }
  }
  rmSync(root, { recursive: true, force: true });
}

/** Reaps every stale test cluster under the temporary folder; returns how many. */
export function reapStaleClusters(bin: string, user: { uid: number; gid: number } | undefined): number {
  let reaped = 0;
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(CLUSTER_PREFIX)) continue;
    const root = join(tmpdir(), name);
    try {
      if (!isStale(root)) continue;
      reap(root, bin, user);
      reaped++;
    } catch {
      // another run reaped it first, or it vanished: nothing to do
    }
  }
  return reaped;
}
