/**
 * The index of a queue's ended pull requests (merged, failed, cancelled), newest first, for the history page: one
 * entry per PR record in a final state, keyed [queueId, endedAtMs, number] (so the newest are the last keys and a
 * page is one reverse range scan), holding what a history row shows without reading the record or its timeline.
 *
 * The invariant: the collection `endedPullRequests` holds exactly the final records of `pullRequests`, each under its
 * `stateChangedAt`. Its writers: a transaction in which a PR reaches a final state (`indexEnded`, at commit), a
 * submission of an ended PR again (`forgetEnded`: it is in the queue again), retention (`forgetEnded` with the record
 * it deletes) and deleting the queue (the collection is one of the queue's: store/queueCollections.ts). A store made
 * before the index is filled once at start (`backfillEndedIndex`).
 */
import { FINAL_PULL_REQUEST_STATES, type PullRequestState } from '../../machines/vocabulary.js';
import type { PullRequestRecord, TimelineEntry } from '../model/pullRequests.js';
import { StorageFullError, type Entry, type Key, type ReadTx, type Store, type WriteTx } from '../store/store.js';

export interface EndedPullRequest {
  number: number;
  /** The queue entry that ended. */
  entryId: string;
  title: string;
  author: string;
  state: PullRequestState;
  reason: string | null;
  /** When the entry was submitted (ISO), from its first timeline line; null when that line is gone. */
  submittedAt: string | null;
  endedAt: string;
  /** The runs that tested this entry, in the order they started. */
  runIds: string[];
  mergedSha: string | null;
  /** The PR's head branch, where the git host said it (entries indexed before this field lack it). */
  headBranch?: string;
}

const isFinal = (state: PullRequestState) => FINAL_PULL_REQUEST_STATES.includes(state);
const endKey = (queueId: string, record: PullRequestRecord) => [
  queueId,
  Date.parse(record.stateChangedAt),
  record.number,
];

/** What the history shows of an ended record: its timeline gives when it was submitted and the runs that tested it. */
export function endedEntry(tx: ReadTx, record: PullRequestRecord): EndedPullRequest {
  return entryOf(
    record,
    [...tx.scan('timeline', { prefix: [record.queueId, record.number] })].map((entry) => entry.value),
  );
}

function entryOf(record: PullRequestRecord, timeline: Iterable<TimelineEntry>): EndedPullRequest {
  let submittedAt: string | null = null;
  const runIds: string[] = [];
  for (const value of timeline) {
    if (value.entryId !== record.id) continue;
    submittedAt ??= value.at;
    if (value.runId !== undefined && !runIds.includes(value.runId)) runIds.push(value.runId);
  }
  return {
    number: record.number,
    entryId: record.id,
    title: record.title,
    author: record.author,
    state: record.state,
    reason: record.reason,
    submittedAt,
    endedAt: record.stateChangedAt,
    runIds,
    mergedSha: record.mergedSha,
    ...(record.headBranch === undefined ? {} : { headBranch: record.headBranch }),
  };
}

/** At commit: the PRs this transaction moved into a final state enter the index. */
export function indexEnded(tx: WriteTx, queueId: string, moved: Iterable<PullRequestRecord>): void {
  for (const record of moved) {
    if (isFinal(record.state)) tx.put('endedPullRequests', endKey(queueId, record), endedEntry(tx, record));
  }
}

/** The record is about to be replaced (submitted again) or deleted (retention): its entry leaves the index. */
export function forgetEnded(tx: WriteTx, queueId: string, record: PullRequestRecord): void {
  if (isFinal(record.state)) tx.remove('endedPullRequests', endKey(queueId, record));
}

/** Set once the index holds every ended PR: when a new store is made (checkStoreFormat), or after the backfill. */
export const ENDED_INDEX_COMPLETE = ['endedPullRequestsIndex'];

/**
 * A store written before the index: every queue's ended records are indexed once, in one transaction per queue,
 * then a marker says it is done. A full store is left as it is (its history shows what the index holds).
 */
export function backfillEndedIndex(
  store: Store,
  onWarning: (message: string) => void = (message) => console.warn(`greenline: ${message}`),
): void {
  if (store.read((tx) => tx.get('meta', ENDED_INDEX_COMPLETE)) !== undefined) return;
  try {
    const queueIds = store.read((tx) => [...tx.scan('queues')].map((entry) => entry.value.id));
    for (const queueId of queueIds) {
      store.write((tx) => {
        const ended = new Map<number, PullRequestRecord>();
        for (const { value } of tx.scan('pullRequests', { prefix: [queueId] }))
          if (isFinal(value.state)) ended.set(value.number, value);
        // One pass over the queue's timelines (keyed [queueId, number, seq]: each PR's lines together, in order).
        let number: number | undefined;
        let lines: TimelineEntry[] = [];
        const flush = () => {
          const record = number === undefined ? undefined : ended.get(number);
          if (record !== undefined) tx.put('endedPullRequests', endKey(queueId, record), entryOf(record, lines));
          if (number !== undefined) ended.delete(number);
        };
        for (const { key, value } of tx.scan('timeline', { prefix: [queueId] })) {
          if (key[1] !== number) {
            flush();
            number = key[1] as number;
            lines = [];
          }
          if (number !== undefined && ended.has(number)) lines.push(value);
        }
        flush();
        // Ended records whose timelines are gone.
        for (const record of ended.values()) tx.put('endedPullRequests', endKey(queueId, record), entryOf(record, []));
      });
    }
    store.write((tx) => tx.put('meta', ENDED_INDEX_COMPLETE, true));
  } catch (error) {
    if (!(error instanceof StorageFullError)) throw error;
    onWarning(`the store is full, so the history of ended pull requests could not be indexed (${error.message})`);
  }
}

export interface HistoryQuery {
  /** A PR number (`42` or `#42`), or words the title or author must contain (case-insensitive); empty: all. */
  search?: string;
  /** The `next` of the page before: the key of its last row, `endedAtMs.number`. */
  after?: string;
  take: number;
  /** The most index entries one page examines (default HISTORY_SCAN_LIMIT); a search stops there and says so. */
  scanLimit?: number;
}

export interface HistoryPage {
  rows: EndedPullRequest[];
  /** Absent on the last page. */
  next?: string;
  /**
   * Set when a search stopped at its scan limit before the page was full: the PRs that ended at or after this time
   * (ISO) were searched, older ones not yet; `next` goes on from there.
   */
  searchedBack?: string;
}

/**
 * The most index entries a page of the history examines. A search for words that match little would otherwise walk
 * the whole index inside one read (7.5 s on 100,000 ended PRs under load, holding the event loop): it stops here and
 * the page offers to search older PRs, as a search engine pages through time.
 */
export const HISTORY_SCAN_LIMIT = 2_000;

/** Parses a page cursor; undefined when it is not one. */
export function parseCursor(cursor: string): [number, number] | undefined {
  const match = /^(\d{1,15})\.(\d{1,10})$/.exec(cursor);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

/**
 * A page of the queue's ended PRs, newest first. A number is looked up directly; words are matched against titles
 * and authors while walking the index from the newest (a page ends once it has `take` rows and knows another follows).
 */
export function readHistory(tx: ReadTx, queueId: string, query: HistoryQuery): HistoryPage | 'unknown cursor' {
  const search = (query.search ?? '').trim();
  const number = /^#?(\d{1,10})$/.exec(search);
  if (number !== null) {
    const record = tx.get('pullRequests', [queueId, Number(number[1])]);
    const entry =
      record === undefined || !isFinal(record.state) ? undefined : tx.get('endedPullRequests', endKey(queueId, record));
    return { rows: entry === undefined ? [] : [entry] };
  }
  let end: (string | number)[] | undefined;
  if (query.after !== undefined && query.after !== '') {
    const cursor = parseCursor(query.after);
    if (cursor === undefined) return 'unknown cursor';
    end = [queueId, ...cursor];
  }
  const words = search
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  const matches = (entry: EndedPullRequest) => {
    const text = `${entry.title}\n${entry.author}`.toLowerCase();
    return words.every((word) => text.includes(word));
  };
  const rows: EndedPullRequest[] = [];
  const cursorOf = (key: readonly (string | number)[]) => `${key[1]}.${key[2]}`;
  // Walked newest first until the page is full and one more match says another page follows (without words, the
  // first chunk is the page), or until the scan limit: then the page goes on from the last entry examined.
  const limit = Math.max(query.take + 1, query.scanLimit ?? HISTORY_SCAN_LIMIT);
  const chunk = words.length === 0 ? query.take + 1 : Math.max(256, 4 * query.take);
  let examined = 0;
  let last: Entry<EndedPullRequest> | undefined;
  for (const entry of endedNewestFirst(tx, queueId, end, (seen) => Math.min(chunk, limit - seen))) {
    examined += 1;
    last = entry;
    if (!matches(entry.value)) continue;
    if (rows.length === query.take)
      return { rows, next: cursorOf([queueId, Date.parse(rows.at(-1)!.endedAt), rows.at(-1)!.number]) };
    rows.push(entry.value);
  }
  if (examined < limit || last === undefined) return { rows };
  // Nothing between the last row and the last entry examined matched: the next page starts after the latter.
  const page: HistoryPage = { rows, next: cursorOf(last.key) };
  return rows.length < query.take ? { ...page, searchedBack: last.value.endedAt } : page;
}

/**
 * The queue's index entries newest first (before `end`, when given), read a chunk at a time (stores read a scan
 * whole) of `chunkSize(entries read so far)` entries, so that a walk that stops early reads no more than its chunk;
 * ends when the index does or the size is 0.
 */
function* endedNewestFirst(
  tx: ReadTx,
  queueId: string,
  from: Key | undefined,
  chunkSize: (seen: number) => number,
): Generator<Entry<EndedPullRequest>> {
  let end = from;
  let seen = 0;
  for (;;) {
    const size = chunkSize(seen);
    if (size <= 0) return;
    const entries = [
      ...tx.scan('endedPullRequests', {
        prefix: [queueId],
        reverse: true,
        limit: size,
        ...(end === undefined ? {} : { end }),
      }),
    ];
    yield* entries;
    seen += entries.length;
    if (entries.length < size) return;
    end = entries.at(-1)!.key;
  }
}

/**
 * The number of the ended PR of `branch` that ended last, walking the index newest first a chunk at a time (stores
 * read a scan whole) and stopping at the first; undefined when none did.
 */
export function lastEndedOfBranch(tx: ReadTx, queueId: string, branch: string): number | undefined {
  for (const { value } of endedNewestFirst(tx, queueId, undefined, () => 256)) {
    // An entry indexed before it held the branch: the record says it.
    const headBranch =
      'headBranch' in value ? value.headBranch : tx.get('pullRequests', [queueId, value.number])?.headBranch;
    if (headBranch === branch) return value.number;
  }
  return undefined;
}

/**
 * The queue's PRs that ended at or after `since` and, when given, at or before `until` (ms), oldest first: the days
 * the organization page draws, and listPullRequests' ranges. The keys hold the end in ms since 1970 (a key part is a
 * non-negative safe integer): a bound before 1970 or past the largest date is clamped to the keys there can be, and a
 * bound that is not a time (NaN) holds nothing.
 */
export function readEndedSince(tx: ReadTx, queueId: string, since: number, until?: number): EndedPullRequest[] {
  if (Number.isNaN(since) || (until !== undefined && !(until >= 0))) return [];
  const at = (ms: number) => Math.min(Math.max(0, ms), Number.MAX_SAFE_INTEGER - 1);
  const upper = until === undefined ? {} : { end: [queueId, at(Math.floor(until) + 1)] };
  const ended = tx.scan('endedPullRequests', { prefix: [queueId], start: [queueId, at(Math.ceil(since))], ...upper });
  return [...ended].map((entry) => entry.value);
}
