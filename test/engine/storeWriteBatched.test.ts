/**
 * LMDB's `writeBatched` (GREENLINE_LMDB_SYNC=batch: store/lmdbBatched.ts): a transaction run in lmdb-js's batch, in a
 * later turn of the loop than the call and in call order, resolved only once flushed; a throw aborts it alone; a store
 * over its limit refuses it whole; a failed commit rejects it, and `durable()` waits for the writes in flight.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openLmdbStore, type LmdbStore, type LmdbStoreOptions } from '../../engine/store/lmdbStore.js';
import { StorageFullError, StoreClosedError } from '../../engine/store/store.js';

let store: LmdbStore | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  store = undefined;
  dir = undefined;
});

async function open(options: Partial<LmdbStoreOptions> = {}): Promise<LmdbStore> {
  dir = await mkdtemp(join(tmpdir(), 'greenline-write-batched-'));
  store = openLmdbStore({ dir, batch: true, ...options });
  return store;
}

test('only a batch store has it; the others keep their sync paths', async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-write-batched-'));
  const group = openLmdbStore({ dir: join(dir, 'group') });
  const each = openLmdbStore({ dir: join(dir, 'each'), groupCommit: false });
  expect(group.writeBatched).toBeUndefined();
  expect(each.writeBatched).toBeUndefined();
  await Promise.all([group.close(), each.close()]);
});

test('runs later than the call, in call order, and resolves with its result once flushed', async () => {
  const s = await open();
  const order: number[] = [];
  const writes = [1, 2, 3].map((n) =>
    s.writeBatched!((tx) => {
      order.push(n);
      tx.put('meta', ['n', n], n);
      return tx.get('meta', ['n', n]);
    }),
  );
  expect(order).toEqual([]);
  expect(await Promise.all(writes)).toEqual([1, 2, 3]);
  expect(order).toEqual([1, 2, 3]);
  expect(s.syncStats()).toMatchObject({ batched: 3, batchesFailed: 0, loopSyncs: 0 });
  expect(s.read((tx) => [...tx.scan('meta', { prefix: ['n'] })].map(({ value }) => value))).toEqual([1, 2, 3]);
});

test('a throw rejects it and writes nothing of it; the others of its batch commit', async () => {
  const s = await open();
  const results = await Promise.allSettled([
    s.writeBatched!((tx) => tx.put('meta', ['a'], 1)),
    s.writeBatched!((tx) => {
      tx.put('meta', ['lost'], 1);
      throw new Error('no');
    }),
    s.writeBatched!((tx) => tx.put('meta', ['b'], 2)),
  ]);
  expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(s.read((tx) => [tx.get('meta', ['a']), tx.get('meta', ['lost']), tx.get('meta', ['b'])])).toEqual([
    1,
    undefined,
    2,
  ]);
  // The caller's own error is no failed batch: no sync is owed for it.
  expect(s.syncStats().batchesFailed).toBe(0);
});

test('over the store limit it is refused whole with StorageFullError', async () => {
  const s = await open({ maxBytes: 256 * 1024 });
  const big = 'x'.repeat(64 * 1024);
  let refused: unknown;
  for (let i = 0; i < 64 && refused === undefined; i++) {
    await s.writeBatched!((tx) => tx.put('meta', ['big', i], big)).catch((error: unknown) => (refused = error));
  }
  expect(refused).toBeInstanceOf(StorageFullError);
});

test('a failed commit rejects the write; durable() then syncs the file, and waits for writes in flight', async () => {
  let failing = true;
  const s = await open({ failBatchedCommit: () => (failing ? new Error('EIO') : undefined) });
  await expect(s.writeBatched!((tx) => tx.put('meta', ['x'], 1))).rejects.toThrow('EIO');
  expect(s.read((tx) => tx.get('meta', ['x']))).toBeUndefined();
  expect(s.syncStats().batchesFailed).toBe(1);
  failing = false;
  // durable() asked once the write's transaction ran (it may be committed and seen): it waits for the write's flush.
  let settled = false;
  let durable: Promise<void> | undefined;
  const write = s.writeBatched!((tx) => {
    tx.put('meta', ['y'], 1);
    durable = s.durable!();
  }).then(() => (settled = true));
  while (durable === undefined) await new Promise((resolve) => setImmediate(resolve));
  await durable;
  expect(settled).toBe(true);
  await write;
});

test('a closed store refuses it', async () => {
  const s = await open();
  await s.close();
  store = undefined;
  expect(() => s.writeBatched!((tx) => tx.put('meta', ['z'], 1))).toThrow(StoreClosedError);
});
