/**
 * The LMDB store: one environment file (`<dir>/greenline.mdb`), one named sub-database per collection, JSON values,
 * and keys encoded by keyCodec into binary LMDB keys (LMDB orders them with memcmp, which is the documented order).
 *
 * Writes run in `transactionSync` (`writeAsync`, `writeBatched`: in lmdb-js's batch, committed on its write thread):
 * LMDB's write lock (shared by every process that opens the file) serialises them, and a throw aborts the transaction.
 * With `batch` (the service's default) the request paths write through `writeBatched` (lmdbBatched.ts): lmdb-js's
 * batches, synced under `overlappingSync` off the event loop, each write resolved once flushed; `write` still syncs each
 * of its commits on the event loop. With group commit (the store's default without `batch`) a commit is not synced by
 * itself: one sync on a pool thread makes every transaction committed before it durable at once, and `durable()`
 * resolves after it (groupCommit.ts); `groupCommit: false` syncs each commit on the event loop (the old way);
 * `noSync` never syncs. Reads run on one read transaction — an
 * MVCC snapshot that takes no lock — renewed at the start of every `read`, so they see everything committed before
 * it, by this or any other process. Scans are materialised inside the transaction, so results stay valid after it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { COLLECTION_NAMES, emptyCounts, Lifecycle, TxScope } from './common.js';
import { StorageFullError } from './store.js';
import { PRIVATE_FILE_MODE } from './backupFile.js';
import { secureDataDir } from './fileModes.js';
import { LmdbSpace } from './lmdbSpace.js';
import { GroupCommit } from './groupCommit.js';
import { BatchedWrites } from './lmdbBatched.js';
import type { CollectionName, ReadTx, Store, WriteTx } from './store.js';
import { lmdbTxOps, type Db } from './lmdbTx.js';

export interface LmdbStoreOptions {
  /** Directory of the store; created if missing. */
  dir: string;
  /** Skip the fsync at each commit: faster, but a machine crash may lose recent commits (never corrupts). */
  noSync?: boolean;
  /**
   * Commits are synced in groups, off the event loop, and `durable()` says when (default true; groupCommit.ts).
   * false: each commit is synced on the event loop before `write` returns. Ignored with `noSync`.
   */
  groupCommit?: boolean;
  /**
   * Batched writes (GREENLINE_LMDB_SYNC=batch): `writeBatched` runs transactions in lmdb-js's batches under
   * `overlappingSync`, each resolved once flushed (lmdbBatched.ts); group commit is off. Ignored with `noSync`.
   */
  batch?: boolean;
  /** Tests only: asked inside each batched transaction; an error returned fails its commit (lmdbBatched.ts). */
  failBatchedCommit?: () => Error | undefined;
  /** Awaited before each group sync starts (tests hold a sync with it, to see that nothing answers before it). */
  beforeSync?: () => Promise<void>;
  /** Initial map size; LMDB-js grows the map when it fills. */
  mapSizeBytes?: number;
  /**
   * The most bytes the store's live pages may hold (GREENLINE_MAX_DB_SIZE): near it, writes are refused with
   * StorageFullError until deletions bring it under (LMDB reuses freed pages) or the store reopens with more; a
   * transaction that would go over it is refused whole (lmdbSpace.ts).
   */
  maxBytes?: number;
  /** The file's name in `dir` (default greenline.mdb; a restore checks a backup under another name first). */
  fileName?: string;
  /**
   * Free bytes the disk must keep (default 512 KiB): below it, writes are refused with StorageFullError before LMDB
   * meets ENOSPC itself, where lmdb-js has been seen to corrupt its heap and crash the process.
   */
  diskReserveBytes?: number;
  /** Where warnings about the data folder go (a mode it had to tighten); stderr unless given. */
  onWarning?: (message: string) => void;
}

const warn = (message: string) => console.warn(`greenline: ${message}`);
export const LMDB_FILE = 'greenline.mdb';

type PageStat = { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
const pagesOf = (stat: PageStat) => stat.treeBranchPageCount + stat.treeLeafPageCount + stat.overflowPages;

/** A full disk or map, as LMDB reports it at a write or commit: the transaction was aborted. */
function asStorageFull(error: unknown): StorageFullError | undefined {
  const text = error instanceof Error ? `${(error as { code?: unknown }).code ?? ''} ${error.message}` : '';
  if (/ENOSPC|No space left|EDQUOT|quota exceeded|MDB_MAP_FULL|-30792/i.test(text)) {
    return new StorageFullError(`the disk or the store's map is full: ${error instanceof Error ? error.message : ''}`);
  }
  return undefined;
}

/** The LMDB store, with the count of its syncs (the metric and the tests read it). */
export interface LmdbStore extends Store {
  readonly kind: 'lmdb';
  /**
   * Group syncs finished, and transactions committed but not yet synced (0 without group commit); commits of `write`
   * synced on the event loop (each, batch); batched transactions flushed and failed (batch).
   */
  syncStats(): { syncs: number; pending: number; loopSyncs: number; batched: number; batchesFailed: number };
}

export function openLmdbStore(options: LmdbStoreOptions): LmdbStore {
  for (const warning of secureDataDir(options.dir)) (options.onWarning ?? warn)(warning);
  const file = path.join(options.dir, options.fileName ?? LMDB_FILE);
  // The store file and its lock file: the owner's only, whatever the umask (lmdb-js's default is 0664). lmdb-js takes
  // the option (env.cpp) but its types leave it out.
  const modes = { permissionsMode: PRIVATE_FILE_MODE } as object;
  const batch = options.noSync !== true && options.batch === true;
  const groupCommit = options.noSync !== true && !batch && options.groupCommit !== false;
  // Commits of `write` that LMDB syncs itself, on the calling thread (the event loop).
  const loopSynced = options.noSync !== true && !groupCommit;
  let loopSyncs = 0;
  const env = open<unknown, Buffer>({
    ...modes,
    path: file,
    encoding: 'json',
    keyEncoding: 'binary',
    maxDbs: 64,
    // Under group commit LMDB itself never syncs at a commit (MDB_NOSYNC); GroupCommit syncs the file for it.
    noSync: (options.noSync ?? false) || groupCommit,
    // Batches synced after their write lock is released, the last flushed meta page kept for a restart until then.
    ...(batch && { overlappingSync: true }),
    ...(options.mapSizeBytes !== undefined && { mapSize: options.mapSizeBytes }),
  });
  const dbs = new Map<CollectionName, Db>();
  for (const name of COLLECTION_NAMES) {
    dbs.set(name, env.openDB<unknown, Buffer>(name, { encoding: 'json', keyEncoding: 'binary' }));
  }
  const life = new Lifecycle();
  // mdb_env_sync(force) on libuv's pool: flushes every page and meta page written by the commits before it.
  const syncFile = (): Promise<void> =>
    new Promise<void>((resolve, reject) =>
      (env as unknown as { sync(done: (error: unknown) => void): void }).sync((error) =>
        error ? reject(error) : resolve(),
      ),
    );
  const beforeSync = options.beforeSync;
  const group = groupCommit ? new GroupCommit(beforeSync ? () => beforeSync().then(syncFile) : syncFile) : undefined;
  const { makeReadTx, makeWriteTx } = lmdbTxOps(dbs);
  const batched = batch
    ? new BatchedWrites({
        env,
        life,
        beginCheck: () => {
          env.resetReadTxn();
          return space.begin();
        },
        makeWriteTx,
        asStorageFull,
        syncFile,
        failCommit: options.failBatchedCommit,
      })
    : undefined;

  /**
   * Bytes in the pages the store's data occupies (every database's branch, leaf and overflow pages), as the current
   * transaction sees them. lmdb-js's getStats adds the environment's info and a walk of its free list to a database's
   * stat: outside a write it is asked once, of the main database (it renews the read snapshot); every other stat is
   * read directly (`mdb_stat`, in the running transaction).
   */
  const statOf = (store: unknown) => (store as { db: { stat(): PageStat } }).db.stat();
  const liveBytes = (inWrite: boolean): number => {
    const main = inWrite ? statOf(env) : ((env as unknown as Db).getStats() as PageStat);
    let pages = pagesOf(main);
    for (const store of dbs.values()) pages += pagesOf(statOf(store));
    return pages * main.pageSize;
  };
  const space = new LmdbSpace({
    dir: options.dir,
    maxBytes: options.maxBytes,
    diskReserveBytes: options.diskReserveBytes,
    liveBytes,
  });

  return {
    kind: 'lmdb' as const,
    read<R>(fn: (tx: ReadTx) => R): R {
      life.begin('read');
      // Drop lmdb-js's shared read snapshot (it is reused until the next macrotask) so this read starts a fresh one
      // that includes commits made since, e.g. by another process; then hold it for the duration of fn.
      env.resetReadTxn();
      const txn = env.useReadTransaction();
      const scope = new TxScope();
      try {
        return fn(makeReadTx(scope, txn));
      } finally {
        scope.active = false;
        txn.done();
      }
    },
    write<R>(fn: (tx: WriteTx) => R): R {
      life.begin('write');
      const scope = new TxScope();
      // A transaction that only reads is never refused (a full store still starts and answers); one that writes is
      // checked before it commits (lmdbSpace.ts): over the limit, or growing a full store, it is refused whole.
      env.resetReadTxn();
      const check = space.begin();
      const { tx, changes } = makeWriteTx(scope);
      let result: R | undefined;
      life.inWrite = true;
      try {
        // The callback returns nothing, so lmdb-js never treats fn's result as a promise to wait for.
        try {
          env.transactionSync(() => {
            result = fn(tx);
            if (changes.put || changes.removed) check.beforeCommit(changes);
          });
        } catch (error) {
          throw asStorageFull(error) ?? error;
        }
        if (changes.put || changes.removed) {
          group?.committedOne();
          if (loopSynced) loopSyncs += 1;
        }
        return result as R;
      } finally {
        life.inWrite = false;
        scope.active = false;
      }
    },
    async writeAsync<R>(fn: (tx: WriteTx) => R): Promise<R> {
      life.begin('write');
      env.resetReadTxn();
      const [check, scope] = [space.begin(), new TxScope()];
      const { tx, changes } = makeWriteTx(scope);
      let result: R | undefined;
      try {
        // fn runs in a child transaction (a throw aborts it alone) of the batch lmdb-js's write thread then commits.
        await env.childTransaction(() => {
          life.inWrite = true;
          try {
            result = fn(tx);
            if (changes.put || changes.removed) check.beforeCommit(changes);
          } finally {
            life.inWrite = false;
            scope.active = false;
          }
        });
      } catch (error) {
        throw asStorageFull(error) ?? error;
      }
      if (changes.put || changes.removed) group?.committedOne();
      return result as R;
    },
    ...(batched && { writeBatched: <R>(fn: (tx: WriteTx) => R): Promise<R> => batched.write(fn) }),
    durable(): Promise<void> {
      return group?.durable() ?? batched?.durable() ?? Promise.resolve();
    },
    syncStats() {
      return {
        syncs: group?.syncs ?? 0,
        pending: group?.pending ?? 0,
        loopSyncs,
        batched: batched?.flushed ?? 0,
        batchesFailed: batched?.failed ?? 0,
      };
    },
    fullReason(): string | undefined {
      life.begin('stats');
      env.resetReadTxn();
      return space.fullReason(true);
    },
    stats() {
      life.begin('stats');
      env.resetReadTxn();
      const entries = emptyCounts();
      for (const [name, store] of dbs) {
        entries[name] = (store.getStats() as { entryCount: number }).entryCount;
      }
      return { sizeBytes: fs.statSync(file).size, entries };
    },
    async close(): Promise<void> {
      life.begin('write');
      life.closed = true;
      // Under MDB_NOSYNC closing does not sync: what was committed is made durable first.
      await group?.durable().catch(() => undefined);
      await batched?.durable().catch(() => undefined);
      if (group !== undefined && group.pending > 0) await syncFile().catch(() => undefined);
      await env.close();
    },
  };
}
