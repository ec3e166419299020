/** Pieces both store implementations share: the collection list, value checks, transaction lifetime guards. */
import { InvalidKeyError, StoreClosedError } from './store.js';
import type { CollectionName } from './store.js';

/** Every collection of StoreSchema. Typed as a record so a collection added to the schema must be added here too. */
const COLLECTIONS: Record<CollectionName, true> = {
  meta: true,
  tokens: true,
  queues: true,
  queueIndex: true,
  pullRequests: true,
  timeline: true,
  testRuns: true,
  runsBySha: true,
  actors: true,
  events: true,
  timers: true,
  outbox: true,
  impactedTargets: true,
  impactedTargetShas: true,
  metricsLog: true,
  metricsPrs: true,
  metricsTotals: true,
  flakyRepos: true,
  flakyUploads: true,
  flakyUploadKeys: true,
  flakyTests: true,
  flakyCommits: true,
  flakyShas: true,
  flakyFailures: true,
  flakyMembership: true,
  webhookDeliveries: true,
  webhookDeliveryTimes: true,
  webhookInbox: true,
  mergedHeads: true,
  deviceCodes: true,
  deviceCodeHashes: true,
  endedPullRequests: true,
  estimateSamples: true,
  estimateScores: true,
  webhookEndpoints: true,
  webhookOrgs: true,
  webhookMessages: true,
  webhookPending: true,
};
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];

export function checkCollection(name: unknown): asserts name is CollectionName {
  if (typeof name !== 'string' || !Object.hasOwn(COLLECTIONS, name)) {
    throw new InvalidKeyError(`unknown collection ${String(name)}`);
  }
}

export function emptyCounts(): Record<CollectionName, number> {
  const counts = {} as Record<CollectionName, number>;
  for (const name of COLLECTION_NAMES) counts[name] = 0;
  return counts;
}

/**
 * Rejects a value JSON cannot represent at the top level (undefined, functions, symbols, bigints, NaN, ±Infinity).
 * Nested values follow JSON.stringify: an undefined property is dropped, as it would be over the wire.
 */
export function checkValue(value: unknown): void {
  const type = typeof value;
  if (value === undefined || type === 'function' || type === 'symbol' || type === 'bigint') {
    throw new InvalidKeyError(`a ${type} is not a JSON value`);
  }
  if (type === 'number' && !Number.isFinite(value)) throw new InvalidKeyError(`${String(value)} is not a JSON value`);
}

/** Serialises `value`; a value JSON.stringify rejects (a cycle, a nested bigint) is an InvalidKeyError. */
export function toJson(value: unknown): string {
  checkValue(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidKeyError(`value is not JSON: ${(error as Error).message}`);
  }
  if (json === undefined) throw new InvalidKeyError('value is not JSON');
  return json;
}

/** Tracks whether a store is closed and whether a write transaction is running, for the checks every call makes. */
export class Lifecycle {
  closed = false;
  inWrite = false;

  /** Throws unless a new read or write may begin now. */
  begin(kind: 'read' | 'write' | 'stats'): void {
    if (this.closed) throw new StoreClosedError();
    if (this.inWrite) throw new Error(`store.${kind} was called inside a write transaction`);
  }
}

/** Guards a transaction object against use after its `read`/`write` call returned. */
export class TxScope {
  active = true;

  check(): void {
    if (!this.active) throw new Error('the transaction has ended; use the store inside read/write callbacks only');
  }
}
