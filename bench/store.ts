/** Store write and scan throughput: LMDB (durable and noSync) against the in-memory store. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore, openLmdbStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import { measure, report } from './measure.js';

const record = (i: number) => ({ state: 'PENDING', number: i, title: `PR #${i}`, sha: 'ab'.repeat(20) });

async function writes(name: string, store: Store, operations: number) {
  return measure(name, operations, (i) => store.write((tx) => tx.put('meta', ['bench', i], record(i))));
}

export async function benchStore(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-'));
  try {
    const memory = createMemoryStore();
    const durable = openLmdbStore({ dir: join(dir, 'durable') });
    const fast = openLmdbStore({ dir: join(dir, 'nosync'), noSync: true });
    // The cost of GREENLINE_MAX_DB_SIZE: the store's live pages counted before and at the commit of each write.
    const limited = openLmdbStore({ dir: join(dir, 'limited'), noSync: true, maxBytes: 1024 * 1024 * 1024 });
    const baseline = await writes('memory: one put per transaction', memory, 20_000);
    const figures = [
      await writes('lmdb noSync: one put per transaction', fast, 20_000),
      await writes('lmdb noSync with a size limit: one put per transaction', limited, 20_000),
      await writes('lmdb durable: one put per transaction', durable, 2_000),
    ];
    report('store writes (each a committed transaction)', baseline, figures);

    const scans = (name: string, store: Store) =>
      measure(name, 200, () => store.read((tx) => [...tx.scan('meta', { prefix: ['bench'], limit: 1000 })].length));
    report('store scans (1,000 entries by prefix)', await scans('memory', memory), [await scans('lmdb', durable)]);
    await Promise.all([memory.close(), durable.close(), fast.close(), limited.close()]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
