/**
 * LMDB's `writeAsync` (store/lmdbStore.ts), which a large upload's batches use: one transaction committed on lmdb-js's
 * write thread, visible and counted by group commit once it resolves; a throw writes nothing of it; and a `write`
 * made while one is queued is a transaction of its own, visible when it returns (queue inputs stay one transaction
 * each, never part of an upload's).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openLmdbStore, type LmdbStore } from '../../engine/store/lmdbStore.js';

let store: LmdbStore | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  store = undefined;
  dir = undefined;
});

async function open(): Promise<LmdbStore> {
  dir = await mkdtemp(join(tmpdir(), 'greenline-write-async-'));
  store = openLmdbStore({ dir });
  return store;
}

test('resolves with its result once committed and visible, and group commit makes it durable', async () => {
  const s = await open();
  const syncs = s.syncStats().syncs;
  const result = await s.writeAsync?.((tx) => {
    tx.put('meta', ['a'], 1);
    tx.put('meta', ['b'], 2);
    return tx.get('meta', ['a']);
  });
  expect(result).toBe(1);
  expect(
    s.read((tx) =>
      [...tx.scan('meta', { prefix: [] })]
        .filter(({ key }) => key.length === 1 && (key[0] === 'a' || key[0] === 'b'))
        .map(({ value }) => value),
    ),
  ).toEqual([1, 2]);
  await s.durable?.();
  expect(s.syncStats().syncs).toBeGreaterThan(syncs);
  expect(s.syncStats().pending).toBe(0);
});

test('a throw rejects and writes nothing of it; the store goes on', async () => {
  const s = await open();
  await expect(
    s.writeAsync?.((tx) => {
      tx.put('meta', ['lost'], 1);
      throw new Error('no');
    }),
  ).rejects.toThrow('no');
  expect(s.read((tx) => tx.get('meta', ['lost']))).toBeUndefined();
  await s.writeAsync?.((tx) => tx.put('meta', ['kept'], 1));
  expect(s.read((tx) => tx.get('meta', ['kept']))).toBe(1);
});

test('a write made while an async one is queued is its own transaction, visible when it returns', async () => {
  const s = await open();
  const pending = s.writeAsync?.((tx) => {
    tx.put('meta', ['upload'], 1);
    return tx.get('meta', ['queue']);
  });
  s.write((tx) => tx.put('meta', ['queue'], 1));
  expect(s.read((tx) => tx.get('meta', ['queue']))).toBe(1);
  await pending;
  expect(s.read((tx) => [tx.get('meta', ['queue']), tx.get('meta', ['upload'])])).toEqual([1, 1]);
});
