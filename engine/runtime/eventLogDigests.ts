/**
 * The digests of an event log: a store that records a digest and a summary of every transaction that logged an input
 * (`RecordingStore`), the digest of a queue's whole state, and a queue's log taken from a store with them.
 *
 * The digests leave out what is not the queue's state: store-wide counters (`meta`) and the outbox's bookkeeping
 * (an effect done is removed in its own transaction; the result comes back as an input, which is logged).
 */
import { createHash } from 'node:crypto';
import type { QueueKey } from '../engineTypes.js';
import { COLLECTION_NAMES } from '../store/common.js';
import type { CollectionName, Key, ReadTx, Store, WriteTx } from '../store/store.js';
import { storedForDigest, type StoredSnapshot } from '../model/machineSnapshots.js';
import {
  EVENT_LOG_FORMAT,
  EVENT_LOG_VERSION,
  EventLogError,
  type Changes,
  type EventLog,
  type EventLogEntry,
} from './eventLogFormat.js';

/** A write of a transaction: the JSON of the value written, or null for a removal. */
interface Write {
  collection: CollectionName;
  key: string;
  json: string | null;
}

/**
 * Not the queue's state: store-wide facts, the index of ended PRs (derived from the PR records the digest holds;
 * history/endedIndex.ts), and the record that calibrates the merge estimate (derived from the forecast: logs
 * recorded before it had none; estimate/calibrationRecord.ts). Outbox removals, and the outbox's outgoing-webhook effects (they follow the organization's
 * endpoints, which are not the queue's: a replay without them must not diverge), are left out separately.
 */
const IGNORED: readonly CollectionName[] = ['meta', 'endedPullRequests', 'estimateSamples', 'estimateScores'];

/** An outbox write that is not the queue's state: a removal, or an outgoing-webhook effect (notifications/). */
function outsideTheQueue(write: Write): boolean {
  return (
    write.collection === 'outbox' &&
    (write.json === null || (JSON.parse(write.json) as { effect?: { kind?: string } }).effect?.kind === 'notify')
  );
}

/**
 * A bisection's machine (machines/bisection.ts): the progress of a bisection, driven by the moves of its PRs, whose
 * machines and the queue's bisection memory hold every fact it decides on. Logs recorded before it had none, so a
 * replay must not diverge on it.
 */
function bisectionProgress(write: Write): boolean {
  return (
    write.collection === 'actors' &&
    write.key.startsWith('[') &&
    (JSON.parse(write.key) as unknown[])[1] === 'bisection'
  );
}

/**
 * The collections whose keys start with a queue id hold that queue's state (the others are keyed by organization or
 * are store-wide); of these the outbox is bookkeeping, and two index the queue from elsewhere (handled apart).
 */
const QUEUE_STATE: readonly CollectionName[] = COLLECTION_NAMES.filter(
  (name) =>
    ![
      'meta',
      'tokens',
      'outbox',
      'queueIndex',
      'runsBySha',
      'endedPullRequests',
      'estimateSamples',
      'estimateScores',
    ].includes(name),
);

/** A value's JSON as digests take it: machine snapshots in the form logs recorded them in (model/machineSnapshots.ts). */
function digestJson(collection: CollectionName, value: unknown): string {
  return JSON.stringify(collection === 'actors' ? storedForDigest(value as StoredSnapshot) : value);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Canonical text of a set of writes: the last write per key, sorted, one line each. */
function canonical(writes: Iterable<Write>, rename: (text: string) => string): string {
  const last = new Map<string, Write>();
  for (const write of writes) {
    if (IGNORED.includes(write.collection) || outsideTheQueue(write) || bisectionProgress(write)) continue;
    last.set(`${write.collection}\u0000${write.key}`, write);
  }
  const lines = [...last.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, write]) => `${write.collection}\t${write.key}\t${write.json ?? '-'}`);
  return rename(lines.join('\n'));
}

function changesOf(writes: readonly Write[], rename: (text: string) => string): Changes {
  const changes: Changes = {};
  for (const write of writes) {
    if (write.json === null) continue;
    if (write.collection === 'pullRequests') {
      const record = JSON.parse(write.json) as { number: number; state: string };
      (changes.prs ??= {})[String(record.number)] = record.state;
    } else if (write.collection === 'testRuns') {
      const record = JSON.parse(write.json) as { id: string; status: string };
      (changes.runs ??= {})[rename(record.id)] = record.status;
    } else if (write.collection === 'queues') {
      changes.queue = (JSON.parse(write.json) as { state: string }).state;
    }
  }
  return changes;
}

/**
 * A store that watches its own write transactions: for each committed transaction that logged a queue input, it
 * keeps the digest of the writes and their summary, by queue and event sequence number.
 */
export class RecordingStore implements Store {
  readonly kind: Store['kind'];
  private readonly digests = new Map<string, { digest: string; changes: Changes }>();
  /** Renames the queue ids of this store's writes before they are digested (replay: to the recorded ids). */
  rename: (text: string) => string = (text) => text;

  constructor(private readonly inner: Store) {
    this.kind = inner.kind;
  }

  read<R>(fn: (tx: ReadTx) => R): R {
    return this.inner.read(fn);
  }

  durable(): Promise<void> {
    return this.inner.durable?.() ?? Promise.resolve();
  }

  write<R>(fn: (tx: WriteTx) => R): R {
    const writes: Write[] = [];
    let logged: { queueId: string; seq: number } | undefined;
    const result = this.inner.write((tx) =>
      fn({
        get: (collection, key) => tx.get(collection, key),
        scan: (collection, options) => tx.scan(collection, options),
        count: (collection, options) => tx.count(collection, options),
        put: (collection, key, value) => {
          tx.put(collection, key, value);
          writes.push({ collection, key: JSON.stringify(key), json: digestJson(collection, value) });
          if (collection === 'events') logged = { queueId: String(key[0]), seq: Number(key[1]) };
        },
        remove: (collection: CollectionName, key: Key) => {
          writes.push({ collection, key: JSON.stringify(key), json: null });
          return tx.remove(collection, key);
        },
      }),
    );
    if (logged !== undefined) {
      this.digests.set(`${logged.queueId}\u0000${logged.seq}`, {
        digest: sha256(canonical(writes, this.rename)),
        changes: changesOf(writes, this.rename),
      });
    }
    return result;
  }

  /** The digest and summary of the transaction that logged event `seq` of the queue. */
  recorded(queueId: string, seq: number): { digest: string; changes: Changes } | undefined {
    return this.digests.get(`${queueId}\u0000${seq}`);
  }

  stats() {
    return this.inner.stats();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Digest of a queue's whole state: its collections, its index entry and the test-branch SHAs of its runs. */
export function stateDigest(store: Store, queueId: string, rename: (text: string) => string = (text) => text): string {
  const writes = store.read((tx) => {
    const found: Write[] = [];
    for (const collection of QUEUE_STATE) {
      for (const { key, value } of tx.scan(collection, { prefix: [queueId] })) {
        found.push({ collection, key: JSON.stringify(key), json: digestJson(collection, value) });
      }
    }
    for (const { key, value } of tx.scan('runsBySha')) {
      if (value[0] === queueId)
        found.push({ collection: 'runsBySha', key: JSON.stringify(key), json: JSON.stringify(value) });
    }
    for (const { key, value } of tx.scan('queueIndex')) {
      if (value === queueId)
        found.push({ collection: 'queueIndex', key: JSON.stringify(key), json: JSON.stringify(value) });
    }
    return found;
  });
  return sha256(canonical(writes, rename));
}

/** The key a queue record answers to. */
export function queueKeyOf(store: Store, queueId: string): QueueKey {
  const queue = store.read((tx) => tx.get('queues', [queueId]));
  if (queue === undefined) throw new EventLogError(`no queue ${queueId} in the store`);
  return { org: queue.org, repo: queue.repo, branch: queue.branch };
}

/** A queue's log from a store, with the digests a RecordingStore kept (when the store is one). */
export function eventLogOf(store: Store, queueId: string, source: string): EventLog {
  const events = store.read((tx) =>
    [...tx.scan('events', { prefix: [queueId] })].map(({ value: event }): EventLogEntry => {
      const input = event.input;
      if (input.type !== 'targetsSet') return event;
      // Kept while it is one of the PR's latest uploads; an older one is gone, and its replay will say so.
      const stored = tx.get('impactedTargets', [queueId, input.number, input.sha]);
      return stored?.digest === input.digest
        ? { ...event, targets: stored.targets === 'ALL' ? 'ALL' : [...stored.targets] }
        : event;
    }),
  );
  const entries = events.map((event): EventLogEntry => {
    const recorded = store instanceof RecordingStore ? store.recorded(queueId, event.seq) : undefined;
    return recorded === undefined ? event : { ...event, digest: recorded.digest, changes: recorded.changes };
  });
  const startsAt = store.read((tx) => tx.get('queues', [queueId])?.eventsFrom);
  return {
    header: {
      log: EVENT_LOG_FORMAT,
      version: EVENT_LOG_VERSION,
      queue: queueKeyOf(store, queueId),
      queueId,
      events: entries.length,
      finalDigest: stateDigest(store, queueId),
      source,
      ...(startsAt === undefined ? {} : { startsAt }),
    },
    entries,
  };
}

/** The log of the queue with this key in a store (a data folder: `greenline events`). */
export function exportEventLog(store: Store, key: QueueKey, source: string): EventLog {
  const indexKey = [
    key.org,
    key.repo.host.toLowerCase(),
    key.repo.owner.toLowerCase(),
    key.repo.name.toLowerCase(),
    key.branch,
  ];
  const queueId = store.read((tx) => tx.get('queueIndex', indexKey));
  if (queueId === undefined) {
    throw new EventLogError(
      `no queue for ${key.repo.host}/${key.repo.owner}/${key.repo.name} branch ${key.branch} in organization ${key.org}`,
    );
  }
  return eventLogOf(store, queueId, source);
}
