/**
 * Which queue a key belongs to, for the PostgreSQL store's per-queue locks (worker.ts): the collections whose keys
 * start with the queue id hold one queue's state, and a write transaction takes that queue's lock the first time it
 * touches one of them. Other collections (tokens, the queue index, flaky-test results, deliveries) take no queue
 * lock: PostgreSQL's serialisable isolation keeps their read-modify-writes correct (a conflict fails one
 * transaction, which the store runs again).
 */
import type { CollectionName, Key, ScanOptions } from '../store.js';

const QUEUE_COLLECTIONS: ReadonlySet<CollectionName> = new Set<CollectionName>([
  'queues',
  'pullRequests',
  'timeline',
  'testRuns',
  'actors',
  'events',
  'timers',
  'outbox',
  'impactedTargets',
  'impactedTargetShas',
  'metricsLog',
  'metricsPrs',
  'metricsTotals',
  'mergedHeads',
]);

/** The queue id a key of `collection` belongs to, if it is a queue's. */
export function queueOfKey(collection: CollectionName, key: Key): string | undefined {
  const first = key[0];
  return QUEUE_COLLECTIONS.has(collection) && typeof first === 'string' ? first : undefined;
}

/** The queue a scan stays within (its prefix names one), if any. */
export function queueOfScan(collection: CollectionName, options: ScanOptions | undefined): string | undefined {
  return options?.prefix === undefined ? undefined : queueOfKey(collection, options.prefix);
}

/** The worker's own code: the transaction waited for a queue lock after its snapshot was taken. */
export const STALE_SNAPSHOT = 'GL001';

/** Answers that the transaction lost a race and may simply be run again. */
export const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  STALE_SNAPSHOT,
]);
