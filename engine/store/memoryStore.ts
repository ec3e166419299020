/**
 * The in-memory store: per collection, a B+ tree of rows (sorted-btree). Rows are ordered by their encoded
 * key (keyCodec) held as a latin1 string, whose code units are the encoding's bytes, so `<` on it is byte order.
 * Values are held as JSON text, so every read parses a fresh copy. A write transaction records its changes in an
 * overlay that its own reads consult; the overlay is applied only when `fn` returns.
 */
import sortedBtree from 'sorted-btree';
import { checkCollection, COLLECTION_NAMES, emptyCounts, Lifecycle, toJson, TxScope } from './common.js';
import { decodeKey, encodeKeyLatin1, scanRangeLatin1 } from './keyCodec.js';
import type { TextRange } from './keyCodec.js';
import { applyPending, Overlay, type EncodedRow } from './overlay.js';
import type { CollectionName, Entry, Key, KeyPart, ReadTx, ScanOptions, Store, StoreSchema, WriteTx } from './store.js';

type Row = EncodedRow;

/**
 * The package is CommonJS with its class as `exports.default`: Node's default import is the exports object, Vite's
 * (the tests) unwraps it to the class.
 */
const loaded = sortedBtree as unknown as typeof sortedBtree | typeof sortedBtree.default;
const BTree: typeof sortedBtree.default = typeof loaded === 'function' ? loaded : loaded.default;

/** A collection: its rows by encoded key, in a B+ tree (sorted-btree), so a write costs log n, not a shift of n rows. */
class Table {
  readonly tree = new BTree<string, Row>();

  get size(): number {
    return this.tree.size;
  }

  get(enc: string): Row | undefined {
    return this.tree.get(enc);
  }

  set(row: Row | null, enc: string): void {
    if (row) this.tree.set(enc, row);
    else this.tree.delete(enc);
  }

  /**
   * The rows in `range`, in key order (or, `reverse`, in reverse), at most `limit` of them: a scan with a limit reads
   * only as many rows as it returns.
   */
  range(range: TextRange, reverse = false, limit = Number.POSITIVE_INFINITY): Row[] {
    const low = range.lower ?? this.tree.minKey();
    if (low === undefined) return [];
    const high = range.upper ?? this.tree.maxKey();
    if (high === undefined || limit <= 0) return [];
    const rows: Row[] = [];
    if (!reverse) {
      if (limit === Number.POSITIVE_INFINITY) {
        this.tree.forRange(low, high, range.upper === undefined, (_key: string, row: Row) => {
          rows.push(row);
        });
      } else {
        // getRange stops once it holds more than `limit` pairs (it may hold one more).
        for (const [, row] of this.tree.getRange(low, high, range.upper === undefined, limit)) {
          if (rows.length >= limit) break;
          rows.push(row);
        }
      }
      return rows;
    }
    for (const [key, row] of this.tree.entriesReversed(high, undefined, range.upper !== undefined)) {
      if (key < low || rows.length >= limit) break;
      rows.push(row);
    }
    return rows;
  }

  rows(): IterableIterator<Row> {
    return this.tree.values();
  }

  clear(): void {
    this.tree.clear();
  }
}

/**
 * An entry whose key and value are decoded when first read: a scan that only wants keys (to remove them) or stops
 * early parses no JSON. Each read of `value` before the first returns the same fresh copy, as a decoded entry would.
 */
function lazyEntry<V>(row: Row): Entry<V> {
  let key: KeyPart[] | undefined;
  let value: V | undefined;
  let parsed = false;
  return {
    get key(): KeyPart[] {
      return (key ??= decodeKey(Buffer.from(row.enc, 'latin1')));
    },
    get value(): V {
      if (!parsed) {
        value = JSON.parse(row.json) as V;
        parsed = true;
      }
      return value as V;
    },
  };
}

export function createMemoryStore(): Store {
  const tables = new Map<CollectionName, Table>(COLLECTION_NAMES.map((name) => [name, new Table()]));
  const life = new Lifecycle();
  const table = (name: CollectionName): Table => tables.get(name) as Table;

  /** Rows in range, in key order, with a write transaction's pending changes applied over the table's. */
  function rowsIn(name: CollectionName, options: ScanOptions | undefined, overlay?: Overlay): Row[] {
    checkCollection(name);
    const range = scanRangeLatin1(options);
    if (!range) return [];
    const reverse = options?.reverse === true;
    const pending = overlay?.within(name, range) ?? [];
    // Without pending changes in range, the table's rows are the answer and the limit stops the walk.
    if (pending.length === 0) return table(name).range(range, reverse, options?.limit);
    const rows = applyPending(table(name).range(range), pending);
    if (reverse) rows.reverse();
    return options?.limit === undefined ? rows : rows.slice(0, options.limit);
  }

  function makeReadTx(scope: TxScope, overlay?: Overlay): ReadTx {
    return {
      get<C extends CollectionName>(name: C, key: Key): StoreSchema[C] | undefined {
        scope.check();
        checkCollection(name);
        const enc = encodeKeyLatin1(key);
        const pending = overlay?.get(name, enc);
        const row = pending === undefined ? table(name).get(enc) : pending;
        return row ? (JSON.parse(row.json) as StoreSchema[C]) : undefined;
      },
      scan<C extends CollectionName>(name: C, options?: ScanOptions): Iterable<Entry<StoreSchema[C]>> {
        scope.check();
        return rowsIn(name, options, overlay).map((row) => lazyEntry<StoreSchema[C]>(row));
      },
      count(name: CollectionName, options?: ScanOptions): number {
        scope.check();
        return rowsIn(name, options, overlay).length;
      },
    };
  }

  return {
    kind: 'memory',
    read<R>(fn: (tx: ReadTx) => R): R {
      life.begin('read');
      const scope = new TxScope();
      try {
        return fn(makeReadTx(scope));
      } finally {
        scope.active = false;
      }
    },
    write<R>(fn: (tx: WriteTx) => R): R {
      life.begin('write');
      const scope = new TxScope();
      const overlay = new Overlay();
      const reader = makeReadTx(scope, overlay);
      const tx: WriteTx = {
        ...reader,
        put<C extends CollectionName>(name: C, key: Key, value: StoreSchema[C]): void {
          scope.check();
          checkCollection(name);
          const enc = encodeKeyLatin1(key);
          overlay.put(name, enc, toJson(value));
        },
        remove(name: CollectionName, key: Key): boolean {
          scope.check();
          checkCollection(name);
          const enc = encodeKeyLatin1(key);
          return overlay.remove(name, enc, () => table(name).get(enc) !== undefined);
        },
      };
      life.inWrite = true;
      try {
        const result = fn(tx);
        for (const [name, changes] of overlay.collections())
          for (const [enc, row] of changes) table(name).set(row, enc);
        return result;
      } finally {
        life.inWrite = false;
        scope.active = false;
      }
    },
    stats() {
      life.begin('stats');
      const entries = emptyCounts();
      let sizeBytes = 0;
      for (const [name, t] of tables) {
        entries[name] = t.size;
        for (const row of t.rows()) sizeBytes += row.enc.length + Buffer.byteLength(row.json);
      }
      return { sizeBytes, entries };
    },
    async close(): Promise<void> {
      life.begin('write');
      life.closed = true;
      for (const t of tables.values()) t.clear();
    },
  };
}
