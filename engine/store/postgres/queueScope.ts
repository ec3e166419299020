/**
 * The scopes of the PostgreSQL store's locks (worker.ts): a write transaction takes the lock of each scope the first
 * time it touches one of its keys, so that what it reads of the scope afterwards is the scope's latest commit and
 * nothing else writes the scope until it ends. A queue is a scope (the collections whose keys start with its id);
 * so is a repository's flaky-test data ([org, repoId, …]), the tokens, the store's meta entries, the webhook
 * deliveries and the device sign-ins. Two keys read without a lock: the queue index (read by every input, written only when a queue is
 * made or deleted — its puts take the index's lock at commit, and a key read as absent must be absent still) and
 * runsBySha (one key per test branch, written with its queue's lock).
 */
import type { CollectionName, Key, ScanOptions } from '../store.js';
import { QUEUE_COLLECTIONS } from '../queueCollections.js';

/** The queue's own record and the collections keyed by its id: all under the queue's lock. */
const QUEUE_SCOPED: ReadonlySet<CollectionName> = new Set<CollectionName>(['queues', ...QUEUE_COLLECTIONS]);

const WHOLE: Partial<Record<CollectionName, string>> = {
  tokens: 'tokens',
  meta: 'meta',
  webhookDeliveries: 'deliveries',
  webhookDeliveryTimes: 'deliveries',
  webhookInbox: 'deliveries',
  deviceCodes: 'devices',
  deviceCodeHashes: 'devices',
  // Outgoing webhooks: one scope (webhookOrgs reads without a lock: a queue transaction asks it, and locking would
  // serialise every queue's transactions; it is written under this scope with the endpoints).
  webhookEndpoints: 'notifications',
  webhookMessages: 'notifications',
  webhookPending: 'notifications',
};

/** The collection whose puts lock at commit, with the check that keys read as absent still are. */
export const INDEX_COLLECTION: CollectionName = 'queueIndex';

/**
 * The scope of a key (or a scan's prefix) of `collection`, if reading it takes a lock. A flaky-test key or prefix
 * shorter than [org, repoId] names no one repository: it takes none.
 */
export function scopeOf(collection: CollectionName, key: Key): string | undefined {
  const whole = WHOLE[collection];
  if (whole !== undefined) return whole;
  const [first, second] = key;
  if (QUEUE_SCOPED.has(collection)) return typeof first === 'string' ? `queue:${first}` : undefined;
  // JSON: a lock's name is PostgreSQL text, which holds no NUL, and the parts are told apart whatever they hold.
  if (collection.startsWith('flaky'))
    return first === undefined || second === undefined ? undefined : `flaky:${JSON.stringify([first, second])}`;
  return undefined;
}

/** The scope a scan stays within, if any. */
export function scopeOfScan(collection: CollectionName, options: ScanOptions | undefined): string | undefined {
  if (WHOLE[collection] !== undefined) return WHOLE[collection];
  return options?.prefix === undefined ? undefined : scopeOf(collection, options.prefix);
}

/** The worker's own code: a key the transaction read as absent was written meanwhile. */
export const STALE_READ = 'GL001';

/** The worker's own code: a value the transaction read from what the process kept (unlockedCache.ts) changed. */
export const KEPT_STALE = 'GL004';

/** Answers that the transaction lost a race and may simply be run again. */
export const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  STALE_READ,
  KEPT_STALE,
]);
