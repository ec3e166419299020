/**
 * Event logs and replay. A queue's event log (every input, in order, with its time) is the input of `greenline
 * replay`: feeding it back through a fresh engine must reproduce the same states. To tell whether it does, a log
 * carries what the recorded run produced:
 *
 * - per event (logs the simulator writes): a digest of everything the event's transaction wrote — snapshots,
 *   records, timeline, timers, the effects it decided — and a short summary of the states it wrote, to say what
 *   differs;
 * - for the whole log (also logs exported from a data folder): a digest of the queue's final state.
 *
 * The digests leave out what is not the queue's state: store-wide counters (`meta`) and the outbox's bookkeeping
 * (an effect done is removed in its own transaction; the result comes back as an input, which is logged). A queue id
 * is derived from the store's queue count, so a replayed queue may get another id than the recorded one: the replay's
 * writes are compared after renaming its id to the recorded one.
 *
 * File format (JSON Lines): a header line, then one line per event.
 *   {"log":"greenline-events","version":1,"queue":{org,repo,branch},"queueId":"q_…","events":N,"finalDigest":"…","source":"…"}
 *   {"seq":0,"at":"2026-…Z","input":{"type":"created",…},"digest":"…","changes":{"prs":{"3":"TESTING"},…}}
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Engine, type QueueKey } from '../engine.js';
import type { LoggedEvent, QueueInput } from '../model/events.js';
import type { Scheduler } from './scheduler.js';
import { COLLECTION_NAMES } from '../store/common.js';
import { createMemoryStore } from '../store/index.js';
import type { CollectionName, Key, ReadTx, Store, WriteTx } from '../store/store.js';

export const EVENT_LOG_FORMAT = 'greenline-events';
export const EVENT_LOG_VERSION = 1;

/** What an event's transaction wrote, in brief: the states of the PRs and runs it wrote, and the queue's. */
export interface Changes {
  queue?: string;
  prs?: Record<string, string>;
  runs?: Record<string, string>;
}

export interface EventLogEntry extends LoggedEvent {
  digest?: string;
  changes?: Changes;
  /**
   * For a `targetsSet` input: the uploaded targets. The engine's log names an upload by its digest only (a list can
   * take megabytes); the log file carries the list so that a replay can upload it again.
   */
  targets?: string[] | 'ALL';
}

export interface EventLogHeader {
  log: typeof EVENT_LOG_FORMAT;
  version: typeof EVENT_LOG_VERSION;
  queue: QueueKey;
  queueId: string;
  events: number;
  /** Digest of the queue's state after the last event. */
  finalDigest: string;
  /** Where the log comes from (`sim: <scenario> / <configuration>`, `store: <folder>`). */
  source: string;
  /**
   * Present when retention cut the log (engine/retention): the events below `seq` older than `before` were deleted,
   * but for the settings changes. Such a log lists what is kept; it does not replay (replay says so).
   */
  startsAt?: { seq: number; before: string };
}

export interface EventLog {
  header: EventLogHeader;
  entries: EventLogEntry[];
}

export class EventLogError extends Error {}

/** A write of a transaction: the JSON of the value written, or null for a removal. */
interface Write {
  collection: CollectionName;
  key: string;
  json: string | null;
}

/** Not the queue's state: store-wide facts. Outbox removals are left out separately (see above). */
const IGNORED: readonly CollectionName[] = ['meta'];

/**
 * The collections whose keys start with a queue id hold that queue's state (the others are keyed by organization or
 * are store-wide); of these the outbox is bookkeeping, and two index the queue from elsewhere (handled apart).
 */
const QUEUE_STATE: readonly CollectionName[] = COLLECTION_NAMES.filter(
  (name) => !['meta', 'tokens', 'outbox', 'queueIndex', 'runsBySha'].includes(name),
);

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The hex part of a queue id (`q_<hex>`): what run ids, entry ids and branches derived from it contain. */
function idPart(queueId: string): string {
  return queueId.replace(/^q_/, '');
}

/** Canonical text of a set of writes: the last write per key, sorted, one line each. */
function canonical(writes: Iterable<Write>, rename: (text: string) => string): string {
  const last = new Map<string, Write>();
  for (const write of writes) {
    if (IGNORED.includes(write.collection) || (write.collection === 'outbox' && write.json === null)) continue;
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
          writes.push({ collection, key: JSON.stringify(key), json: JSON.stringify(value) });
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
        found.push({ collection, key: JSON.stringify(key), json: JSON.stringify(value) });
      }
    }
    for (const { key, value } of tx.scan('runsBySha')) {
      if (value[0] === queueId) found.push({ collection: 'runsBySha', key: JSON.stringify(key), json: JSON.stringify(value) });
    }
    for (const { key, value } of tx.scan('queueIndex')) {
      if (value === queueId) found.push({ collection: 'queueIndex', key: JSON.stringify(key), json: JSON.stringify(value) });
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
      return stored?.digest === input.digest ? { ...event, targets: stored.targets === 'ALL' ? 'ALL' : [...stored.targets] } : event;
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
  const indexKey = [key.org, key.repo.host.toLowerCase(), key.repo.owner.toLowerCase(), key.repo.name.toLowerCase(), key.branch];
  const queueId = store.read((tx) => tx.get('queueIndex', indexKey));
  if (queueId === undefined) {
    throw new EventLogError(`no queue for ${key.repo.host}/${key.repo.owner}/${key.repo.name} branch ${key.branch} in organization ${key.org}`);
  }
  return eventLogOf(store, queueId, source);
}

export function formatEventLog(log: EventLog): string {
  return `${[log.header, ...log.entries].map((line) => JSON.stringify(line)).join('\n')}\n`;
}

const RepoSchema = z.object({ host: z.string().min(1), owner: z.string().min(1), name: z.string().min(1) });
const HeaderSchema = z.object({
  log: z.literal(EVENT_LOG_FORMAT),
  version: z.literal(EVENT_LOG_VERSION),
  queue: z.object({ org: z.string().min(1), repo: RepoSchema, branch: z.string().min(1) }),
  queueId: z.string().regex(/^q_[0-9a-f]+$/),
  events: z.number().int().min(0),
  finalDigest: z.string().regex(/^[0-9a-f]{64}$/),
  source: z.string(),
  startsAt: z.object({ seq: z.number().int().min(0), before: z.iso.datetime() }).optional(),
});
/** The input itself is the engine's to check as it replays it (an input it does not know is a divergence). */
const EntrySchema = z.object({
  seq: z.number().int().min(0),
  at: z.iso.datetime(),
  input: z.looseObject({ type: z.string().min(1) }),
  digest: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  changes: z
    .object({
      queue: z.string().optional(),
      prs: z.record(z.string(), z.string()).optional(),
      runs: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  targets: z.union([z.array(z.string()), z.literal('ALL')]).optional(),
});

export function parseEventLog(text: string, source = 'the log'): EventLog {
  const lines = text
    .split('\n')
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim() !== '');
  const parseLine = <T>(schema: z.ZodType<T>, line: string, number: number): T => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new EventLogError(`${source}, line ${number}: not JSON (${(error as Error).message})`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(line)'}: ${issue.message}`).join('; ');
      throw new EventLogError(`${source}, line ${number}: ${problems}`);
    }
    return parsed.data;
  };
  if (lines.length === 0) throw new EventLogError(`${source} is empty`);
  const [first, ...rest] = lines as [{ line: string; number: number }, ...{ line: string; number: number }[]];
  const header = parseLine(HeaderSchema, first.line, first.number) as EventLogHeader;
  const entries = rest.map(({ line, number }) => parseLine(EntrySchema, line, number) as EventLogEntry);
  if (entries.length !== header.events) {
    throw new EventLogError(`${source}: the header announces ${header.events} events, the file holds ${entries.length}`);
  }
  return { header, entries };
}

/** A clock the replay sets to each event's time. It arms nothing: every timer that fired is in the log. */
class ReplayClock implements Scheduler {
  constructor(private time: number) {}

  set(time: number): void {
    this.time = time;
  }

  now(): number {
    return this.time;
  }

  schedule(): void {}

  cancel(): void {}

  clear(): void {}
}

export interface Divergence {
  /** The event at which the replay first differs; null: every event matched but the final state differs. */
  seq: number | null;
  at?: string;
  input?: QueueInput;
  reason: string;
  expected?: Changes;
  actual?: Changes;
}

export interface ReplayResult {
  /** Events replayed (up to and including a diverging one). */
  replayed: number;
  /** Events whose digest was compared. */
  checked: number;
  /** Whether the final state was compared (it is whenever every event replayed). */
  finalChecked: boolean;
  divergence: Divergence | null;
}

function describeChanges(changes: Changes | undefined): string {
  if (changes === undefined) return 'nothing';
  const parts: string[] = [];
  if (changes.queue !== undefined) parts.push(`queue ${changes.queue}`);
  for (const [number, state] of Object.entries(changes.prs ?? {})) parts.push(`#${number} ${state}`);
  for (const [id, status] of Object.entries(changes.runs ?? {})) parts.push(`${id} ${status}`);
  return parts.length === 0 ? 'no PR, run or queue record' : parts.join(', ');
}

/** What differs between two summaries, or '' when they agree. */
export function changesDiff(expected: Changes | undefined, actual: Changes | undefined): string {
  const differences: string[] = [];
  if (expected?.queue !== actual?.queue) differences.push(`queue: recorded ${expected?.queue ?? '(not written)'}, replayed ${actual?.queue ?? '(not written)'}`);
  for (const [label, pick] of [
    ['#', (changes: Changes | undefined) => changes?.prs],
    ['', (changes: Changes | undefined) => changes?.runs],
  ] as const) {
    const recorded = pick(expected) ?? {};
    const replayed = pick(actual) ?? {};
    for (const id of [...new Set([...Object.keys(recorded), ...Object.keys(replayed)])].sort()) {
      if (recorded[id] !== replayed[id]) differences.push(`${label}${id}: recorded ${recorded[id] ?? '(not written)'}, replayed ${replayed[id] ?? '(not written)'}`);
    }
  }
  return differences.join('; ');
}

/**
 * Feeds a log through a fresh engine (in memory, effects held, timers not armed: the log holds their outcomes) and
 * compares each event's writes with the recorded digest, then the final state. Stops at the first divergence.
 */
export function replayEventLog(log: EventLog): ReplayResult {
  const { header, entries } = log;
  const first = entries[0];
  const result: ReplayResult = { replayed: 0, checked: 0, finalChecked: false, divergence: null };
  if (first === undefined) {
    result.divergence = { seq: null, reason: 'the log holds no event' };
    return result;
  }
  if (header.startsAt !== undefined) {
    const { seq, before } = header.startsAt;
    result.divergence = {
      seq: null,
      reason: `the log was cut by retention: its events before ${before} (below event ${seq}) are deleted but for the settings changes, so it cannot be replayed from the queue's creation; only whole logs replay (keep them longer with GREENLINE_RETAIN_EVENTS_DAYS, or export them before they go)`,
    };
    return result;
  }
  if (first.input.type !== 'created') {
    result.divergence = { seq: first.seq, at: first.at, input: first.input, reason: `the log starts with ${first.input.type}, not created: it is not a whole queue's log` };
    return result;
  }
  const clock = new ReplayClock(Date.parse(first.at));
  const store = new RecordingStore(createMemoryStore());
  const failures: unknown[] = [];
  const engine = new Engine(store, { scheduler: clock, holdEffects: true, onError: (_message, error) => failures.push(error) });
  let queueId = '';
  /** Recorded inputs name runs by the recorded queue id; the replayed queue may have another. */
  let translate = (input: QueueInput): QueueInput => input;
  for (const [index, entry] of entries.entries()) {
    clock.set(Date.parse(entry.at));
    result.replayed++;
    const diverge = (reason: string, actual?: Changes): ReplayResult => {
      result.divergence = { seq: entry.seq, at: entry.at, input: entry.input, reason, ...(entry.changes === undefined ? {} : { expected: entry.changes }), ...(actual === undefined ? {} : { actual }) };
      return result;
    };
    if (entry.seq !== index) return diverge(`expected event ${index} here, the log has event ${entry.seq}`);
    try {
      if (entry.input.type === 'created') {
        if (index !== 0) return diverge('a second created event');
        queueId = engine.createQueue(header.queue, entry.input.patch, entry.input.by).id;
        const replayed = idPart(queueId);
        const recorded = idPart(header.queueId);
        if (replayed !== recorded) {
          store.rename = (text) => text.split(replayed).join(recorded);
          translate = (input) => JSON.parse(JSON.stringify(input).split(recorded).join(replayed)) as QueueInput;
        }
      } else if (entry.input.type === 'targetsSet') {
        if (entry.targets === undefined) return diverge('the targets of this upload are not in the log (the store no longer held them)');
        engine.setImpactedTargets(header.queue, { number: entry.input.number, sha: entry.input.sha }, entry.targets);
      } else {
        engine.replayInput(queueId, translate(entry.input));
      }
    } catch (error) {
      return diverge(`the engine refused the event: ${(error as Error).message}`);
    }
    if (failures.length > 0) return diverge(`the engine failed: ${String(failures[0])}`);
    const replayed = store.recorded(queueId, entry.seq);
    if (replayed === undefined) return diverge('the engine logged no event for it');
    if (entry.digest !== undefined) {
      result.checked++;
      if (replayed.digest !== entry.digest) {
        const what = changesDiff(entry.changes, replayed.changes);
        return diverge(
          what === ''
            ? `its transaction wrote something else than recorded (recorded: ${describeChanges(entry.changes)}; replayed: ${describeChanges(replayed.changes)})`
            : `its transaction differs: ${what}`,
          replayed.changes,
        );
      }
    }
  }
  result.finalChecked = true;
  const rename = store.rename;
  if (stateDigest(store, queueId, rename) !== header.finalDigest) {
    result.divergence = { seq: null, reason: 'every event replayed, but the final state of the queue differs from the recorded one' };
  }
  engine.stop();
  return result;
}
