/**
 * The operations of an LMDB transaction on the store's lmdb-js databases: gets, scans materialised inside the
 * transaction (results stay valid after it), native counts, and puts and removes that note whether they wrote.
 */
import type { Database, RangeOptions, Transaction } from 'lmdb';
import { checkCollection, checkValue, type TxScope } from './common.js';
import { decodeKey, encodeKey, scanRange } from './keyCodec.js';
import { InvalidKeyError } from './store.js';
import type { CollectionName, Entry, Key, ReadTx, ScanOptions, StoreSchema, WriteTx } from './store.js';

export type Db = Database<unknown, Buffer>;

/** lmdb-js range options for a scan, or null when the range is empty. Bounds are inclusive lower, exclusive upper. */
function rangeOptions(options: ScanOptions | undefined, txn: Transaction | undefined): RangeOptions | null {
  const range = scanRange(options);
  if (!range || options?.limit === 0) return null;
  const opts: RangeOptions = {};
  if (txn) opts.transaction = txn;
  if (options?.limit !== undefined) opts.limit = options.limit;
  if (options?.reverse) {
    // lmdb-js walks from `start` (the high end) down to `end`; flip inclusivity to keep [lower, upper).
    Object.assign(opts, {
      reverse: true,
      start: range.upper,
      end: range.lower,
      exclusiveStart: true,
      inclusiveEnd: true,
    });
  } else {
    Object.assign(opts, { start: range.lower, end: range.upper });
  }
  return opts;
}

/** The read and write operations over `dbs`, one database per collection. */
export function lmdbTxOps(dbs: ReadonlyMap<CollectionName, Db>) {
  const db = (name: CollectionName): Db => {
    checkCollection(name);
    return dbs.get(name) as Db;
  };

  /** Read operations; `txn` is the read snapshot, or undefined inside `transactionSync` (lmdb-js uses the write txn). */
  function makeReadTx(scope: TxScope, txn: Transaction | undefined): ReadTx {
    const getOpts = txn ? { transaction: txn } : undefined;
    return {
      get<C extends CollectionName>(name: C, key: Key): StoreSchema[C] | undefined {
        scope.check();
        const store = db(name);
        return store.get(encodeKey(key), getOpts) as StoreSchema[C] | undefined;
      },
      scan<C extends CollectionName>(name: C, options?: ScanOptions): Iterable<Entry<StoreSchema[C]>> {
        scope.check();
        const store = db(name);
        const opts = rangeOptions(options, txn);
        if (!opts) return [];
        const out: Entry<StoreSchema[C]>[] = [];
        for (const { key, value } of store.getRange(opts)) {
          out.push({ key: decodeKey(key), value: value as StoreSchema[C] });
        }
        return out;
      },
      count(name: CollectionName, options?: ScanOptions): number {
        scope.check();
        const store = db(name);
        const opts = rangeOptions(options, txn);
        if (!opts) return 0;
        // Counted natively, without reading values; lmdb-js's count ignores `limit`, so apply it here.
        const count = store.getKeysCount({ ...opts, limit: undefined });
        return opts.limit === undefined ? count : Math.min(count, opts.limit);
      },
    };
  }

  /** A write transaction's operations (in `transactionSync` or lmdb-js's batch) and whether it wrote. */
  function makeWriteTx(scope: TxScope): { tx: WriteTx; changes: { put: boolean; removed: boolean } } {
    const changes = { put: false, removed: false };
    const tx: WriteTx = {
      ...makeReadTx(scope, undefined),
      put<C extends CollectionName>(name: C, key: Key, value: StoreSchema[C]): void {
        scope.check();
        const store = db(name);
        changes.put = true;
        const enc = encodeKey(key);
        checkValue(value);
        try {
          store.putSync(enc, value);
        } catch (error) {
          // JSON.stringify's TypeError: a cycle or a nested bigint.
          if (error instanceof TypeError) throw new InvalidKeyError(`value is not JSON: ${error.message}`);
          throw error;
        }
      },
      remove(name: CollectionName, key: Key): boolean {
        scope.check();
        const had = db(name).removeSync(encodeKey(key));
        changes.removed ||= had;
        return had;
      },
    };
    return { tx, changes };
  }
  return { makeReadTx, makeWriteTx };
}
