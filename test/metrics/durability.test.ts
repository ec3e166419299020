/**
 * Metrics are derived from what the engine writes in each queue transaction, so they survive a restart on LMDB and a
 * crash after any transaction exactly, and they count what the engine records. On random workloads:
 * test/metrics/durabilityRandom.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { renderMetrics, WINDOW_MS } from '../../engine/metrics/index.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import type { MergeRequest, MergeResult } from '../../engine/providers/types.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { makeApi, START, type Api } from '../api/harness.js';
import { QueueHarness } from '../engine/queueHarness.js';
import { Driver, Exposition, histogramOf, MINUTE, scrape } from './helpers.js';

let dir = '';
let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** The scrape without the one service-wide figure that depends on the store's file layout. */
const comparable = (text: string) => text.replace(/^greenline_store_size_bytes .*$/m, '');

const MAIN = { repo: 'acme/widgets', branch: 'main', queue_type: 'main' };

describe('across a restart on LMDB', () => {
  test('the scrape is the same after the restart, and a PR testing across it is timed exactly', async () => {
    dir = mkdtempSync(join(tmpdir(), 'greenline-metrics-'));
    api = await makeApi(openLmdbStore({ dir, noSync: true }));
    let q = new Driver(api);
    await q.create();
    await q.submit(1, 2);
    await q.advance(10);
    await q.pass(1); // t0+10: #1 merged; #2 tests from now.
    await q.advance(5);
    const before = await scrape(api);

    await api.close();
    api = await makeApi(openLmdbStore({ dir, noSync: true }));
    api.clock.advanceTo(START + 15 * MINUTE); // the new process's clock reads what the old one did
    q = new Driver(api);
    const after = await scrape(api);
    expect(comparable(after.text)).toBe(comparable(before.text));

    await q.advance(20);
    await q.pass(2); // t0+35: #2 tested for 25 minutes, 5 of them before the restart.
    const done = await scrape(api);
    expect(done.histogram('mq_pr_test_duration_1h_seconds', MAIN)).toEqual(histogramOf(600, 1500));
    expect(done.histogram('mq_pr_time_in_queue_1h_seconds', MAIN)).toEqual(histogramOf(600, 2100));
    expect(done.histogram('mq_pr_wait_duration_1h_seconds', MAIN)).toEqual(histogramOf(0, 600));
    expect(done.value('mq_pr_conclusions_1h_total', { ...MAIN, conclusion: 'merged' })).toBe(2);
    // And the window closes on the restored clock as on the first: one hour after #2 merged, nothing is left.
    api.clock.advanceTo(START + 95 * MINUTE);
    expect((await scrape(api)).value('mq_pr_conclusions_1h_total', { ...MAIN, conclusion: 'merged' })).toBe(0);
  });

  test('a queue entry that began before metrics were recorded still counts its conclusion, without durations', async () => {
    api = await makeApi();
    const q = new Driver(api);
    await q.create();
    await q.submit(1);
    // As if #1 had been submitted by a build that recorded no metrics: its clock is missing. Another process's
    // transaction (an update that changes nothing) moves the queue on: the engine's working set is then rebuilt.
    api.store.write((tx) => {
      for (const { key } of [...tx.scan('metricsPrs')]) tx.remove('metricsPrs', key);
    });
    const [queue] = api.engine.listQueues('acme');
    new Engine(api.store, { scheduler: api.clock }).updateQueue(
      { org: queue!.org, repo: queue!.repo, branch: queue!.branch },
      {},
    );
    await q.advance(10);
    await q.pass(1);
    const scraped = await scrape(api);
    expect(scraped.value('mq_pr_conclusions_1h_total', { ...MAIN, conclusion: 'merged' })).toBe(1);
    expect(scraped.histogram('mq_pr_test_duration_1h_seconds', MAIN)?.count).toBe(0);
    expect(scraped.histogram('mq_pr_time_in_queue_1h_seconds', MAIN)?.count).toBe(0);
  });
});

describe('what the engine records', () => {
  test('failures ignored through quarantine are read from the run when it ends', async () => {
    const h = new QueueHarness();
    await h.create();
    await h.submit(1);
    // The flaky-test integration marks the run's quarantined failures on its record (runMoves.ts quarantinedFailures).
    const run = h.runOf(1);
    h.store.write((tx) =>
      tx.put('testRuns', [h.queueId, run.id], { ...run, quarantinedFailures: ['suite/a', 'suite/b'] }),
    );
    // Written behind the engine's back: a restart rebuilds its working set from the store.
    await h.crashAndRestore();
    await h.pass(1);
    const scraped = new Exposition((await renderMetrics({ store: h.store, org: 'acme', now: h.scheduler.now() })).text);
    const labels = { repo_host: 'github.com', repo: 'acme/widgets', branch: 'main', queue_type: 'main' };
    expect(scraped.value('greenline_quarantined_failures_ignored_total', labels)).toBe(2);
    expect(scraped.value('greenline_quarantined_failures_ignored_total', { ...labels, queue_type: 'bisection' })).toBe(
      0,
    );
  });

  test('an effect that keeps failing shows as event lag until it succeeds', async () => {
    let refuse = true;
    const gitHost = new (class extends SimGitHost {
      override async merge(request: MergeRequest): Promise<MergeResult> {
        if (refuse) throw new Error('the git host is down');
        return super.merge(request);
      }
    })();
    api = await makeApi(undefined, { gitHost, onError: () => {} });
    const q = new Driver(api);
    await q.create();
    await q.submit(1);
    await q.advance(10);
    await q.pass(1); // t0+10: the merge is decided; the git host refuses it, again and again.
    await q.advance(3);
    const labels = { repo_host: 'github.com', repo: 'acme/widgets', branch: 'main' };
    let scraped = await scrape(api);
    expect(scraped.value('greenline_event_lag_seconds', labels)).toBe(180);
    expect(scraped.value('greenline_outbox_effects', labels)).toBeGreaterThan(0);
    refuse = false;
    await q.advance(5); // the next retry succeeds
    scraped = await scrape(api);
    expect(await q.state(1)).toBe('MERGED');
    expect(scraped.value('greenline_event_lag_seconds', labels)).toBe(0);
    expect(scraped.value('greenline_outbox_effects', labels)).toBe(0);
  });

  test('the metrics log keeps one hour, however long the history', async () => {
    const h = new QueueHarness();
    await h.create();
    for (let number = 1; number <= 40; number++) {
      await h.submit(number);
      await h.advanceMinutes(10);
      await h.pass(number);
    }
    // 400 minutes of history; 6 PRs concluded in the last hour (each conclusion writes a handful of entries).
    const log = h.store.read((tx) => [...tx.scan('metricsLog', { prefix: [h.queueId] })]);
    const now = h.scheduler.now();
    expect(log.every(({ key }) => Number(key[1]) > now - WINDOW_MS)).toBe(true);
    expect(log.length).toBeLessThan(40);
    // Per-PR clocks live only while the PR is in the queue.
    expect(h.store.read((tx) => tx.count('metricsPrs', { prefix: [h.queueId] }))).toBe(0);
  });
});
