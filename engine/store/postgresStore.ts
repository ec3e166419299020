/**
 * The PostgreSQL store (GREENLINE_STORE=postgres://…), for several Greenline processes sharing one database.
 *
 * The Store interface is synchronous (the engine runs each input as one synchronous transaction) and `pg` is not, so
 * the client runs on a worker thread and every call blocks on it (postgres/syncWorker.ts, postgres/worker.ts).
 * A read is one REPEATABLE READ snapshot, begun with its first call and ended without a round trip. A write is one
 * transaction that reads through itself (and, for a scope whose lock it holds, through what this process keeps of the
 * scope when that is of the scope's version: postgres/scopeCache.ts), taking the lock of each scope (a queue, a repository's flaky tests…) the
 * first time it touches one of its keys (postgres/queueScope.ts), so the inputs of one queue are serialised and those
 * of different queues commit concurrently, across processes; it keeps its changes in an overlay, as the memory store
 * does; when `fn` returns they go to the worker as one request that writes them, checks the fencing tokens given with
 * `withFences`, and commits. A transaction that lost a race (a deadlock between two scopes' locks, a queue made
 * meanwhile under a key it read as absent) is run again, `fn` and all, up to MAX_ATTEMPTS times: `fn` has no effect
 * outside its transaction.
 */
import { COLLECTION_NAMES, emptyCounts, Lifecycle, TxScope } from './common.js';
import { DependencyUnavailableError, QueueBusyError } from '../model/unavailable.js';
import { retryable, translate } from './postgres/errors.js';
import { DEFAULT_TIMEOUTS, type Conn, type Fence, type Request, type Timeouts } from './postgres/protocol.js';
import { SyncWorker } from './postgres/syncWorker.js';
import { makeReadTx, type Session } from './postgres/readTx.js';
import { writeOnce } from './postgres/writeTx.js';
import { ScopeCache, type Change } from './postgres/scopeCache.js';
import { HeardVersions } from './postgres/heardVersions.js';
import { KeptValueUsed, UnlockedCache } from './postgres/unlockedCache.js';
import type { CommitNotice } from './postgres/commitNotices.js';
import { encodeKeyLatin1 } from './keyCodec.js';
import { randomUUID } from 'node:crypto';
import type { CollectionName, Key, ReadTx, Store, WriteTx } from './store.js';

export { LeaseLostError } from './postgres/errors.js';

export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  /** Names this store in the notices of its commits (postgres/commitNotices.ts), so that it can tell its own. */
  readonly sender: string;
  /** Runs `fn`; each write transaction it makes commits only while every fence's lease is held with its token. */
  withFences<R>(fences: Fence[], fn: () => R): R;
  /** Another process's commit to a queue, heard (engine/cluster/leases.ts): what this store keeps of it catches up. */
  heard(notice: CommitNotice): void;
  /**
   * Which of these queues had a commit this process neither made nor heard of (postgres/heardVersions.ts), in one
   * round trip; from now on each is counted as seen up to the version it has now (the caller reads it again).
   */
  unheard(queueIds: readonly string[]): string[];
}

export interface PostgresStoreOptions {
  url: string;
  /** Names this process's connections in pg_stat_activity. */
  applicationName?: string;
  /** Bounds on waiting for the database (postgres/protocol.ts: DEFAULT_TIMEOUTS). */
  timeouts?: Partial<Timeouts>;
}

/** Runs of one write transaction that lost a race before the store gives up (503). */
const MAX_ATTEMPTS = 8;

export function openPostgresStore(options: PostgresStoreOptions): PostgresStore {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const worker = new SyncWorker(options.url, options.applicationName ?? `greenline-${process.pid}`, timeouts);
  /**
   * Scopes whose lock another transaction held at this process's last try: their locks are only tried (no wait, which
   * would block the process) until a transaction of this process takes one again.
   */
  const busy = new Set<string>();
  const lockRequest = (scopes: string[]): { locks: string[]; waitMs: number } => ({
    locks: scopes,
    waitMs: scopes.some((scope) => busy.has(scope)) ? 0 : timeouts.busyWaitMs,
  });
  const life = new Lifecycle();
  /** Open transactions per connection: the read connection's is shared by nested reads. */
  const begun: Record<Conn, boolean> = { r: false, w: false };
  let readDepth = 0;
  let fences: Fence[] = [];
  const sender = `${process.pid}-${randomUUID().slice(0, 8)}`;

  const request = (body: Request): unknown => {
    try {
      return worker.call(body);
    } catch (error) {
      throw translate(error);
    }
  };
  const call = (conn: Conn, body: Record<string, unknown>): unknown => {
    const begin = !begun[conn];
    begun[conn] = true;
    return request({ ...body, conn, begin } as never);
  };

  const cache = new ScopeCache();
  const seen = new HeardVersions();
  const unlocked = new UnlockedCache();
  const session: Session = {
    request,
    call,
    lockRequest,
    begun,
    fences: () => fences,
    sender,
    busy,
    cache,
    seen,
    unlocked,
    versions: () => worker.versions,
  };

  return {
    kind: 'postgres',
    sender,
    heard(notice: CommitNotice): void {
      const scope = `queue:${notice.queueId}`;
      if (notice.version === undefined) seen.forget(notice.queueId);
      else seen.saw(notice.queueId, notice.version);
      if (notice.version === undefined || notice.changes === 'all') {
        if (notice.version === undefined) cache.drop(scope);
        else cache.committed(scope, notice.version, 'all');
        return;
      }
      // A key removed is known absent; a key put is known where the notice carries its value, else dropped.
      const values = notice.changes.values;
      const enc = (rest: readonly unknown[]) => encodeKeyLatin1([notice.queueId, ...(rest as Key)]);
      const keys: (Change | readonly [string, string])[] = [
        ...notice.changes.puts.map(([coll, ...rest], i) => {
          const json = values?.[i];
          return typeof json === 'string' ? ([coll, enc(rest), json] as const) : ([coll, enc(rest)] as const);
        }),
        ...notice.changes.removes.map(([coll, ...rest]) => [coll, enc(rest), null] as const),
      ];
      cache.committed(scope, notice.version, keys);
    },
    unheard(queueIds: readonly string[]): string[] {
      if (queueIds.length === 0) return [];
      const scopes = queueIds.map((queueId) => `queue:${queueId}`);
      const rows = this.read(() => call('r', { op: 'versions', scopes })) as [string, number][];
      return seen.behind(new Map(rows.map(([scope, version]) => [scope.slice('queue:'.length), version])));
    },
    withFences<R>(given: Fence[], fn: () => R): R {
      const before = fences;
      fences = [...before, ...given];
      try {
        return fn();
      } finally {
        fences = before;
      }
    },
    read<R>(fn: (tx: ReadTx) => R): R {
      life.begin('read');
      const scope = new TxScope();
      readDepth += 1;
      try {
        return fn(makeReadTx(session, scope, 'r'));
      } finally {
        scope.active = false;
        readDepth -= 1;
        if (readDepth === 0 && begun.r) {
          begun.r = false;
          worker.post({ op: 'end', conn: 'r' });
        }
      }
    },
    write<R>(fn: (tx: WriteTx) => R): R {
      life.begin('write');
      for (let attempt = 1; ; attempt++) {
        let failure: unknown;
        let failed = false;
        try {
          return writeOnce(session, life, fn);
        } catch (error) {
          failure = error;
          failed = true;
          if (error instanceof QueueBusyError) busy.add(error.scope);
        } finally {
          // Ends the run's transaction (a run that only read, or failed; a committed one has ended) and lets its locks go.
          const lost = failed && retryable(failure);
          if (begun.w || lost) {
            begun.w = false;
            worker.post({ op: 'end', conn: 'w' });
          }
        }
        // Failed after using values the process kept (postgres/unlockedCache.ts): once more, reading them.
        if (failure instanceof KeptValueUsed) {
          if (attempt < MAX_ATTEMPTS) continue;
          throw failure.failure;
        }
        if (!retryable(failure)) throw failure;
        if (attempt >= MAX_ATTEMPTS) {
          const message = `the store's database (PostgreSQL) failed the transaction as a conflict ${attempt} times: ${(failure as Error).message}`;
          throw new DependencyUnavailableError('store', message, 1, { cause: failure });
        }
      }
    },
    stats() {
      life.begin('stats');
      const { counts, bytes: size } = request({ op: 'stats' }) as {
        counts: { coll: string; n: number }[];
        bytes: number;
      };
      const entries = emptyCounts();
      for (const { coll, n } of counts)
        if ((COLLECTION_NAMES as string[]).includes(coll)) entries[coll as CollectionName] = n;
      return { sizeBytes: size, entries };
    },
    async close(): Promise<void> {
      life.begin('write');
      life.closed = true;
      await worker.close();
    },
  };
}
