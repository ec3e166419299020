import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { openLmdbStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/index.js';
import { describeStoreConformance } from './store.conformance.js';

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'greenline-store-'));
  tempDirs.push(dir);
  return dir;
}

describeStoreConformance('lmdb', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'greenline-store-'));
  const store = openLmdbStore({ dir, noSync: true });
  return {
    store,
    cleanup: async () => {
      await store.close().catch(() => undefined);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
});

const CHILD = fileURLToPath(new URL('./fixtures/storeChild.ts', import.meta.url));
/** Runs the child script in a second Node process, synchronously. */
function child(...args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', CHILD, ...args], { encoding: 'utf8' });
}

describe('LMDB store on disk', () => {
  const open: Store[] = [];
  const openStore = (options: Parameters<typeof openLmdbStore>[0]): Store => {
    const store = openLmdbStore(options);
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close().catch(() => undefined);
    for (const dir of tempDirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
  });

  test('creates the directory and keeps committed data, not rolled-back data, across close and reopen', async () => {
    const dir = path.join(await tempDir(), 'nested', 'store');
    const first = openStore({ dir });
    first.write((tx) => {
      tx.put('meta', ['version'], 1);
      tx.put('queueIndex', ['org', 'github.com', 'o', 'r', 'main'], 'q7');
    });
    expect(() => first.write((tx) => (tx.put('meta', ['ghost'], 1), tx.remove('meta', ['version']), fail()))).toThrow();
    await first.close();
    expect(await fs.readdir(dir)).toContain('greenline.mdb');
    const second = openStore({ dir });
    expect(second.read((tx) => [...tx.scan('meta')])).toEqual([{ key: ['version'], value: 1 }]);
    expect(second.read((tx) => tx.get('queueIndex', ['org', 'github.com', 'o', 'r', 'main']))).toBe('q7');
  });

  test('a second process sees committed writes, and this process sees the other one’s', async () => {
    const dir = await tempDir();
    const store = openStore({ dir });
    store.write((tx) => tx.put('meta', ['from-parent'], { n: 1 }));
    expect(JSON.parse(child(dir, 'get', '["from-parent"]'))).toEqual({ n: 1 });
    // Same synchronous turn: a read before and after the other process's commit must not share a stale snapshot.
    expect(store.read((tx) => tx.get('meta', ['from-child']))).toBeUndefined();
    child(dir, 'put', '["from-child"]', '{"n":2}');
    expect(store.read((tx) => tx.get('meta', ['from-child']))).toEqual({ n: 2 });
    expect(store.stats().entries.meta).toBe(2);
  });

  test('a read is one snapshot: a commit by another process during it shows only in the next read', async () => {
    const dir = await tempDir();
    const store = openStore({ dir });
    store.write((tx) => tx.put('meta', ['k'], 'old'));
    const seen = store.read((tx) => {
      const before = tx.get('meta', ['k']);
      child(dir, 'put', '["k"]', '"new"');
      return [before, tx.get('meta', ['k']), tx.count('meta')];
    });
    expect(seen).toEqual(['old', 'old', 1]);
    expect(store.read((tx) => tx.get('meta', ['k']))).toBe('new');
  });

  test('noSync and mapSizeBytes: many commits past the initial map size, all readable after reopen', async () => {
    const dir = await tempDir();
    const store = openStore({ dir, noSync: true, mapSizeBytes: 1 << 20 });
    const body = 'x'.repeat(10_000);
    for (let i = 0; i < 300; i++) store.write((tx) => tx.put('meta', ['q', i], { state: 'open', body }));
    expect(store.read((tx) => tx.count('meta', { prefix: ['q'] }))).toBe(300);
    expect(store.stats().sizeBytes).toBeGreaterThan(3_000_000);
    await store.close();
    const reopened = openStore({ dir });
    expect(reopened.read((tx) => tx.get('meta', ['q', 299]))).toEqual({ state: 'open', body });
    expect(reopened.stats().entries.meta).toBe(300);
  });
});

function fail(): never {
  throw new Error('fail');
}
