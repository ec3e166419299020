/**
 * Copies every entry of one store into another, whatever their kinds (LMDB into PostgreSQL for `greenline migrate`,
 * PostgreSQL into an LMDB file for `greenline backup`, and back for `greenline restore`). The source is read in one
 * read transaction, so the copy is one consistent snapshot even while a service writes to it; the target is written
 * in batches, and must hold nothing yet (a copy never merges two stores).
 */
import { COLLECTION_NAMES } from './common.js';
import type { CollectionName, Key, Store } from './store.js';

export class StoreCopyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreCopyError';
  }
}

const BATCH = 2000;

export interface CopyProgress {
  collection: CollectionName;
  copied: number;
}

/** Returns the number of entries copied per collection. */
export function copyStore(
  from: Store,
  to: Store,
  onProgress?: (progress: CopyProgress) => void,
): Record<string, number> {
  const held = to.read((tx) => COLLECTION_NAMES.filter((name) => tx.count(name, { limit: 1 }) > 0));
  if (held.length > 0)
    throw new StoreCopyError(`the target store is not empty (it holds ${held.join(', ')}); copy into an empty one`);
  const counts: Record<string, number> = {};
  from.read((tx) => {
    for (const collection of COLLECTION_NAMES) {
      let copied = 0;
      let start: Key | undefined;
      for (;;) {
        const batch = [
          ...tx.scan(collection, {
            ...(start === undefined ? {} : { start }),
            limit: BATCH + (start === undefined ? 0 : 1),
          }),
        ];
        // After the first batch, `start` is the last key copied: skip it.
        const fresh = start === undefined ? batch : batch.slice(1);
        if (fresh.length === 0) break;
        to.write((write) => {
          for (const { key, value } of fresh) write.put(collection, key, value as never);
        });
        copied += fresh.length;
        start = fresh[fresh.length - 1]?.key;
        onProgress?.({ collection, copied });
        if (fresh.length < BATCH) break;
      }
      counts[collection] = copied;
    }
  });
  return counts;
}
