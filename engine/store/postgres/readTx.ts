/**
 * A read transaction of the PostgreSQL store, or the reads of a write transaction: every read is one request to the
 * worker (postgres/worker.ts); in a write transaction the first read of a scope takes its lock with it, and what the
 * transaction wrote (its overlay) is seen over what is stored.
 */
import { checkCollection, type TxScope } from '../common.js';
import { byteRange, decodeKey, encodeKey, scanRangeLatin1, type TextRange } from '../keyCodec.js';
import { applyPending, latin1, type Overlay } from '../overlay.js';
import type { CollectionName, Entry, Key, ReadTx, ScanOptions, StoreSchema } from '../store.js';
import type { Conn, Fence, Request, Row } from './protocol.js';
import { scopeOf, scopeOfScan } from './queueScope.js';
import type { ScopeCache } from './scopeCache.js';
import type { HeardVersions } from './heardVersions.js';
import type { UnlockedCache, Used } from './unlockedCache.js';

/** What the transactions of one store share: its worker, the state of its connections, its fences. */
export interface Session {
  /** One request, blocking until its answer; errors translated (errors.ts). */
  request(body: Request): unknown;
  /** A request on a connection's transaction, which it begins if none is open. */
  call(conn: Conn, body: Record<string, unknown>): unknown;
  /** The lock request for scopes: waited for briefly, or only tried while the scope was busy at the last try. */
  lockRequest(scopes: string[]): { locks: string[]; waitMs: number };
  /** Open transactions per connection: the read connection's is shared by nested reads. */
  begun: Record<Conn, boolean>;
  /** The fences of the writes made now (withFences). */
  fences(): Fence[];
  /** Names the store in its commit notices. */
  sender: string;
  /** Scopes whose lock another transaction held at the last try. */
  busy: Set<string>;
  /** What this process knows of the scopes it locked lately (scopeCache.ts). */
  cache: ScopeCache;
  /** The keys read without a lock that the process keeps (unlockedCache.ts). */
  unlocked: UnlockedCache;
  /** The versions of each queue's commits this process made or heard (heardVersions.ts). */
  seen: HeardVersions;
  /** The versions of scopes the last request's answer gave (scopes it locked, or committed). */
  versions(): Record<string, number> | undefined;
}

export const bytes = (enc: string): Buffer => Buffer.from(enc, 'latin1');

/**
 * `known`: in a write transaction, whether keys read in it exist (its transaction holds the write lock, so they
 * stay as read), so that `remove` need not ask again.
 */
/** A transaction's reads; `stored`: whether a key is stored (read through the cache in a write transaction). */
export type Reads = ReadTx & { stored(name: CollectionName, key: Key): boolean };

export function makeReadTx(
  session: Session,
  scope: TxScope,
  conn: Conn,
  overlay?: Overlay,
  known?: Map<string, boolean>,
  locked?: Set<string>,
  used?: Map<string, Used>,
): Reads {
  /** In a write transaction: the scopes it holds whose cache is of the version it read with their locks. */
  const current = new Set<string>();
  /** In a write transaction: the lock of the scope to take with this request, unless it is held. */
  const lock = (lockScope: string | undefined): { locks?: string[]; waitMs?: number } => {
    if (locked === undefined || lockScope === undefined || locked.has(lockScope)) return {};
    locked.add(lockScope);
    return session.lockRequest([lockScope]);
  };
  /** A request of the transaction; the versions of the scopes it locked say which of their caches are current. */
  const ask = (body: Record<string, unknown>): unknown => {
    const value = session.call(conn, body);
    for (const [locked, version] of Object.entries(session.versions() ?? {})) {
      session.cache.locked(locked, version);
      current.add(locked);
    }
    return value;
  };
  /** The scope whose cache serves a read of the write transaction, if any. */
  const cachedIn = (readScope: string | undefined): string | undefined =>
    locked !== undefined && readScope !== undefined && current.has(readScope) ? readScope : undefined;
  const rangeId = (op: string, name: string, span: TextRange, more: string): string =>
    `${op}\u0000${name}\u0000${span.lower ?? ''}\u0000${span.upper ?? '\uffff'}\u0000${more}`;
  return {
    stored(name: CollectionName, key: Key): boolean {
      const enc = encodeKey(key);
      const text = latin1(enc);
      const wasRead = known?.get(`${name}\u0000${text}`);
      if (wasRead !== undefined) return wasRead;
      const keyScope = scopeOf(name, key);
      const hit = cachedIn(keyScope) === undefined ? undefined : session.cache.key(keyScope as string, name, text);
      if (hit !== undefined) return hit !== null;
      const found = (ask({ op: 'exist', coll: name, keys: [enc], ...lock(keyScope) }) as Uint8Array[]).length > 0;
      known?.set(`${name}\u0000${text}`, found);
      return found;
    },
    get<C extends CollectionName>(name: C, key: Key): StoreSchema[C] | undefined {
      scope.check();
      checkCollection(name);
      const enc = encodeKey(key);
      const text = latin1(enc);
      const pending = overlay?.get(name, text);
      let json: string | undefined;
      if (pending === undefined) {
        const keyScope = scopeOf(name, key);
        const hit = cachedIn(keyScope) === undefined ? undefined : session.cache.key(keyScope as string, name, text);
        // In a write transaction, a key read without a lock that the process keeps: checked at commit (unlockedCache.ts).
        const kept = used !== undefined && keyScope === undefined && session.unlocked.keeps(name, text);
        const before = kept ? used?.get(`${name}\u0000${text}`) : undefined;
        const unlocked = before !== undefined ? before.json : kept ? session.unlocked.get(name, text) : undefined;
        if (hit !== undefined) json = hit ?? undefined;
        else if (unlocked !== undefined) {
          json = unlocked ?? undefined;
          if (before === undefined) used?.set(`${name}\u0000${text}`, { coll: name, enc: text, json: unlocked });
        } else {
          json = ask({ op: 'get', coll: name, key: enc, ...lock(keyScope) }) as string | undefined;
          const into = cachedIn(keyScope);
          if (into !== undefined) session.cache.keepKey(into, name, text, json ?? null);
          if (kept) {
            session.unlocked.keep(name, text, json ?? null);
            used?.set(`${name}\u0000${text}`, { coll: name, enc: text, json: json ?? null, read: true });
          }
        }
        known?.set(`${name}\u0000${text}`, json !== undefined);
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
      const scanScope = scopeOfScan(name, options);
      const id = rangeId('scan', name, text, `${reverse}\u0000${limit ?? ''}`);
      let rows =
        cachedIn(scanScope) === undefined
          ? undefined
          : (session.cache.ranged(scanScope as string, id) as { enc: string; json: string }[] | undefined);
      if (rows === undefined) {
        const request = {
          op: 'scan',
          coll: name,
          range,
          reverse,
          ...(limit === undefined ? {} : { limit }),
          ...lock(scanScope),
        };
        rows = (ask(request) as Row[]).map((row) => ({ enc: latin1(row.k), json: row.v }));
        const into = cachedIn(scanScope);
        if (into !== undefined) session.cache.keepRanged(into, id, name, text, rows, rows.length);
      }
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
      const countScope = scopeOfScan(name, options);
      const id = rangeId('count', name, text, '');
      let count =
        cachedIn(countScope) === undefined
          ? undefined
          : (session.cache.ranged(countScope as string, id) as number | undefined);
      if (count === undefined) {
        count = ask({ op: 'count', coll: name, range: byteRange(text), ...lock(countScope) }) as number;
        const into = cachedIn(countScope);
        if (into !== undefined) session.cache.keepRanged(into, id, name, text, count, 0);
      }
      const pending = overlay?.within(name, text) ?? [];
      if (pending.length > 0) {
        const stored = new Set(
          (
            session.call(conn, { op: 'exist', coll: name, keys: pending.map(([enc]) => bytes(enc)) }) as Uint8Array[]
          ).map(latin1),
        );
        for (const [enc, row] of pending) count += row === null ? -Number(stored.has(enc)) : Number(!stored.has(enc));
      }
      return options?.limit === undefined ? count : Math.min(count, options.limit);
    },
  };
}
