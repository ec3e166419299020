import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { CLUSTER_PREFIX, reapStaleClusters } from './staleClusters.js';

const made: string[] = [];
afterEach(() => {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
});

function fakeCluster(ownerPid: number): string {
  const root = mkdtempSync(join(tmpdir(), CLUSTER_PREFIX));
  writeFileSync(join(root, 'owner'), String(ownerPid));
  made.push(root);
  return root;
}

test('a cluster whose owning test process is gone is removed; one whose owner lives is kept', () => {
  const exited = spawnSync(process.execPath, ['-e', '0']).pid as number;
  const gone = fakeCluster(exited);
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    const live = fakeCluster(child.pid as number);
    const mine = fakeCluster(process.pid);
    reapStaleClusters('/nonexistent-bin', undefined);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(mine)).toBe(true);
  } finally {
    child.kill();
  }
});
