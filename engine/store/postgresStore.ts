/**
 * The PostgreSQL store (GREENLINE_STORE=postgres://…), for several Greenline processes sharing one database.
 *
 * The Store interface is synchronous (the engine runs each input as one synchronous transaction) and `pg` is not, so
 * the client runs on a worker thread and every call blocks on it (postgres/syncWorker.ts, postgres/worker.ts).
 * A read is one REPEATABLE READ snapshot, begun with its first call and ended without a round trip. A write is one
 * transaction that reads through itself, taking the lock of each scope (a queue, a repository's flaky tests…) the
 * first time it touches one of its keys (postgres/queueScope.ts), so the inputs of one queue are serialised and those
 * of different queues commit concurrently, across processes; it keeps its changes in an overlay, as the memory store
 * does; when `fn` returns they go to the worker as one request that writes them, checks the fencing tokens given with
 * `withFences`, and commits. A transaction that lost a race (a deadlock between two scopes' locks, a queue made
 * meanwhile under a key it read as absent) is run again, `fn` and all, up to MAX_ATTEMPTS times: `fn` has no effect
 * outside its transaction.
 */
import { checkCollection, COLLECTION_NAMES, emptyCounts, Lifecycle, toJson, TxScope } from './common.js';
import { byteRange, decodeKey, encodeKey, encodeKeyLatin1, scanRangeLatin1 } from './keyCodec.js';
import { applyPending, latin1, Overlay } from './overlay.js';
import { DependencyUnavailableError, QueueBusyError } from '../model/unavailable.js';
import { retryable, translate } from './postgres/errors.js';
import { DEFAULT_TIMEOUTS, type Conn, type Fence, type Row, type Timeouts } from './postgres/protocol.js';
import { SyncWorker } from './postgres/syncWorker.js';
import { INDEX_COLLECTION, scopeOf, scopeOfScan } from './postgres/queueScope.js';
import { commitPayloads } from './postgres/commitNotices.js';
import { randomUUID } from 'node:crypto';
import type { CollectionName, Entry, Key, ReadTx, ScanOptions, Store, StoreSchema, WriteTx } from './store.js';

export { LeaseLostError } from './postgres/errors.js';

export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  /** Names this store in the notices of its commits (postgres/commitNotices.ts), so that it can tell its own. */
  readonly sender: string;
  /** Runs `fn`; each write transaction it makes commits only while every fence's lease is held with its token. */
  withFences<R>(fences: Fence[], fn: () => R): R;
}

export interface PostgresStoreOptions {
  url: string;
  /** Names this process's connections in pg_stat_activity. */
  applicationName?: string;
  /** Bounds on waiting for the database (postgres/protocol.ts: DEFAULT_TIMEOUTS). */
  timeouts?: Partial<Timeouts>;
}

const bytes = (enc: string): Buffer => Buffer.from(enc, 'latin1');

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
  const lockRequest = (scopes: string[]): { locks: string[]; waitMs: number } => ({ locks: scopes, waitMs: scopes.some((scope) => busy.has(scope)) ? 0 : timeouts.busyWaitMs });
  const life = new Lifecycle();
  /** Open transactions per connection: the read connection's is shared by nested reads. */
  const begun: Record<Conn, boolean> = { r: false, w: false };
  let readDepth = 0;
  let fences: Fence[] = [];
  const sender = `${process.pid}-${randomUUID().slice(0, 8)}`;

  const request = (body: Parameters<SyncWorker['call']>[0]): unknown => {
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

  /**
   * `known`: in a write transaction, whether keys read in it exist (its transaction holds the write lock, so they
   * stay as read), so that `remove` need not ask again.
   */
  function makeReadTx(scope: TxScope, conn: Conn, overlay?: Overlay, known?: Map<string, boolean>, locked?: Set<string>): ReadTx {
    /** In a write transaction: the lock of the queue `queueId` to take with this request, unless it is held. */
    const lock = (queueId: string | undefined): { locks?: string[]; waitMs?: number } => {
      if (locked === undefined || queueId === undefined || locked.has(queueId)) return {};
      locked.add(queueId);
      return lockRequest([queueId]);
    };
    return {
      get<C extends CollectionName>(name: C, key: Key): StoreSchema[C] | undefined {
        scope.check();
        checkCollection(name);
        const enc = encodeKey(key);
        const pending = overlay?.get(name, latin1(enc));
        let json: string | undefined;
        if (pending === undefined) {
          json = call(conn, { op: 'get', coll: name, key: enc, ...lock(scopeOf(name, key)) }) as string | undefined;
          known?.set(`${name}\u0000${latin1(enc)}`, json !== undefined);
        } else {
          json = pending?.json;
        }
        return json === undefined ? undefined : (JSON.parse(json) as StoreSchema[C]);
      },
      scan<C extends CollectionName>(name: C, options?: ScanOptions): Iterable<Entry<StoreSchema[C]>> {
        scope.check();
        checkCollection(name);
        const text = scanRangeLatin1(options);
        if (!text || options?.limit === 0) return [];
        const range = byteRange(text);
        const pending = overlay?.within(name, text) ?? [];
        const reverse = options?.reverse === true;
        // Each pending change can hide at most one stored row: that many more rows are enough to fill the limit.
        const limit = options?.limit === undefined ? undefined : options.limit + pending.length;
        let rows = (call(conn, { op: 'scan', coll: name, range, reverse, ...(limit === undefined ? {} : { limit }), ...lock(scopeOfScan(name, options)) }) as Row[]).map((row) => ({
          enc: latin1(row.k),
          json: row.v,
        }));
        for (const row of rows) known?.set(`${name}\u0000${row.enc}`, true);
        if (pending.length > 0) {
          rows = applyPending(rows, pending);
          if (reverse) rows.reverse();
        }
        if (options?.limit !== undefined) rows = rows.slice(0, options.limit);
        return rows.map((row) => ({ key: decodeKey(bytes(row.enc)), value: JSON.parse(row.json) as StoreSchema[C] }));
      },
      count(name: CollectionName, options?: ScanOptions): number {
        scope.check();
        checkCollection(name);
        const text = scanRangeLatin1(options);
        if (!text || options?.limit === 0) return 0;
        let count = call(conn, { op: 'count', coll: name, range: byteRange(text), ...lock(scopeOfScan(name, options)) }) as number;
        const pending = overlay?.within(name, text) ?? [];
        if (pending.length > 0) {
          const stored = new Set((call(conn, { op: 'exist', coll: name, keys: pending.map(([enc]) => bytes(enc)) }) as Uint8Array[]).map(latin1));
          for (const [enc, row] of pending) count += row === null ? -Number(stored.has(enc)) : Number(!stored.has(enc));
        }
        return options?.limit === undefined ? count : Math.min(count, options.limit);
      },
    };
  }

  /** One run of a write transaction (write() runs it again when PostgreSQL fails it as a lost race). */
  function writeOnce<R>(fn: (tx: WriteTx) => R): R {
    const scope = new TxScope();
    const overlay = new Overlay();
    const known = new Map<string, boolean>();
    /** Queues whose lock this transaction holds (or asks for with its next request). */
    const locked = new Set<string>();
    const lockFor = (queueId: string | undefined): { locks?: string[]; waitMs?: number } => {
      if (queueId === undefined || locked.has(queueId)) return {};
      locked.add(queueId);
      return lockRequest([queueId]);
    };
    /** Queues written to without a read of them first: their locks are taken when committing. */
    const blind = new Set<string>();
    const wrote = (name: CollectionName, key: Key): void => {
      const scope = name === INDEX_COLLECTION ? INDEX_COLLECTION : scopeOf(name, key);
      if (scope !== undefined && !locked.has(scope)) blind.add(scope);
    };
    const tx: WriteTx = {
      ...makeReadTx(scope, 'w', overlay, known, locked),
      put<C extends CollectionName>(name: C, key: Key, value: StoreSchema[C]): void {
        scope.check();
        checkCollection(name);
        const enc = encodeKeyLatin1(key);
        overlay.put(name, enc, toJson(value));
        wrote(name, key);
      },
      remove(name: CollectionName, key: Key): boolean {
        scope.check();
        checkCollection(name);
        const enc = encodeKey(key);
        const queueId = scopeOf(name, key);
        const stored = (): boolean => known.get(`${name}\u0000${latin1(enc)}`) ?? (call('w', { op: 'exist', coll: name, keys: [enc], ...lockFor(queueId) }) as unknown[]).length > 0;
        const had = overlay.remove(name, latin1(enc), stored);
        wrote(name, key);
        return had;
      },
    };
    life.inWrite = true;
    try {
      const result = fn(tx);
      const puts: { coll: string; key: Uint8Array; json: string }[] = [];
      const removes: { coll: string; key: Uint8Array }[] = [];
      for (const [coll, changes] of overlay.collections()) {
        for (const [enc, row] of changes) {
          if (row === null) removes.push({ coll, key: bytes(enc) });
          else puts.push({ coll, key: bytes(enc), json: row.json });
        }
      }
      if (puts.length > 0 || removes.length > 0) {
        const begin = !begun.w;
        begun.w = false;
        // Sorted, so that two transactions taking several of the same locks at commit take them in one order.
        const locks = [...blind].filter((scope) => !locked.has(scope)).sort();
        const absent = puts.filter((put) => put.coll === INDEX_COLLECTION && known.get(`${put.coll}\u0000${latin1(put.key)}`) === false);
        request({
          op: 'commit',
          begin,
          puts,
          removes,
          fences,
          // Every other process hears of the queues' changed keys once this commits (postgres/commitNotices.ts).
          notify: commitPayloads(sender, puts, removes),
          ...(locks.length === 0 ? {} : lockRequest(locks)),
          ...(absent.length === 0 ? {} : { absent: absent.map(({ coll, key }) => ({ coll, key })) }),
        });
      }
      // This transaction held its scopes' locks: they are waited for again.
      for (const scope of locked) busy.delete(scope);
      for (const scope of blind) busy.delete(scope);
      return result;
    } finally {
      life.inWrite = false;
      scope.active = false;
    }
  }

  return {
    kind: 'postgres',
    sender,
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
        return fn(makeReadTx(scope, 'r'));
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
          return writeOnce(fn);
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
        if (!retryable(failure)) throw failure;
        if (attempt >= MAX_ATTEMPTS) {
          const message = `the store's database (PostgreSQL) failed the transaction as a conflict ${attempt} times: ${(failure as Error).message}`;
          throw new DependencyUnavailableError('store', message, 1, { cause: failure });
        }
      }
    },
    stats() {
      life.begin('stats');
      const { counts, bytes: size } = request({ op: 'stats' }) as { counts: { coll: string; n: number }[]; bytes: number };
      const entries = emptyCounts();
      for (const { coll, n } of counts) if ((COLLECTION_NAMES as string[]).includes(coll)) entries[coll as CollectionName] = n;
      return { sizeBytes: size, entries };
    },
    async close(): Promise<void> {
      life.begin('write');
      life.closed = true;
      await worker.close();
    },
  };
}
