/**
 * Known scenarios on the virtual clock, scraped over HTTP and read back with a real exposition-format parser: the
 * values are exactly those the scenario implies, including every histogram bucket, and the one-hour windows drop an
 * observation exactly one hour after it was made.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { makeApi, START, type Api } from '../api/harness.js';
import { Driver, histogramOf, MINUTE, scrape } from './helpers.js';

let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

import { BISECTION, documented, GatedGitHost, MAIN, QUEUE, quiet } from './scenarioViews.js';

describe('metrics after known scenarios', () => {
  test('two merges and one failure: every documented value, bucket by bucket', async () => {
    api = await makeApi();
    const q = new Driver(api);
    await q.create();
    // t0: three PRs; #1 tests at once, #2 and #3 wait (concurrency 1).
    await q.submit(1, 2, 3);
    let scraped = await scrape(api);
    expect(documented(scraped, MAIN)).toEqual({ ...quiet, depth: 3, testing: 1, wait: histogramOf(0) });

    await q.advance(10);
    await q.pass(1); // t0+10: #1 merges after 10 minutes of tests; #2 starts, having waited 10 minutes.
    await q.advance(20);
    await q.fail(2); // t0+30: #2 fails after 20 minutes and is kicked; #3 starts, having waited 30 minutes.
    await q.advance(5);
    await q.pass(3); // t0+35: #3 merges after 5 minutes of tests.

    scraped = await scrape(api);
    expect(documented(scraped, MAIN)).toEqual({
      ...quiet,
      merged: 2,
      failed: 1,
      wait: histogramOf(0, 600, 1800),
      test: histogramOf(600, 1200, 300),
      inQueue: histogramOf(600, 1800, 2100),
    });
    // The buckets spelled out once, to be sure of the helper: waits 0, 600 and 1800 seconds.
    expect(scraped.histogram('mq_pr_wait_duration_1h_seconds', MAIN)?.buckets).toEqual({
      '60': 1,
      '300': 1,
      '600': 2,
      '900': 2,
      '1800': 3,
      '3600': 3,
      '5400': 3,
      '7200': 3,
      '+Inf': 3,
    });
    expect(documented(scraped, BISECTION)).toEqual(quiet);

    // Ours: three single-PR runs (CI 10 + 20 + 5 minutes) for two merges.
    const typed = { ...QUEUE, queue_type: 'main' };
    expect(scraped.value('greenline_ci_runs_started_total', typed)).toBe(3);
    expect(scraped.value('greenline_ci_runs_finished_total', { ...typed, status: 'succeeded' })).toBe(2);
    expect(scraped.value('greenline_ci_runs_finished_total', { ...typed, status: 'failed' })).toBe(1);
    expect(scraped.value('greenline_ci_runs_finished_total', { ...typed, status: 'cancelled' })).toBe(0);
    expect(scraped.value('greenline_ci_run_seconds_total', { ...typed, status: 'succeeded' })).toBe(900);
    expect(scraped.value('greenline_ci_run_seconds_total', { ...typed, status: 'failed' })).toBe(1200);
    expect(scraped.value('greenline_ci_runs_per_merged_pr_1h', QUEUE)).toBe(1.5);
    expect(scraped.value('greenline_ci_seconds_per_merged_pr_1h', QUEUE)).toBe(17.5 * 60);
    expect(scraped.value('greenline_pr_conclusions_total', { ...typed, conclusion: 'merged' })).toBe(2);
    expect(scraped.value('greenline_pr_conclusions_total', { ...typed, conclusion: 'failed' })).toBe(1);
    expect(scraped.histogram('greenline_batch_size_1h', typed)).toEqual({
      buckets: { '1': 3, '2': 3, '3': 3, '4': 3, '6': 3, '8': 3, '12': 3, '16': 3, '24': 3, '32': 3, '+Inf': 3 },
      count: 3,
      sum: 3,
    });
    expect(scraped.value('greenline_bisections_total', QUEUE)).toBe(0);
    expect(scraped.value('greenline_optimistic_merges_total', QUEUE)).toBe(0);
    expect(scraped.value('greenline_direct_merges_total', QUEUE)).toBe(0);
    expect(scraped.value('greenline_pending_failure_rescues_total', { ...QUEUE, outcome: 'retested' })).toBe(0);
    expect(scraped.value('greenline_quarantined_failures_ignored_total', typed)).toBe(0);
    // The engine: everything done, nothing live; one event per committed input.
    const queueId = api.engine.listQueues('acme')[0]?.id ?? '';
    expect(scraped.value('greenline_queue_events_total', QUEUE)).toBe(api.engine.eventLog(queueId).length);
    expect(scraped.value('greenline_event_lag_seconds', QUEUE)).toBe(0);
    expect(scraped.value('greenline_outbox_effects', QUEUE)).toBe(0);
    expect(scraped.value('greenline_active_actors', { ...QUEUE, kind: 'pull_request' })).toBe(0);
    expect(scraped.value('greenline_active_actors', { ...QUEUE, kind: 'test_run' })).toBe(0);
    expect(scraped.value('greenline_queue_info', { ...QUEUE, state: 'running', mode: 'single' })).toBe(1);
    expect(scraped.value('greenline_store_size_bytes')).toBeGreaterThan(0);
  });

  test('the windows are exact: an observation drops out exactly one hour after it was made', async () => {
    api = await makeApi();
    const q = new Driver(api);
    await q.create();
    await q.submit(1, 2, 3);
    await q.advance(10);
    await q.pass(1); // t0+10
    await q.advance(20);
    await q.fail(2); // t0+30
    await q.advance(5);
    await q.pass(3); // t0+35

    // One millisecond before t0+70, #1's merge (t0+10) is 59:59.999 old: still in.
    api.clock.advanceTo(START + 70 * MINUTE - 1);
    let scraped = await scrape(api);
    expect(documented(scraped, MAIN)).toMatchObject({
      merged: 2,
      failed: 1,
      wait: histogramOf(600, 1800),
      inQueue: histogramOf(600, 1800, 2100),
    });
    // At t0+70 it is exactly one hour old: out. So is #2's wait (it ended at t0+10).
    api.clock.advanceTo(START + 70 * MINUTE);
    scraped = await scrape(api);
    expect(documented(scraped, MAIN)).toMatchObject({
      merged: 1,
      failed: 1,
      wait: histogramOf(1800),
      test: histogramOf(1200, 300),
      inQueue: histogramOf(1800, 2100),
    });
    expect(scraped.value('greenline_ci_runs_per_merged_pr_1h', QUEUE)).toBe(2); // runs that ended at t0+30 and t0+35
    // 61 minutes after the last event, the windows are empty; the cumulative counters are not.
    await q.advance(61 - 35);
    api.clock.advanceTo(START + 96 * MINUTE);
    scraped = await scrape(api);
    expect(documented(scraped, MAIN)).toEqual(quiet);
    expect(scraped.value('greenline_ci_runs_per_merged_pr_1h', QUEUE)).toBeUndefined();
    expect(scraped.histogram('greenline_batch_size_1h', { ...QUEUE, queue_type: 'main' })?.count).toBe(0);
    expect(
      scraped.value('greenline_pr_conclusions_total', { ...QUEUE, queue_type: 'main', conclusion: 'merged' }),
    ).toBe(2);
    expect(scraped.value('greenline_ci_runs_started_total', { ...QUEUE, queue_type: 'main' })).toBe(3);
  });

  test('time NOT_READY is not counted; a restart and a cancel', async () => {
    const gitHost = new GatedGitHost();
    gitHost.blocked.add(10);
    api = await makeApi(undefined, { gitHost });
    const q = new Driver(api);
    await q.create();
    await q.submit(10); // t0: not mergeable yet.
    let scraped = await scrape(api);
    expect(documented(scraped, MAIN)).toEqual({ ...quiet, awaiting: 1 });

    await q.advance(15);
    gitHost.blocked.delete(10);
    await q.restart(10); // t0+15: checked again, ready, tests at once: it waited 0 seconds.
    expect(await q.state(10)).toBe('TESTING');
    await q.advance(5);
    await q.restart(10); // t0+20: TESTING → PENDING → TESTING in a new run.
    await q.submit(11); // t0+20: waits behind #10.
    await q.advance(5);
    await q.cancel(11); // t0+25: leaves untested after 5 minutes of waiting.
    await q.advance(5);
    await q.pass(10); // t0+30: merged after 15 minutes in the queue (not 30), 5 + 10 minutes of tests.

    scraped = await scrape(api);
    expect(documented(scraped, MAIN)).toEqual({
      ...quiet,
      merged: 1,
      cancelled: 1,
      restarts: 1,
      wait: histogramOf(0, 300),
      test: histogramOf(900),
      inQueue: histogramOf(900, 300),
    });
    const typed = { ...QUEUE, queue_type: 'main' };
    expect(scraped.value('greenline_ci_runs_finished_total', { ...typed, status: 'cancelled' })).toBe(1);
    expect(scraped.value('greenline_ci_run_seconds_total', { ...typed, status: 'cancelled' })).toBe(300);
    expect(scraped.value('greenline_ci_run_seconds_total', { ...typed, status: 'succeeded' })).toBe(600);
    expect(scraped.value('greenline_ci_runs_per_merged_pr_1h', QUEUE)).toBe(2);
    expect(scraped.value('greenline_ci_seconds_per_merged_pr_1h', QUEUE)).toBe(15 * 60);
    expect(scraped.value('greenline_pr_restarts_total', typed)).toBe(1);
  });
});
