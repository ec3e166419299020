/**
 * The store: the only place Greenline keeps state. The engine talks to this interface; the service runs it on LMDB
 * (or PostgreSQL, for several processes: postgresStore.ts),
 * tests and the simulator may run it in memory. Every implementation passes one conformance suite
 * (`test/engine/store.conformance.ts`).
 *
 * Model: named collections of JSON values under ordered tuple keys. A key is a non-empty array of parts; each part
 * is a string (no NUL characters) or a non-negative safe integer. Within one collection, keys are ordered part by
 * part: at equal prefixes a shorter key sorts first, numbers sort numerically, strings sort by their UTF-8 bytes,
 * and every number sorts before every string. Values are plain JSON (objects, arrays, strings, finite numbers,
 * booleans, null); what is read back is equal to what was written, never the same object.
 */

import type {
  FlakyCommitRecord,
  FlakyFailureRecord,
  FlakyMembershipRecord,
  FlakyRepoRecord,
  FlakyShaRecord,
  FlakyTestRecord,
  FlakyUploadRecord,
  DeviceCodeRecord,
  EndedPullRequest,
  EstimateSample,
  CalibrationScores,
  EndpointRecord,
  ImpactedTargetsRecord,
  InboxEntry,
  LoggedEvent,
  MessageRecord,
  MetricsLogEntry,
  MetricsTotals,
  OrgWebhooks,
  OutboxEntry,
  PrClock,
  PullRequestRecord,
  QueueRecord,
  StoredSnapshot,
  TestRunRecord,
  TimelineEntry,
  TokenRecord,
} from './recordTypes.js';

export type KeyPart = string | number;
export type Key = readonly KeyPart[];

/** The collections and the type of value each holds. Later capabilities add theirs here. */
export interface StoreSchema {
  /** Store-wide facts: format version, counters. Key: [name]. */
  meta: unknown;
  /** API tokens by id. Key: [tokenId]. */
  tokens: TokenRecord;
  /** Queue configuration by queue id. Key: [queueId]. */
  queues: QueueRecord;
  /** Queue ids by identity. Key: [org, host, owner, name, branch] → queueId. */
  queueIndex: string;
  /** Pull requests of a queue. Key: [queueId, prNumber]. */
  pullRequests: PullRequestRecord;
  /** A PR's timeline. Key: [queueId, prNumber, seq]. */
  timeline: TimelineEntry;
  /** Test runs of a queue. Key: [queueId, runId]. */
  testRuns: TestRunRecord;
  /** Test runs by test-branch SHA, for setCommitStatus. Key: [org, sha] → [queueId, runId]. */
  runsBySha: [string, string];
  /** Persisted machine snapshots. Key: [queueId, 'queue'] | [queueId, 'pr', number] | [queueId, 'run', runId]. */
  actors: StoredSnapshot;
  /** Each queue's event log. Key: [queueId, seq]. */
  events: LoggedEvent;
  /** Deadlines. Key: [queueId, name] → due time (ms). */
  timers: number;
  /** Effects decided but not yet done. Key: [queueId, seq]. */
  outbox: OutboxEntry;
  /** Impacted targets uploaded for a PR's head SHA. Key: [queueId, number, sha]. */
  impactedTargets: ImpactedTargetsRecord;
  /** The head SHAs of a PR with uploaded targets, latest first. Key: [queueId, number]. */
  impactedTargetShas: string[];
  /** Metrics: observations by time, about the last hour. Key: [queueId, atMs, eventSeq, index]. */
  metricsLog: MetricsLogEntry;
  /** Metrics: the clock of each enqueued PR's queue entry. Key: [queueId, prNumber]. */
  metricsPrs: PrClock;
  /** Metrics: a queue's cumulative counters. Key: [queueId]. */
  metricsTotals: MetricsTotals;
  /** Flaky tests: per-repository state and settings. Key: [org, repoId]. */
  flakyRepos: FlakyRepoRecord;
  /** Flaky tests: uploads. Key: [org, repoId, seq]. */
  flakyUploads: FlakyUploadRecord;
  /** Flaky tests: uploads by identity (upload_key, else the digest of the content). Key: [org, repoId, key] → seq. */
  flakyUploadKeys: number;
  /** Flaky tests: one record per test. Key: [org, repoId, testId]. */
  flakyTests: FlakyTestRecord;
  /** Flaky tests: a test's results on one commit. Key: [org, repoId, sha, testId]. */
  flakyCommits: FlakyCommitRecord;
  /** Flaky tests: failing tests of one commit. Key: [org, repoId, sha]. */
  flakyShas: FlakyShaRecord;
  /** Flaky tests: failures by time. Key: [org, repoId, timeMs, seq, testId]. */
  flakyFailures: FlakyFailureRecord;
  /** Flaky tests: list membership over sequence numbers. Key: [org, repoId, list, testId]. */
  flakyMembership: FlakyMembershipRecord;
  /** Webhook deliveries already applied (a redelivery is applied once). Key: [deliveryId] → when it arrived (ISO). */
  webhookDeliveries: string;
  /** The same deliveries by arrival, for pruning the old ones. Key: [arrivedAtMs, deliveryId] → true. */
  webhookDeliveryTimes: true;
  /** Deliveries accepted (answered 202) and not yet applied, with their retries. Key: [deliveryId]. */
  webhookInbox: InboxEntry;
  /** Outgoing webhooks: endpoints of an organization. Key: [org, endpointId]. */
  webhookEndpoints: EndpointRecord;
  /** Outgoing webhooks: an organization's endpoint count (read by queue transactions without a lock) and delivery outcomes. Key: [org]. */
  webhookOrgs: OrgWebhooks;
  /** Outgoing webhooks: one event for one endpoint, with its attempts. Key: [org, endpointId, seq]. */
  webhookMessages: MessageRecord;
  /** Outgoing webhooks: messages not yet delivered nor given up, in order per endpoint. Key: [endpointId, seq] → org. */
  webhookPending: string;
  /** Heads the queue's own merges made on its target branch. Key: [queueId, sha] → the PR number. */
  mergedHeads: number;
  /** Device sign-ins waiting for a person or a poll (RFC 8628, deviceCodes.ts). Key: [userCode]. */
  deviceCodes: DeviceCodeRecord;
  /** The same sign-ins by the SHA-256 of their device code. Key: [deviceHash] → userCode. */
  deviceCodeHashes: string;
  /** A queue's ended PRs by when they ended, for its history. Key: [queueId, endedAtMs, prNumber] (history/endedIndex.ts). */
  endedPullRequests: EndedPullRequest;
  /** A ready PR's merge estimate as given at readiness and at the head, until it ends. Key: [queueId, prNumber] (estimate/calibrationRecord.ts). */
  estimateSamples: EstimateSample;
  /** The scores of a queue's latest merged PRs' estimates, which calibrate its P90. Key: [queueId] (estimate/calibration.ts). */
  estimateScores: CalibrationScores;
}

export type CollectionName = keyof StoreSchema;

export interface ScanOptions {
  /** Only keys that start with these parts (a key equal to the prefix is included). */
  prefix?: Key;
  /** Inclusive lower bound (within the prefix, when both are given). */
  start?: Key;
  /** Exclusive upper bound. */
  end?: Key;
  /** Walk from the highest key down. */
  reverse?: boolean;
  /** At most this many entries. */
  limit?: number;
}

export interface Entry<V> {
  key: KeyPart[];
  value: V;
}

export interface ReadTx {
  get<C extends CollectionName>(collection: C, key: Key): StoreSchema[C] | undefined;
  /** Entries in key order (or reverse). Within a write transaction it sees that transaction's own writes. */
  scan<C extends CollectionName>(collection: C, options?: ScanOptions): Iterable<Entry<StoreSchema[C]>>;
  count(collection: CollectionName, options?: ScanOptions): number;
}

export interface WriteTx extends ReadTx {
  put<C extends CollectionName>(collection: C, key: Key, value: StoreSchema[C]): void;
  /** True when a value was there. */
  remove(collection: CollectionName, key: Key): boolean;
}

export interface StoreStats {
  /** Bytes the store occupies (on disk for LMDB; an estimate of the JSON held for memory). */
  sizeBytes: number;
  entries: Record<CollectionName, number>;
}

export interface Store {
  readonly kind: 'memory' | 'lmdb' | 'postgres';
  /** A consistent view for the duration of `fn`. */
  read<R>(fn: (tx: ReadTx) => R): R;
  /**
   * One atomic, durable transaction: when it returns, every write of `fn` is committed (and, unless the store was
   * opened with `noSync`, on disk); when `fn` throws, nothing of it is written and the error propagates.
   * Transactions are serialised. `fn` must be synchronous and must not call `read` or `write` itself.
   */
  write<R>(fn: (tx: WriteTx) => R): R;
  /**
   * Resolves once every transaction committed before the call is durable. With group commit (LMDB's default:
   * groupCommit.ts) `write` returns once its transaction is committed and visible, and one sync off the event loop
   * makes many transactions durable together: whatever must not run before its transaction is on disk (an answer,
   * an effect at the edge) awaits this first. With batched writes (`writeBatched`) it waits for every batched write
   * whose transaction ran (committed, maybe seen) to be flushed. Stores whose commits are durable when `write` returns
   * leave it out.
   */
  durable?(): Promise<void>;
  /**
   * One transaction as `write`, for work that need not see its result in the same turn of the loop (a large upload's
   * batches): where the store can, it is run and committed in a turn of its own and committed off the event loop
   * (LMDB: lmdb-js's write thread), so the commit's page writes hold up no other request. Resolves once committed and
   * visible (durable as `write`'s: `durable()`); rejects, with nothing of it written, when `fn` throws. Stores
   * without it are written with `write`.
   */
  writeAsync?<R>(fn: (tx: WriteTx) => R): Promise<R>;
  /**
   * One transaction as `write`, queued into the store's batch (LMDB with GREENLINE_LMDB_SYNC=batch: lmdb-js's batched
   * transactions, lmdbBatched.ts): `fn` runs synchronously inside the batch's write transaction, in a later turn of the
   * loop than the call, in call order with the other batched writes; it resolves only once the batch is durable, and
   * rejects, with nothing of it acknowledged, when `fn` throws (its transaction alone aborted) or the batch's commit
   * fails (every write of the batch rejected). Stores without it (memory, PostgreSQL) take `write`.
   */
  writeBatched?<R>(fn: (tx: WriteTx) => R): Promise<R>;
  stats(): StoreStats;
  /**
   * Why the store refuses writes now (full: its limit or its disk), or undefined when it takes them. A full store
   * still reads; stores that cannot tell (memory, PostgreSQL: its server refuses) leave it out.
   */
  fullReason?(): string | undefined;
  /**
   * A store several processes share (PostgreSQL): which of these queues had a commit this process neither made nor
   * heard of, in one round trip. Stores one process owns leave it out (nothing is committed behind its back).
   */
  unheard?(queueIds: readonly string[]): string[];
  /** Waits for pending writes, then releases the store; any later call throws StoreClosedError. */
  close(): Promise<void>;
}

/**
 * A write refused because the store is full: the disk (ENOSPC, EDQUOT), LMDB's map, or the size the service was
 * given (GREENLINE_MAX_DB_SIZE). The transaction was aborted: nothing of it is stored, nothing stored is harmed, and
 * reads go on. Writes work again once there is room (space freed on the disk, data deleted, a larger limit).
 */
export class StorageFullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageFullError';
  }
}

export class StoreClosedError extends Error {
  constructor() {
    super('the store is closed');
    this.name = 'StoreClosedError';
  }
}

/** Thrown for a key or value the model above does not allow (a programming error, never user input). */
export class InvalidKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidKeyError';
  }
}
