/**
 * Retention of a queue's records: ended PRs (with their timelines and impacted targets), ended runs, old events. The
 * candidates are found in read transactions, a chunk at a time; each batch is deleted by one `prune` input, a
 * transaction of the queue (transaction/prune.ts), so that its working set stays the state of the store. Between
 * transactions the sweep yields, so the queues' own inputs and the API go on.
 */
import { FINAL_PULL_REQUEST_STATES } from '../../machines/vocabulary.js';
import type { Engine } from '../engine.js';
import { EngineError } from '../model/errors.js';
import type { QueueInput } from '../model/events.js';
import { referencedPrs } from '../transaction/prune.js';
import { ENDED_INDEX_COMPLETE } from '../history/endedIndex.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { Key, ReadTx, Store, StoreSchema } from '../store/store.js';
import { hasTestRunTag } from '../../machines/index.js';

export interface QueueCutoffs {
  /** ISO time: ended PRs and runs that ended before it go (undefined: kept). */
  prs?: string;
  /** ISO time: events older than it go. */
  events?: string;
}

export interface PruneCounts {
  prs: number;
  runs: number;
  events: number;
  transactions: number;
}

/** Records read per read transaction while looking for candidates. */
const SCAN_CHUNK = 2000;

export const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A chunk of candidates, and the key the next chunk starts at (undefined: the last chunk). */
type Chunk<T> = { found: T[]; next: Key | undefined };

/** Candidates of one collection of the queue, `batch` at a time, walking its keys in chunks. */
async function* candidates<T>(pick: (start: Key | undefined) => Chunk<T>, batch: number): AsyncGenerator<T[]> {
  let pending: T[] = [];
  let start: Key | undefined;
  for (;;) {
    const { found, next } = pick(start);
    pending.push(...found);
    while (pending.length >= batch) {
      yield pending.slice(0, batch);
      pending = pending.slice(batch);
    }
    if (next === undefined) break;
    start = next;
    await nextTick();
  }
  if (pending.length > 0) yield pending;
}

/**
 * One chunk of the queue's `name` records from `start` (and before `end`): those `pick` keeps, and where the next
 * chunk starts.
 */
function chunkOf<C extends 'pullRequests' | 'testRuns' | 'endedPullRequests', T>(
  tx: ReadTx,
  name: C,
  range: { queueId: string; start: Key | undefined; end?: Key },
  pick: (value: StoreSchema[C]) => T | undefined,
): Chunk<T> {
  const { queueId, start, end } = range;
  const entries = [
    ...tx.scan(name, {
      prefix: [queueId],
      ...(start === undefined ? {} : { start }),
      ...(end === undefined ? {} : { end }),
      limit: SCAN_CHUNK + 1,
    }),
  ];
  const next = entries.length > SCAN_CHUNK ? entries[SCAN_CHUNK]?.key : undefined;
  const found = entries.slice(0, SCAN_CHUNK).flatMap(({ value }) => {
    const picked = pick(value);
    return picked === undefined ? [] : [picked];
  });
  return { found, next };
}

/**
 * Ended PRs to delete. With the index of ended PRs complete (history/endedIndex.ts, keyed by when each ended), only
 * those that ended before the cutoff are read (`by`, chosen once per walk); a store not yet indexed has every PR of
 * the queue read.
 */
function endedPrs(
  store: Store,
  queueId: string,
  before: string,
  by: 'index' | 'records',
  start: Key | undefined,
): Chunk<number> {
  return store.read((tx) => {
    const queue = tx.get('queues', [queueId]);
    if (queue === undefined) return { found: [], next: undefined };
    const kept = referencedPrs(tx, queue);
    const goes = (pr: PullRequestRecord | undefined) =>
      pr !== undefined &&
      FINAL_PULL_REQUEST_STATES.includes(pr.state) &&
      pr.stateChangedAt < before &&
      !kept.has(pr.number);
    if (by === 'records')
      return chunkOf(tx, 'pullRequests', { queueId, start }, (pr) => (goes(pr) ? pr.number : undefined));
    // The index's key holds the end in ms: those before the cutoff's ms, then checked against the record itself.
    const end = [queueId, Math.ceil(Date.parse(before))];
    return chunkOf(tx, 'endedPullRequests', { queueId, start, end }, ({ number }) =>
      goes(tx.get('pullRequests', [queueId, number])) ? number : undefined,
    );
  });
}

function endedRuns(store: Store, queueId: string, before: string, start: Key | undefined): Chunk<string> {
  return store.read((tx) =>
    chunkOf(tx, 'testRuns', { queueId, start }, (run) =>
      !hasTestRunTag(run.status, 'inProgress') && run.endedAt !== null && run.endedAt < before ? run.id : undefined,
    ),
  );
}

/** Below which seq the log's events are older than `before` (from where the log starts now, at most `batch` on). */
function eventsBelow(store: Store, queueId: string, before: string, batch: number): { from: number; below: number } {
  return store.read((tx) => {
    const from = tx.get('queues', [queueId])?.eventsFrom?.seq ?? 0;
    let below = from;
    for (const { value } of tx.scan('events', { start: [queueId, from], end: [queueId, from + batch] })) {
      if (!(value.at < before)) break;
      below = value.seq + 1;
    }
    return { from, below };
  });
}

/** Deletes what the cutoffs say of one queue, in transactions of at most `batch` records, yielding between them. */
export async function pruneQueue(
  engine: Engine,
  store: Store,
  queueId: string,
  cutoffs: QueueCutoffs,
  batch: number,
  alive: () => boolean = () => true,
): Promise<PruneCounts> {
  const counts: PruneCounts = { prs: 0, runs: 0, events: 0, transactions: 0 };
  const before = cutoffs.prs ?? '';
  const apply = async (input: Extract<QueueInput, { type: 'prune' }>): Promise<boolean> => {
    if (!alive()) return false;
    try {
      engine.prune(queueId, input);
    } catch (error) {
      if (error instanceof EngineError && error.kind === 'not_found') return false; // the queue was deleted meanwhile
      throw error;
    }
    counts.transactions++;
    await nextTick();
    return true;
  };
  if (cutoffs.prs !== undefined) {
    const prs = cutoffs.prs;
    // One way for the whole walk (its cursor is a key of the collection walked): the index once it is complete.
    const indexed = Date.parse(prs) >= 0 && store.read((tx) => tx.get('meta', ENDED_INDEX_COMPLETE)) !== undefined;
    const by = indexed ? 'index' : 'records';
    for await (const numbers of candidates((start) => endedPrs(store, queueId, prs, by, start), batch)) {
      if (!(await apply({ type: 'prune', before: prs, prs: numbers, runs: [] }))) return counts;
      counts.prs += numbers.length;
    }
    for await (const ids of candidates((start) => endedRuns(store, queueId, prs, start), batch)) {
      if (!(await apply({ type: 'prune', before: prs, prs: [], runs: ids }))) return counts;
      counts.runs += ids.length;
    }
  }
  if (cutoffs.events !== undefined) {
    for (;;) {
      const { from, below } = eventsBelow(store, queueId, cutoffs.events, batch);
      if (below <= from) break;
      if (!(await apply({ type: 'prune', before, prs: [], runs: [], events: { below, before: cutoffs.events } })))
        return counts;
      counts.events += below - from;
    }
  }
  return counts;
}
