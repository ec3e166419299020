/** The version of the stored data this build reads and writes, checked (or written, in a new store) on opening. */
import type { Store } from './store/store.js';

export const STORE_FORMAT = 2;

export class StoreFormatError extends Error {}

/** Writes the format into a new store; throws StoreFormatError when the store holds another. */
export function checkStoreFormat(store: Store): void {
  store.write((tx) => {
    const format = tx.get('meta', ['format']);
    if (format === undefined) tx.put('meta', ['format'], STORE_FORMAT);
    else if (format !== STORE_FORMAT) {
      throw new StoreFormatError(`the data folder holds store format ${String(format)}; this build reads ${STORE_FORMAT}`);
    }
  });
}
