/**
 * Known scenarios with batches on the virtual clock (a failed batch bisected, optimistic merge and a pending-failure
 * rescue, direct merges), scraped over HTTP and read back with a real exposition-format parser: the values are exactly
 * those the scenario implies. The scenarios of single PRs are test/metrics/scenarios.test.ts.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { makeApi, type Api } from '../api/harness.js';
import { Driver, histogramOf, scrape } from './helpers.js';

let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

import { BISECTION, documented, MAIN, QUEUE, quiet } from './scenarioViews.js';

describe('metrics after known scenarios with batches', () => {
  test('a failed batch bisected: bisection runs, conclusions and durations under queue_type="bisection"', async () => {
    api = await makeApi();
    const q = new Driver(api);
    await q.create({ batch: true, batchingMinSize: 2 });
    await q.submit(1, 2); // t0: one batch of two.
    await q.advance(10);
    // t0+10: the batch fails; both go back to PENDING, and #1 and #2 are each tested alone in the bisection (the
    // pool holds concurrency + bisectionConcurrency slots, and the main line has nothing to test).
    await q.fail(1);
    let scraped = await scrape(api);
    expect(documented(scraped, MAIN)).toEqual({ ...quiet, restarts: 2, wait: histogramOf(0, 0) });
    expect(documented(scraped, BISECTION)).toEqual({ ...quiet, depth: 2, testing: 2 });
    await q.advance(10);
    await q.pass(1); // t0+20: #1 is found good: it goes back to the main line and merges on that run.
    await q.advance(5);
    await q.fail(2); // t0+25: #2 is the culprit.

    scraped = await scrape(api);
    // #1 merged from the main line (10 min in the batch, 10 alone); #2 failed in the bisection (10 min in the batch,
    // then 15 alone).
    expect(documented(scraped, MAIN)).toEqual({
      ...quiet,
      merged: 1,
      restarts: 2,
      wait: histogramOf(0, 0),
      test: histogramOf(1200),
      inQueue: histogramOf(1200),
    });
    expect(documented(scraped, BISECTION)).toEqual({
      ...quiet,
      failed: 1,
      test: histogramOf(1500),
      inQueue: histogramOf(1500),
    });
    expect(scraped.value('greenline_bisections_total', QUEUE)).toBe(1);
    expect(scraped.value('greenline_ci_runs_started_total', { ...QUEUE, queue_type: 'main' })).toBe(1);
    expect(scraped.value('greenline_ci_runs_started_total', { ...QUEUE, queue_type: 'bisection' })).toBe(2);
    expect(scraped.histogram('greenline_batch_size_1h', { ...QUEUE, queue_type: 'main' })).toMatchObject({
      count: 1,
      sum: 2,
    });
    expect(scraped.histogram('greenline_batch_size_1h', { ...QUEUE, queue_type: 'bisection' })).toMatchObject({
      count: 2,
      sum: 2,
    });
    expect(scraped.value('greenline_ci_runs_per_merged_pr_1h', QUEUE)).toBe(3);
    expect(scraped.value('greenline_ci_seconds_per_merged_pr_1h', QUEUE)).toBe(35 * 60);
  });

  test('optimistic merge and a pending-failure rescue', async () => {
    api = await makeApi();
    const q = new Driver(api);
    await q.create({ concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
    await q.submit(1, 2); // #1 on the target, #2 on top of #1.
    await q.advance(10);
    await q.fail(1); // #1 waits in PENDING_FAILURE for the run behind it.
    expect(await q.state(1)).toBe('PENDING_FAILURE');
    await q.pass(2); // #2's run contained #1 and passed: it vouches for #1, which merges; #2 merges after it.
    expect([await q.state(1), await q.state(2)]).toEqual(['MERGED', 'MERGED']);
    const scraped = await scrape(api);
    expect(scraped.value('greenline_optimistic_merges_total', QUEUE)).toBe(1);
    expect(scraped.value('greenline_pending_failure_rescues_total', { ...QUEUE, outcome: 'merged' })).toBe(1);
    expect(scraped.value('greenline_pending_failure_rescues_total', { ...QUEUE, outcome: 'retested' })).toBe(0);
    expect(documented(scraped, MAIN)).toMatchObject({
      merged: 2,
      test: histogramOf(600, 600),
      inQueue: histogramOf(600, 600),
    });
  });

  test('direct merges wait, and count', async () => {
    api = await makeApi();
    const q = new Driver(api);
    await q.create({ directMergeMode: 'always' });
    await q.submit(1);
    const scraped = await scrape(api);
    expect(await q.state(1)).toBe('MERGED');
    expect(scraped.value('greenline_direct_merges_total', QUEUE)).toBe(1);
    // It became ready and merged at once: a wait and a time in queue of 0, no test time.
    expect(documented(scraped, MAIN)).toEqual({ ...quiet, merged: 1, wait: histogramOf(0), inQueue: histogramOf(0) });
  });
});
