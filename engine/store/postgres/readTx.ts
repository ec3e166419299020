/**
 * A read transaction of the PostgreSQL store, or the reads of a write transaction: every read is one request to the
 * worker (postgres/worker.ts); in a write transaction the first read of a scope takes its lock with it, and what the
 * transaction wrote (its overlay) is seen over what is stored.
 */
import { checkCollection, type TxScope } from '../common.js';
import { byteRange, decodeKey, encodeKey, scanRangeLatin1 } from '../keyCodec.js';
import { applyPending, latin1, type Overlay } from '../overlay.js';
import type { CollectionName, Entry, Key, ReadTx, ScanOptions, StoreSchema } from '../store.js';
import type { Conn, Fence, Request, Row } from './protocol.js';
import { scopeOf, scopeOfScan } from './queueScope.js';

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
}

export const bytes = (enc: string): Buffer => Buffer.from(enc, 'latin1');

/**
 * `known`: in a write transaction, whether keys read in it exist (its transaction holds the write lock, so they
 * stay as read), so that `remove` need not ask again.
 */
export function makeReadTx(session: Session, scope: TxScope, conn: Conn, overlay?: Overlay, known?: Map<string, boolean>, locked?: Set<string>): ReadTx {
  /** In a write transaction: the lock of the queue `queueId` to take with this request, unless it is held. */
  const lock = (queueId: string | undefined): { locks?: string[]; waitMs?: number } => {
    if (locked === undefined || queueId === undefined || locked.has(queueId)) return {};
    locked.add(queueId);
    return session.lockRequest([queueId]);
  };
  return {
    get<C extends CollectionName>(name: C, key: Key): StoreSchema[C] | undefined {
      scope.check();
      checkCollection(name);
      const enc = encodeKey(key);
      const pending = overlay?.get(name, latin1(enc));
      let json: string | undefined;
      if (pending === undefined) {
        json = session.call(conn, { op: 'get', coll: name, key: enc, ...lock(scopeOf(name, key)) }) as string | undefined;
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
      let rows = (session.call(conn, { op: 'scan', coll: name, range, reverse, ...(limit === undefined ? {} : { limit }), ...lock(scopeOfScan(name, options)) }) as Row[]).map(
        (row) => ({
          enc: latin1(row.k),
          json: row.v,
        }),
      );
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
      let count = session.call(conn, { op: 'count', coll: name, range: byteRange(text), ...lock(scopeOfScan(name, options)) }) as number;
      const pending = overlay?.within(name, text) ?? [];
      if (pending.length > 0) {
        const stored = new Set((session.call(conn, { op: 'exist', coll: name, keys: pending.map(([enc]) => bytes(enc)) }) as Uint8Array[]).map(latin1));
        for (const [enc, row] of pending) count += row === null ? -Number(stored.has(enc)) : Number(!stored.has(enc));
      }
      return options?.limit === undefined ? count : Math.min(count, options.limit);
    },
  };
}
