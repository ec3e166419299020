/**
 * `npx tsx bench/lmdbCommit.ts [writers] [seconds]`: three ways to make LMDB commits durable, under the same
 * concurrent writers (each writes one small transaction, waits until it is durable, then writes the next: a request
 * answered only after its write is on disk), in the same run:
 * - each: every commit synced on the event loop (`transactionSync`, LMDB's own sync; GREENLINE_LMDB_SYNC=each);
 * - group: commits without a sync of their own (MDB_NOSYNC) and one sync on a pool thread for all before it
 *   (store/groupCommit.ts, the store's `durable()`; GREENLINE_LMDB_SYNC=group);
 * - batch: the store's `writeBatched` (GREENLINE_LMDB_SYNC=batch, store/lmdbBatched.ts): each write a child transaction
 *   in lmdb-js's batch, resolved once flushed, as the service's requests write by default;
 * - lmdb-js: its batched asynchronous transactions (`db.transaction(cb)` queued, committed on its write thread, with
 *   overlappingSync), each awaited through `db.flushed`;
 * - transactionSync under overlappingSync with LMDB's MDB_NOSYNC flag on the transaction (0x10000, the flags lmdb-js's
 *   own putSync passes): its commit releases the write lock before the sync (mdb.c, mdb_txn_commit: `done:`), but the
 *   calling thread — the event loop — still waits for that sync (or for one another thread runs): no sharing on one
 *   thread, so the engine's synchronous writes cannot get group commit this way (`db.flushed` after it is already
 *   resolved: the commit was durable when transactionSync returned).
 * Prints durable transactions/s (ratio to each) and the longest the event loop was held (monitorEventLoopDelay).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { open } from 'lmdb';
import { openLmdbStore } from '../engine/store/index.js';

interface Figures {
  name: string;
  durable: number;
  seconds: number;
  maxLoopMs: number;
}

const record = (writer: number, i: number) => ({
  state: 'PENDING',
  writer,
  number: i,
  title: `PR #${i}`,
  sha: 'ab'.repeat(20),
});

/** `writers` loops of write-then-wait-durable for `seconds`; the loop's longest delay meanwhile. */
async function run(
  name: string,
  writers: number,
  seconds: number,
  writeDurably: (writer: number, i: number) => Promise<void>,
): Promise<Figures> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const until = performance.now() + seconds * 1000;
  let durable = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let i = 0; performance.now() < until; i++) {
        await writeDurably(writer, i);
        durable += 1;
        // The next request comes in a later turn of the loop, as over HTTP (and the loop's delay is sampled).
        await new Promise((resolve) => setImmediate(resolve));
      }
    }),
  );
  loop.disable();
  return { name, durable, seconds: (performance.now() - started) / 1000, maxLoopMs: loop.max / 1e6 };
}

export async function benchLmdbCommit(writers: number, seconds: number): Promise<Figures[]> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-lmdb-commit-'));
  try {
    const figures: Figures[] = [];
    const each = openLmdbStore({ dir: join(dir, 'each'), groupCommit: false });
    figures.push(
      await run('each: one sync per commit, on the event loop', writers, seconds, async (w, i) =>
        each.write((tx) => tx.put('meta', ['b', w, i], record(w, i))),
      ),
    );
    await each.close();
    const group = openLmdbStore({ dir: join(dir, 'group') });
    figures.push(
      await run('group: commits unsynced, one pool-thread sync (GroupCommit)', writers, seconds, async (w, i) => {
        group.write((tx) => tx.put('meta', ['b', w, i], record(w, i)));
        await group.durable?.();
      }),
    );
    await group.close();
    const batch = openLmdbStore({ dir: join(dir, 'batch'), batch: true });
    figures.push(
      await run('batch: store writeBatched (lmdb-js batches, flushed)', writers, seconds, async (w, i) => {
        await batch.writeBatched?.((tx) => tx.put('meta', ['b', w, i], record(w, i)));
      }),
    );
    await batch.close();
    const env = open({ path: join(dir, 'async.mdb'), encoding: 'json', overlappingSync: true });
    const db = env.openDB({ name: 'meta', encoding: 'json' });
    figures.push(
      await run('lmdb-js: batched async transactions, awaited via flushed', writers, seconds, async (w, i) => {
        await db.transaction(() => db.put(`b/${w}/${i}`, record(w, i)));
        await db.flushed;
      }),
    );
    // lmdb-js's transactionSync(callback, flags): abortable (1) | synchronous commit (2) | MDB_NOSYNC (0x10000).
    const transactionSync = (
      env as unknown as { transactionSync(fn: () => void, flags: number): void }
    ).transactionSync.bind(env);
    figures.push(
      await run('transactionSync under overlappingSync, MDB_NOSYNC txn', writers, seconds, async (w, i) => {
        transactionSync(() => void db.put(`s/${w}/${i}`, record(w, i)), 0x10003);
        await db.flushed;
      }),
    );
    await env.close();
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const writers = Number(process.argv[2] ?? 200);
  const seconds = Number(process.argv[3] ?? 5);
  const figures = await benchLmdbCommit(writers, seconds);
  const base = (figures[0]?.durable ?? 1) / (figures[0]?.seconds ?? 1);
  console.log(`\n${writers} writers, each writing one transaction and waiting until it is durable, ${seconds} s each:`);
  console.log(`${'way'.padEnd(62)} ${'durable/s'.padStart(10)} ${'vs each'.padStart(8)} ${'max loop ms'.padStart(12)}`);
  for (const f of figures) {
    const rate = f.durable / f.seconds;
    console.log(
      `${f.name.padEnd(62)} ${rate.toFixed(0).padStart(10)} ${`${(rate / base).toFixed(2)}×`.padStart(8)} ${f.maxLoopMs.toFixed(1).padStart(12)}`,
    );
  }
}
