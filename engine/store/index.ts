export type {
  CollectionName,
  Entry,
  Key,
  KeyPart,
  ReadTx,
  ScanOptions,
  Store,
  StoreSchema,
  StoreStats,
  WriteTx,
} from './store.js';
export { InvalidKeyError, StoreClosedError } from './store.js';
export { createMemoryStore } from './memoryStore.js';
export { openLmdbStore } from './lmdbStore.js';
export type { LmdbStoreOptions } from './lmdbStore.js';
