/**
 * What opening a store checks and prepares, before anything is served: the version of the stored data this build
 * reads and writes (written into a new store), and the store-kept secrets made now rather than at their first use
 * (so that a read never writes, and a full store still answers). A store that holds all of it is only read: a full
 * store opens read-only instead of failing.
 */
import { createTokenSecret, hasTokenSecret } from './flaky/pageToken.js';
import { ENDED_INDEX_COMPLETE } from './history/endedIndex.js';
import { StorageFullError, type Store } from './store/store.js';

export const STORE_FORMAT = 2;

/** Where stores before this build kept the dashboard's session key: removed at start (it now lives in a key file). */
const LEGACY_SESSION_KEY = ['dashboardSessionKey'];

export class StoreFormatError extends Error {}

/** Writes the format into a new store; throws StoreFormatError when the store holds another. */
export function checkStoreFormat(
  store: Store,
  onWarning: (message: string) => void = (message) => console.warn(`greenline: ${message}`),
): void {
  const found = store.read((tx) => ({
    format: tx.get('meta', ['format']),
    legacyKey: tx.get('meta', LEGACY_SESSION_KEY) !== undefined,
    tokenSecret: hasTokenSecret(tx),
  }));
  if (found.format !== undefined && found.format !== STORE_FORMAT) {
    throw new StoreFormatError(
      `the data folder holds store format ${String(found.format)}; this build reads ${STORE_FORMAT}`,
    );
  }
  // A session key from a store of an earlier build: sessions are signed with the key file now, and a key left here
  // would be in every backup. Removing it is never refused, even by a full store.
  if (found.legacyKey) store.write((tx) => void tx.remove('meta', LEGACY_SESSION_KEY));
  if (found.format !== undefined && found.tokenSecret) return;
  try {
    store.write((tx) => {
      if (tx.get('meta', ['format']) === undefined) {
        tx.put('meta', ['format'], STORE_FORMAT);
        // A new store: the index of ended PRs is complete from the start (nothing to fill in).
        if (tx.count('queues', { limit: 1 }) === 0) tx.put('meta', ENDED_INDEX_COMPLETE, true);
      }
      if (!hasTokenSecret(tx)) createTokenSecret(tx);
    });
  } catch (error) {
    // A store of an earlier build, full: it opens read-only; listings sign their page tokens with a key of this
    // process until the secret can be made (pageToken.ts).
    if (!(error instanceof StorageFullError) || found.format === undefined) throw error;
    onWarning(
      `the store is full, so its page-token secret could not be made; page tokens last until a restart (${error.message})`,
    );
  }
}
