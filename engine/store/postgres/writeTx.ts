/**
 * One run of a write transaction of the PostgreSQL store: it reads through itself (readTx.ts), keeps its changes in an
 * overlay, and when `fn` returns sends them to the worker as one `commit` request, with the locks of the scopes it
 * wrote without reading, its fences and its commit notices.
 */
import { checkCollection, type Lifecycle, toJson, TxScope } from '../common.js';
import { encodeKeyLatin1 } from '../keyCodec.js';
import { latin1, Overlay } from '../overlay.js';
import type { Change } from './scopeCache.js';
import type { CollectionName, Key, StoreSchema, WriteTx } from '../store.js';
import { commitPayloads } from './commitNotices.js';
import { INDEX_COLLECTION, KEPT_STALE, scopeOf } from './queueScope.js';
import { RemoteError } from './syncWorker.js';
import { KeptValueUsed, storeFailure, type Used } from './unlockedCache.js';
import { bytes, makeReadTx, type Session } from './readTx.js';

/** One run of a write transaction (write() runs it again when PostgreSQL fails it as a lost race). */
export function writeOnce<R>(session: Session, life: Lifecycle, fn: (tx: WriteTx) => R): R {
  const scope = new TxScope();
  const overlay = new Overlay();
  const known = new Map<string, boolean>();
  /** Queues whose lock this transaction holds (or asks for with its next request). */
  const locked = new Set<string>();
  /** Queues written to without a read of them first: their locks are taken when committing. */
  const blind = new Set<string>();
  /** The scope of each key written (`collection\0latin1 key`), for its version and the cache. */
  const scopes = new Map<string, string>();
  const wrote = (name: CollectionName, key: Key, enc: string): void => {
    const scope = name === INDEX_COLLECTION ? INDEX_COLLECTION : scopeOf(name, key);
    if (scope !== undefined && !locked.has(scope)) blind.add(scope);
    if (scope !== undefined && scope !== INDEX_COLLECTION) scopes.set(`${name}\u0000${enc}`, scope);
  };
  /** Values read from what the process keeps of keys read without a lock: checked unchanged at commit. */
  const used = new Map<string, Used>();
  const kept = (): Used[] => [...used.values()].filter((value) => value.read === undefined);
  const reads = makeReadTx(session, scope, 'w', overlay, known, locked, used);
  const tx: WriteTx = {
    ...reads,
    put<C extends CollectionName>(name: C, key: Key, value: StoreSchema[C]): void {
      scope.check();
      checkCollection(name);
      const enc = encodeKeyLatin1(key);
      overlay.put(name, enc, toJson(value));
      wrote(name, key, enc);
    },
    remove(name: CollectionName, key: Key): boolean {
      scope.check();
      checkCollection(name);
      const enc = encodeKeyLatin1(key);
      const had = overlay.remove(name, enc, () => reads.stored(name, key));
      wrote(name, key, enc);
      return had;
    },
  };
  life.inWrite = true;
  try {
    const result = fn(tx);
    const puts: { coll: string; key: Uint8Array; json: string }[] = [];
    const removes: { coll: string; key: Uint8Array }[] = [];
    /** Per scope written: its changes, for the cache once committed. */
    const changed = new Map<string, Change[]>();
    for (const [coll, changes] of overlay.collections()) {
      for (const [enc, row] of changes) {
        if (row === null) removes.push({ coll, key: bytes(enc) });
        else puts.push({ coll, key: bytes(enc), json: row.json });
        const written = scopes.get(`${coll}\u0000${enc}`);
        if (written === undefined) continue;
        let list = changed.get(written);
        if (list === undefined) changed.set(written, (list = []));
        list.push([coll, enc, row === null ? null : row.json]);
      }
    }
    if (puts.length > 0 || removes.length > 0) {
      const begin = !session.begun.w;
      session.begun.w = false;
      // Sorted, so that two transactions taking several of the same locks at commit take them in one order.
      const locks = [...blind].filter((scope) => !locked.has(scope)).sort();
      const absent = puts.filter(
        (put) => put.coll === INDEX_COLLECTION && known.get(`${put.coll}\u0000${latin1(put.key)}`) === false,
      );
      session.request({
        op: 'commit',
        begin,
        puts,
        removes,
        fences: session.fences(),
        scopes: [...changed.keys()].sort(),
        // Every other process hears of the queues' changed keys once this commits (postgres/commitNotices.ts).
        notify: commitPayloads(session.sender, puts, removes),
        ...(locks.length === 0 ? {} : session.lockRequest(locks)),
        ...(absent.length === 0 ? {} : { absent: absent.map(({ coll, key }) => ({ coll, key })) }),
        ...(kept().length === 0
          ? {}
          : { expect: kept().map(({ coll, enc, json }) => ({ coll, key: bytes(enc), json })) }),
      });
      // What this process keeps of keys read without a lock takes what it wrote of them.
      for (const put of puts) session.unlocked.keep(put.coll, latin1(put.key), put.json);
      for (const removed of removes) session.unlocked.keep(removed.coll, latin1(removed.key), null);
      // The cache of each scope written takes the changes, as of the version the commit made.
      const versions = session.versions() ?? {};
      for (const [written, changes] of changed) {
        const version = versions[written];
        if (version === undefined) session.cache.drop(written);
        else session.cache.committed(written, version, changes);
        if (written.startsWith('queue:') && version !== undefined) session.seen.saw(written.slice(6), version);
      }
    }
    // This transaction held its scopes' locks: they are waited for again.
    for (const scope of locked) session.busy.delete(scope);
    for (const scope of blind) session.busy.delete(scope);
    return result;
  } catch (error) {
    // What the transaction read of kept keys is read again at its next run (a race it lost may come of it); a kept
    // value found changed is not kept again; a failure after using one may come of it: run again without.
    const stale = error instanceof RemoteError && error.code === KEPT_STALE;
    session.unlocked.drop(used.values(), false);
    if (stale) session.unlocked.drop(kept(), true);
    else if (kept().length > 0 && !storeFailure(error)) throw new KeptValueUsed(error);
    throw error;
  } finally {
    life.inWrite = false;
    scope.active = false;
  }
}
