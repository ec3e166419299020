/**
 * The index of ended PRs (engine/history/endedIndex.ts) on every store: it holds exactly the final PR records, each
 * under when it ended, through merges, failures, cancels, a PR submitted again, retention and a queue deleted; pages
 * walk it newest first; search by number, title and author; a store made before the index is filled at start.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FINAL_PULL_REQUEST_STATES } from '../../machines/vocabulary.js';
import { HISTORY_SCAN_LIMIT, readHistory } from '../../engine/history/endedIndex.js';
import { RetentionSweep } from '../../engine/retention/sweep.js';
import { createMemoryStore, openLmdbStore } from '../../engine/store/index.js';
import { postgresStore } from '../postgres/testStore.js';
import type { ReadTx, Store } from '../../engine/store/store.js';
import { startPostgres, type PgCluster } from '../postgres/cluster.js';
import { KEY, QueueHarness } from './queueHarness.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: ended-PR index on PostgreSQL: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

type Opened = { store: Store; cleanup: () => Promise<void> };
const STORES: Record<string, (() => Promise<Opened>) | undefined> = {
  memory: async () => ({ store: createMemoryStore(), cleanup: async () => undefined }),
  lmdb: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'greenline-ended-'));
    const store = openLmdbStore({ dir, noSync: true });
    return { store, cleanup: async () => (await store.close(), await rm(dir, { recursive: true, force: true })) };
  },
  postgres: cluster === undefined ? undefined : () => postgresStore(cluster),
};

/** The index as stored, and what it must be: one key per final record, [queueId, endedAtMs, number]. */
function expectIndexConsistent(h: QueueHarness): void {
  const { keys, expected } = h.store.read((tx) => ({
    keys: [...tx.scan('endedPullRequests')].map((entry) => entry.key.join('|')).sort(),
    expected: [...tx.scan('pullRequests')]
      .map((entry) => entry.value)
      .filter((pr) => FINAL_PULL_REQUEST_STATES.includes(pr.state))
      .map((pr) => [pr.queueId, Date.parse(pr.stateChangedAt), pr.number].join('|'))
      .sort(),
  }));
  expect(keys).toEqual(expected);
}

const DAY_MIN = 24 * 60;

for (const [kind, open] of Object.entries(STORES)) {
  describe.skipIf(open === undefined)(`ended-PR index on ${kind}`, () => {
    test('it follows merges, failures, cancels, a PR submitted again, retention and deleting the queue', async () => {
      const { store, cleanup } = await open!();
      try {
        const h = new QueueHarness(store);
        await h.create({ concurrency: 1 });
        await h.submit(1);
        await h.pass(1);
        await h.advanceMinutes(1);
        await h.submit(2, 3, 4);
        await h.pass(2);
        await h.advanceMinutes(1);
        await h.fail(3);
        await h.advanceMinutes(1);
        h.engine.cancelPullRequest(KEY, 4);
        await h.engine.settle();
        expectIndexConsistent(h);

        const page = h.engine.history(KEY, { take: 10 });
        if (page === 'unknown cursor') throw new Error('unexpected');
        expect(page.rows.map((row) => [row.number, row.state])).toEqual([
          [4, 'CANCELLED'],
          [3, 'FAILED'],
          [2, 'MERGED'],
          [1, 'MERGED'],
        ]);
        expect(page.rows[1]!.reason).not.toBeNull();
        expect(page.rows[2]!.runIds.length).toBeGreaterThan(0);
        expect(page.rows[3]!.submittedAt).not.toBeNull();
        expect(page.next).toBeUndefined();

        // Paged two at a time, newest first, with nothing skipped or repeated.
        const first = h.engine.history(KEY, { take: 2 });
        if (first === 'unknown cursor' || first.next === undefined) throw new Error('expected a next page');
        const second = h.engine.history(KEY, { take: 2, after: first.next });
        if (second === 'unknown cursor') throw new Error('unexpected');
        expect([...first.rows, ...second.rows].map((row) => row.number)).toEqual([4, 3, 2, 1]);
        expect(second.next).toBeUndefined();
        expect(h.engine.history(KEY, { take: 2, after: 'nonsense' })).toBe('unknown cursor');

        // Search: a number (with or without #), words of the title or the author.
        const titleOf3 = h.pr(3).title;
        const search = (text: string) => {
          const found = h.engine.history(KEY, { take: 10, search: text });
          return found === 'unknown cursor' ? [] : found.rows.map((row) => row.number);
        };
        expect(search('#3')).toEqual([3]);
        expect(search('2')).toEqual([2]);
        expect(search('99')).toEqual([]);
        expect(search(titleOf3.toUpperCase())).toContain(3);
        expect(search(h.pr(1).author)).toEqual([4, 3, 2, 1].filter((number) => h.pr(number).author === h.pr(1).author));

        // Submitted again, 4 is in the queue: out of the history until it ends again.
        await h.submit(4);
        expectIndexConsistent(h);
        expect(search('4')).toEqual([]);
        await h.pass(4);
        expectIndexConsistent(h);
        expect(search('4')).toEqual([4]);

        // Retention deletes old ended PRs, and their entries with them.
        await h.advanceMinutes(100 * DAY_MIN);
        await h.submit(5);
        await new RetentionSweep({
          engine: h.engine,
          store,
          clock: h.scheduler,
          settings: { batch: 2, eventsDays: 0 },
        }).sweep();
        expectIndexConsistent(h);
        const left = h.engine.history(KEY, { take: 10 });
        expect(left !== 'unknown cursor' && left.rows.length).toBe(0);

        await h.pass(5);
        expectIndexConsistent(h);
        h.engine.deleteQueue(KEY);
        expect(store.read((tx) => tx.count('endedPullRequests'))).toBe(0);
      } finally {
        await cleanup();
      }
    });

    test('a store written before the index has it filled once at start', async () => {
      const { store, cleanup } = await open!();
      try {
        const h = new QueueHarness(store);
        await h.create({ concurrency: 1 });
        await h.submit(1, 2);
        await h.pass(1);
        await h.pass(2);
        // As a store of an earlier build: no index, no marker.
        store.write((tx) => {
          for (const { key } of [...tx.scan('endedPullRequests')]) tx.remove('endedPullRequests', key);
          tx.remove('meta', ['endedPullRequestsIndex']);
        });
        await h.crashAndRestore();
        expectIndexConsistent(h);
        expect(store.read((tx) => tx.count('endedPullRequests'))).toBe(2);
      } finally {
        await cleanup();
      }
    });
  });
}

describe('pages of the history', () => {
  test('paged by words or not, every match comes once, newest first, across the chunks the index is read in', () => {
    const store = createMemoryStore();
    const entries = Array.from({ length: 1500 }, (_, index) => ({
      number: index + 1,
      entryId: `e${index}`,
      title: `change ${index % 3 === 0 ? 'parser' : 'cache'} ${index}`,
      author: `dev${index % 7}`,
      state: 'MERGED' as const,
      reason: null,
      submittedAt: null,
      // Some end in the same millisecond: the number orders them.
      endedAt: new Date(Date.parse('2026-01-01T00:00:00Z') + Math.floor(index / 2) * 1000).toISOString(),
      runIds: [],
      mergedSha: null,
    }));
    store.write((tx) => {
      for (const entry of entries) tx.put('endedPullRequests', ['q_1', Date.parse(entry.endedAt), entry.number], entry);
      tx.put('endedPullRequests', ['q_2', 0, 1], entries[0]!);
    });
    const newestFirst = [...entries].reverse();
    // With the default scan limit, and with one so small that most searches stop at it and go on from there.
    for (const scanLimit of [undefined, 100]) {
      for (const [search, expected] of [
        ['', newestFirst],
        ['parser dev3', newestFirst.filter((entry) => entry.title.includes('parser') && entry.author === 'dev3')],
        ['DEV6', newestFirst.filter((entry) => entry.author === 'dev6')],
        ['nothing matches this', []],
      ] as const) {
        const seen: number[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 100; pages++) {
          const page = store.read((tx) =>
            readHistory(tx, 'q_1', {
              search,
              take: 37,
              ...(scanLimit === undefined ? {} : { scanLimit }),
              ...(after === undefined ? {} : { after }),
            }),
          );
          if (page === 'unknown cursor') throw new Error('unexpected');
          if (page.searchedBack !== undefined) expect(page.rows.length, search).toBeLessThan(37);
          seen.push(...page.rows.map((row) => row.number));
          if (page.next === undefined) break;
          after = page.next;
        }
        expect(seen, `${search} (scan limit ${scanLimit})`).toEqual(expected.map((entry) => entry.number));
      }
    }
  });

  test('a search stops at its scan limit and says how far back it looked, instead of reading the whole index', () => {
    const store = createMemoryStore();
    const at = (index: number) => Date.parse('2026-01-01T00:00:00Z') + index * 1000;
    store.write((tx) => {
      for (let index = 0; index < 5000; index++) {
        const entry = {
          number: index + 1,
          entryId: `e${index}`,
          title: `change ${index}`,
          author: 'dev',
          state: 'MERGED' as const,
          reason: null,
          submittedAt: null,
          endedAt: new Date(at(index)).toISOString(),
          runIds: [],
          mergedSha: null,
        };
        tx.put('endedPullRequests', ['q_1', at(index), index + 1], entry);
      }
    });
    let scanned = 0;
    const counting = (tx: ReadTx): ReadTx =>
      ({
        ...tx,
        scan: (collection, options) => {
          const entries = [...tx.scan(collection, options)];
          scanned += entries.length;
          return entries.values();
        },
      }) as ReadTx;
    const page = store.read((tx) => readHistory(counting(tx), 'q_1', { search: 'no such words', take: 50 }));
    if (page === 'unknown cursor') throw new Error('unexpected');
    expect(page.rows).toEqual([]);
    expect(scanned).toBe(HISTORY_SCAN_LIMIT);
    // It looked back to the oldest entry it examined, and the next page starts just below it.
    expect(page.searchedBack).toBe(new Date(at(5000 - HISTORY_SCAN_LIMIT)).toISOString());
    expect(page.next).toBe(`${at(5000 - HISTORY_SCAN_LIMIT)}.${5000 - HISTORY_SCAN_LIMIT + 1}`);
  });
});
