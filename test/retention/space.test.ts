/**
 * LMDB reuses the pages the retention sweep frees: under steady churn (PRs merging every simulated day, the sweep
 * keeping 3 days) the data file stops growing once the window is full. Sizes, not times, are compared.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { RetentionSweep } from '../../engine/retention/sweep.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { QueueHarness } from '../engine/queueHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'greenline-retention-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PRS_PER_DAY = 25;
const DAYS = 36;

test('the data file stops growing under steady churn once the sweep keeps up', async () => {
  const store = openLmdbStore({ dir, noSync: true });
  const h = new QueueHarness(store);
  await h.create({ concurrency: 5 });
  const sweep = new RetentionSweep({
    engine: h.engine,
    store,
    clock: h.scheduler,
    settings: { prsDays: 3, eventsDays: 3, batch: 50 },
  });
  const sizes: number[] = [];
  let number = 0;
  for (let day = 0; day < DAYS; day++) {
    for (let i = 0; i < PRS_PER_DAY; i++) {
      await h.submit(++number);
      await h.pass(number);
    }
    await h.advanceMinutes(24 * 60);
    await sweep.sweep();
    sizes.push(store.stats().sizeBytes);
  }
  const prs = h.engine.listPullRequests({
    org: 'acme',
    repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
    branch: 'main',
  });
  expect(prs.length).toBeLessThanOrEqual(4 * PRS_PER_DAY);
  console.log(`data file per day (KiB): ${sizes.map((size) => Math.round(size / 1024)).join(' ')}`);
  // The window (3 days) fills in the first days; from day 12 on, 24 more days of churn (8 windows' worth of data)
  // grow the file by a few pages at most (LMDB's free list settling), where without deletions it would grow ~8 times.
  const settled = sizes[DAYS / 3 - 1] as number;
  const last = sizes[DAYS - 1] as number;
  expect(last - settled).toBeLessThanOrEqual(settled * 0.02);
  expect(last - settled).toBeLessThan((settled - (sizes[0] as number)) / 10);
  h.engine.stop();
  await store.close();
});
