/**
 * Retention of flaky-test results. They are outside any queue (keyed by organization and repository), so they are
 * deleted with plain store writes, `batch` records per transaction, yielding between transactions. What goes:
 * uploads received before the cutoff, failures by time before it (the failing-tests listing reads a window of at
 * most 7 days), per-commit results last seen before it, and a commit's verdict once every upload it names is gone.
 * Each test's own record (its counters, hour and day buckets, status history) is kept: it is bounded per test.
 */
import type { Key, Store, StoreSchema, CollectionName, KeyPart } from '../store/store.js';
import { nextTick } from './queues.js';
import { pruneDeliveries } from '../deliveries.js';

export interface ResultCounts {
  uploads: number;
  failures: number;
  commits: number;
  shas: number;
  deliveries: number;
}

/**
 * Walks a collection under `prefix` from start to end, `batch` entries per write transaction, deleting those `drop`
 * says to; stops early when `stop` says every later entry is kept (an ordered collection), and between two
 * transactions once `go` says no more (the service stopping: the next sweep goes on from there).
 */
async function sweepRange<C extends CollectionName>(
  store: Store,
  collection: C,
  prefix: Key,
  batch: number,
  drop: (value: StoreSchema[C], key: KeyPart[]) => boolean,
  stop: (value: StoreSchema[C], key: KeyPart[]) => boolean = () => false,
  go: () => boolean = () => true,
): Promise<number> {
  let start: Key | undefined;
  let removed = 0;
  for (;;) {
    if (!go()) return removed;
    const step = store.write((tx) => {
      const entries = [...tx.scan(collection, { prefix, ...(start === undefined ? {} : { start }), limit: batch + 1 })];
      let done = entries.length <= batch;
      let count = 0;
      for (const { key, value } of entries.slice(0, batch)) {
        if (stop(value, key)) {
          done = true;
          break;
        }
        if (drop(value, key)) {
          tx.remove(collection, key);
          count++;
        }
      }
      return { count, done, next: entries[batch]?.key };
    });
    removed += step.count;
    if (step.done || step.next === undefined) return removed;
    start = step.next;
    await nextTick();
  }
}

/**
 * Per-commit results last seen before `before`, commit by commit (their key begins with the commit): a commit whose
 * uploads all ran before it goes whole, one whose uploads all ran at or after it is kept without being read, and only
 * one between (or one stored before its commit record kept these times) is read result by result. Every per-commit
 * result has its commit's record (both are written by the same transactions, and the commit's record goes only once
 * its uploads have, after its results), so none is missed. It walked every result of the repository at each sweep.
 */
async function sweepCommits(store: Store, prefix: Key, before: number, batch: number, go: () => boolean) {
  const commits = store.read((tx) =>
    [...tx.scan('flakyShas', { prefix })].map(({ key, value }) => ({ sha: key[2], ...value })),
  );
  let removed = 0;
  for (const { sha, firstAt, lastAt } of commits) {
    if (!go()) break;
    if (firstAt !== undefined && firstAt >= before) continue;
    const whole = lastAt !== undefined && lastAt < before;
    const drop = (result: StoreSchema['flakyCommits']) => whole || result.lastAt < before;
    removed += await sweepRange(store, 'flakyCommits', [...prefix, sha as KeyPart], batch, drop, undefined, go);
  }
  return removed;
}

/** Deletes the results of one repository older than `before` (ms); stops between two transactions once `go` says no. */
export async function pruneRepoResults(
  store: Store,
  org: string,
  repoId: string,
  before: number,
  batch: number,
  go: () => boolean = () => true,
): Promise<Omit<ResultCounts, 'deliveries'>> {
  const prefix = [org, repoId];
  const uploads = await sweepRange(
    store,
    'flakyUploads',
    prefix,
    batch,
    (upload) => upload.receivedAt < before,
    (upload) => upload.receivedAt >= before,
    go,
  );
  const failures = await sweepRange(
    store,
    'flakyFailures',
    prefix,
    batch,
    (_value, key) => Number(key[2]) < before,
    (_value, key) => Number(key[2]) >= before,
    go,
  );
  const commits = await sweepCommits(store, prefix, before, batch, go);
  // The oldest upload kept: a commit's verdict whose uploads are all older than it has nothing left to stand on.
  const firstKept = store.read((tx) => {
    const [first] = [...tx.scan('flakyUploads', { prefix, limit: 1 })];
    return first === undefined ? (tx.get('flakyRepos', prefix)?.seq ?? 0) + 1 : first.value.seq;
  });
  const shas = await sweepRange(
    store,
    'flakyShas',
    prefix,
    batch,
    (sha) => sha.uploads.every((seq) => seq < firstKept),
    undefined,
    go,
  );
  // An upload's identity goes with it: sent again after that, it is a new upload.
  await sweepRange(store, 'flakyUploadKeys', prefix, batch, (seq) => seq < firstKept, undefined, go);
  return { uploads, failures, commits, shas };
}

/**
 * Deletes flaky-test results older than `before` in every repository, and webhook deliveries older than
 * `deliveriesBefore`; stops between two transactions once `go` says no (the service stopping).
 */
export async function pruneResults(
  store: Store,
  before: number | undefined,
  deliveriesBefore: number | undefined,
  batch: number,
  go: () => boolean = () => true,
): Promise<ResultCounts> {
  const counts: ResultCounts = { uploads: 0, failures: 0, commits: 0, shas: 0, deliveries: 0 };
  if (before !== undefined) {
    const repos = store.read((tx) =>
      [...tx.scan('flakyRepos')].map(({ key }) => [String(key[0]), String(key[1])] as const),
    );
    for (const [org, repoId] of repos) {
      if (!go()) return counts;
      const repo = await pruneRepoResults(store, org, repoId, before, batch, go);
      counts.uploads += repo.uploads;
      counts.failures += repo.failures;
      counts.commits += repo.commits;
      counts.shas += repo.shas;
    }
  }
  if (deliveriesBefore !== undefined && go()) {
    // Through the index of deliveries by arrival, oldest first: it walked every delivery id kept.
    for (let removed = batch; removed === batch && go(); ) {
      removed = pruneDeliveries(store, deliveriesBefore, 0, batch);
      counts.deliveries += removed;
      if (removed === batch) await nextTick();
    }
  }
  return counts;
}
