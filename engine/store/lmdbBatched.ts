/**
 * Batched writes on LMDB (GREENLINE_LMDB_SYNC=batch, the default): each transaction runs as a child transaction of
 * lmdb-js's batch — its callback runs on the main thread, synchronously, inside the batch's write transaction, in a
 * later turn of the loop than the call, and the callbacks of one batch run in the order they were called — and lmdb-js's
 * write thread commits the batch. With `overlappingSync` LMDB syncs a commit after releasing its write lock and keeps
 * the last flushed meta page as the one a restart uses until the next sync is done, so a power loss at any point loses
 * at most commits nobody was told of, never the store. A write resolves only once lmdb-js's `flushed` covers it (its
 * batch is on disk); a commit that fails (an I/O error, a full disk) rejects every write of the batch.
 *
 * `durable()` resolves once every batched write whose transaction ran before it has settled: a reader that saw a batch
 * committed but not yet flushed answers only after it (a write still queued was seen by nobody, and is not waited for).
 * A batch that failed is followed by one full sync of the file there.
 */
import type { RootDatabase } from 'lmdb';
import { TxScope, type Lifecycle } from './common.js';
import type { WriteTx } from './store.js';

export interface BatchedDeps {
  env: RootDatabase<unknown, Buffer>;
  life: Lifecycle;
  /** The space check of a write (lmdbSpace.ts): begun at the call, asked inside the transaction. */
  beginCheck: () => { beforeCommit(changes: { put: boolean; removed: boolean }): void };
  makeWriteTx: (scope: TxScope) => { tx: WriteTx; changes: { put: boolean; removed: boolean } };
  /** A full disk or map, as the store reports it (StorageFullError), or undefined for other errors. */
  asStorageFull: (error: unknown) => Error | undefined;
  /** mdb_env_sync(force) off the loop: makes everything committed durable (after a batch that failed). */
  syncFile: () => Promise<void>;
  /**
   * Tests only: asked inside each transaction after its callback ran; an error returned fails its commit there (the
   * transaction is aborted as a failed batch commit would abort it, after the caller's callback has run).
   */
  failCommit?: () => Error | undefined;
}

export class BatchedWrites {
  /** Writes whose transaction ran (it may be committed, and seen) and that have not settled: durable() waits for them. */
  private readonly pending = new Set<Promise<unknown>>();
  /** A batched write failed since the last full sync (durable() syncs the file once). */
  private failedSinceSync = false;
  /** Batched transactions committed and flushed, and those that failed. */
  flushed = 0;
  failed = 0;

  constructor(private readonly deps: BatchedDeps) {}

  write<R>(fn: (tx: WriteTx) => R): Promise<R> {
    const { env, life } = this.deps;
    life.begin('write');
    const check = this.deps.beginCheck();
    const scope = new TxScope();
    const { tx, changes } = this.deps.makeWriteTx(scope);
    let result: R | undefined;
    let done: Promise<R> | undefined;
    // The callback (or the space check) threw: the caller's own error, its transaction alone aborted.
    let callerThrew = false;
    // A child transaction of lmdb-js's batch: a throw aborts this transaction alone, not the batch.
    const committed = env.childTransaction(() => {
      if (done !== undefined) this.pending.add(done);
      life.inWrite = true;
      try {
        try {
          result = fn(tx);
          if (changes.put || changes.removed) check.beforeCommit(changes);
        } catch (error) {
          callerThrew = true;
          throw error;
        }
        const failure = this.deps.failCommit?.();
        if (failure !== undefined) throw failure;
      } finally {
        life.inWrite = false;
        scope.active = false;
      }
    });
    // lmdb-js's `flushed` is asked now, in the turn the transaction was queued in: the flush of the batch it joined.
    const flushed = new Promise<void>((resolve, reject) => env.flushed.then(() => resolve(), reject));
    flushed.catch(() => undefined);
    done = (async () => {
      try {
        await committed;
      } catch (error) {
        throw this.deps.asStorageFull(error) ?? error;
      }
      await flushed;
      return result as R;
    })();
    done.then(
      () => {
        this.flushed += 1;
        this.pending.delete(done);
      },
      () => {
        this.pending.delete(done);
        if (callerThrew) return;
        this.failed += 1;
        this.failedSinceSync = true;
      },
    );
    return done;
  }

  /** Resolves once every batched write that ran before it is settled and, after a failed one, the file synced. */
  async durable(): Promise<void> {
    if (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    if (this.failedSinceSync) {
      await this.deps.syncFile();
      this.failedSinceSync = false;
    }
  }
}
