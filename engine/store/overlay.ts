/**
 * A write transaction's changes, kept apart from what is stored until the transaction commits, for the stores that
 * apply them themselves (memory, PostgreSQL): per collection, encoded key → the row written, or null for a removal.
 * The transaction's own reads see them. Encoded keys are held as latin1 strings, whose code units are the
 * encoding's bytes, so `<` on them is byte order.
 */
import type { TextRange } from './keyCodec.js';
import type { CollectionName } from './store.js';

export interface EncodedRow {
  enc: string;
  json: string;
}

export type Pending = EncodedRow | null;

/** An encoded key as a latin1 string. */
export const latin1 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

const inRange = (enc: string, range: TextRange): boolean =>
  (range.lower === undefined || enc >= range.lower) && (range.upper === undefined || enc < range.upper);

export class Overlay {
  private readonly byCollection = new Map<CollectionName, Map<string, Pending>>();

  /** The pending change of a key: a row, null (removed), or undefined (none). */
  get(name: CollectionName, enc: string): Pending | undefined {
    return this.byCollection.get(name)?.get(enc);
  }

  put(name: CollectionName, enc: string, json: string): void {
    this.changes(name).set(enc, { enc, json });
  }

  /** Removes the key; whether it existed, as this transaction sees it (`stored`: whether the store holds it). */
  remove(name: CollectionName, enc: string, stored: () => boolean): boolean {
    const pending = this.get(name, enc);
    const existed = pending === undefined ? stored() : pending !== null;
    this.changes(name).set(enc, null);
    return existed;
  }

  /** The pending changes of the collection within `range`. */
  within(name: CollectionName, range: TextRange): [string, Pending][] {
    const changes = this.byCollection.get(name);
    if (changes === undefined) return [];
    const found: [string, Pending][] = [];
    for (const change of changes) if (inRange(change[0], range)) found.push(change);
    return found;
  }

  /** Every pending change, per collection, for the commit. */
  collections(): Iterable<[CollectionName, Map<string, Pending>]> {
    return this.byCollection;
  }

  private changes(name: CollectionName): Map<string, Pending> {
    let map = this.byCollection.get(name);
    if (map === undefined) this.byCollection.set(name, (map = new Map()));
    return map;
  }
}

/** Stored rows with pending changes applied over them, in ascending key order. */
export function applyPending(rows: readonly EncodedRow[], pending: readonly [string, Pending][]): EncodedRow[] {
  const merged = new Map<string, Pending>(rows.map((row) => [row.enc, row]));
  for (const [enc, row] of pending) merged.set(enc, row);
  const out = [...merged.values()].filter((row): row is EncodedRow => row !== null);
  return out.sort((a, b) => (a.enc < b.enc ? -1 : a.enc > b.enc ? 1 : 0));
}
