/**
 * The history of ended PRs (engine/history/endedIndex.ts) on 100,000 ended PRs in LMDB: the first page, a later page,
 * a search by number and by words, through the engine and as the dashboard serves the page (Fastify inject). The
 * baseline, measured in the same run, is what a page cost without the index: every PR record of the queue read,
 * the ended ones sorted by when they ended, the first 50 taken. Also: how long the one-time fill of the index takes
 * on a store written before it. Figures are printed; nothing is asserted.
 *
 * The first 1,000 PRs go through the engine (submitted, cancelled); the rest copy their records and timelines under
 * other numbers, titles, authors and end times (what 100,000 transactions would have written, in far less time).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer } from '../api/server.js';
import { Engine } from '../engine/engine.js';
import { backfillEndedIndex, ENDED_INDEX_COMPLETE } from '../engine/history/endedIndex.js';
import { FINAL_PULL_REQUEST_STATES } from '../machines/vocabulary.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { openLmdbStore } from '../engine/store/index.js';
import { pagePullRequests } from '../engine/pullRequestListing.js';
import type { ListingFilter } from '../engine/queueReads.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { measure, report } from './measure.js';

const TOKEN = 'bench-token-0123456789abcdef';
const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const ENDED = Number(process.env.HISTORY_PRS ?? 100_000);
const THROUGH_ENGINE = 1_000;
const AUTHORS = Array.from({ length: 50 }, (_, index) => `dev${index}`);
const WORDS = [
  'fix',
  'add',
  'remove',
  'refactor',
  'bump',
  'docs',
  'parser',
  'cache',
  'login',
  'queue',
  'build',
  'flaky',
];

export async function benchHistory(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-history-'));
  const store = openLmdbStore({ dir });
  const clock = new VirtualScheduler(Date.parse('2026-01-01T00:00:00Z'));
  const engine = new Engine(store, { scheduler: clock });
  engine.start();
  syncConfiguredTokens(store, [{ org: 'acme', token: TOKEN }], new Date().toISOString());
  const app = await buildServer({ engine });
  try {
    const key = { org: 'acme', repo: REPO, branch: 'main' };
    const queueId = engine.createQueue(key, { concurrency: 1 }).id;
    engine.updateQueue(key, { state: 'paused' });
    for (let number = 1; number <= THROUGH_ENGINE; number++) {
      engine.submitPullRequest(key, number);
      clock.advanceBy(1000);
      engine.cancelPullRequest(key, number);
    }
    await engine.settle();
    const made = performance.now();
    const templates = engine.listPullRequests(key);
    const timelines = new Map(
      templates.map((pr) => [
        pr.number,
        store.read((tx) => [...tx.scan('timeline', { prefix: [queueId, pr.number] })].map((entry) => entry.value)),
      ]),
    );
    const start = Date.parse(templates.at(-1)!.stateChangedAt);
    for (let from = THROUGH_ENGINE + 1; from <= ENDED; from += 5_000) {
      store.write((tx) => {
        for (let number = from; number < Math.min(ENDED + 1, from + 5_000); number++) {
          const template = templates[number % templates.length]!;
          const endedAt = new Date(start + (number - THROUGH_ENGINE) * 7_000).toISOString();
          const id = `${template.id}_${number}`;
          const title = `${WORDS[number % WORDS.length]} ${WORDS[(number * 7) % WORDS.length]} #${number}`;
          tx.put('pullRequests', [queueId, number], {
            ...template,
            id,
            number,
            title,
            author: AUTHORS[number % AUTHORS.length]!,
            stateChangedAt: endedAt,
          });
          timelines.get(template.number)!.forEach((line, seq) => {
            tx.put('timeline', [queueId, number, 1_000_000 + number * 4 + seq], {
              ...line,
              entryId: id,
              at: seq === 0 ? new Date(Date.parse(endedAt) - 60_000).toISOString() : endedAt,
            });
          });
        }
      });
    }
    // The copies have no index yet: as a store written before it, filled once (what a start does).
    store.write((tx) => tx.remove('meta', ENDED_INDEX_COMPLETE));
    const fill = performance.now();
    backfillEndedIndex(store);
    const fillMs = performance.now() - fill;
    console.log(
      `\nhistory: ${store.read((tx) => tx.count('endedPullRequests', { prefix: [queueId] }))} ended PRs indexed (${THROUGH_ENGINE} through the engine, the rest copied in ${((performance.now() - made) / 1000).toFixed(1)} s); ` +
        `the one-time fill of the index took ${(fillMs / 1000).toFixed(2)} s`,
    );

    const signin = await app.inject({
      method: 'POST',
      url: '/signin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${TOKEN}`,
    });
    const cookie = String(signin.headers['set-cookie']).split(';')[0]!;
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie } });
    const first = engine.history(key, { take: 50 });
    const next = first === 'unknown cursor' ? '' : (first.next ?? '');
    const firstPage = await get(`/queues/${queueId}/history`);
    console.log(
      `history page: status ${firstPage.statusCode}, ${(firstPage.body.length / 1024).toFixed(0)} KiB, ${(firstPage.body.match(/<tr data-pr=/g) ?? []).length} rows`,
    );

    const withoutIndex = () =>
      engine
        .listPullRequests(key)
        .filter((pr) => FINAL_PULL_REQUEST_STATES.includes(pr.state))
        .sort((a, b) => Date.parse(b.stateChangedAt) - Date.parse(a.stateChangedAt) || b.number - a.number)
        .slice(0, 50);
    const baseline = await measure(`without the index: read ${ENDED} records, sort, take 50`, 5, withoutIndex);
    report(`history of ${ENDED} ended PRs (LMDB)`, baseline, [
      await measure('engine.history: first page (50)', 200, () => engine.history(key, { take: 50 })),
      await measure('engine.history: the page after', 200, () => engine.history(key, { take: 50, after: next })),
      await measure('engine.history: search by number (#54321)', 200, () =>
        engine.history(key, { take: 50, search: '#54321' }),
      ),
      await measure('engine.history: search by author (dev7: 1 in 50 match)', 20, () =>
        engine.history(key, { take: 50, search: 'dev7' }),
      ),
      await measure(
        'engine.history: search that matches nothing (one page: up to HISTORY_SCAN_LIMIT entries)',
        20,
        () => engine.history(key, { take: 50, search: 'nothing-matches-this' }),
      ),
      await measure('engine.history: search that matches nothing, whole index (no scan limit, as before)', 5, () =>
        engine.history(key, { take: 50, search: 'nothing-matches-this', scanLimit: Number.MAX_SAFE_INTEGER }),
      ),
      await measure('GET history page, first page (server render)', 100, () => get(`/queues/${queueId}/history`)),
    ]);

    // listPullRequests reads what its filter can match (queueReads.ts readListingCandidates); its baseline is the
    // listing over every record, which it was for every filter before.
    const newestPage = engine.history(key, { take: 1 });
    const newest = newestPage === 'unknown cursor' ? Date.now() : Date.parse(newestPage.rows[0]!.endedAt);
    const listed = (filter: ListingFilter) => () =>
      pagePullRequests(engine.listPullRequests(key, filter), { ...filter, take: 50 });
    const everyRecord = (filter: ListingFilter) => () =>
      pagePullRequests(engine.listPullRequests(key), { ...filter, take: 50 });
    const lastHour = { since: newest - 3_600_000 };
    report(
      `listPullRequests over ${ENDED} PRs (LMDB)`,
      await measure('every record read, concluded in the last hour (as before)', 5, everyRecord(lastHour)),
      [
        await measure('concluded in the last hour (the index of ended PRs)', 100, listed(lastHour)),
        await measure('concluded in the last day (the index of ended PRs)', 20, listed({ since: newest - 86_400_000 })),
        await measure('state TESTING or PENDING (the enqueued PRs)', 200, listed({ states: ['TESTING', 'PENDING'] })),
        await measure('no filter (every record)', 5, listed({})),
      ],
    );
  } finally {
    engine.stop();
    await app.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchHistory();
