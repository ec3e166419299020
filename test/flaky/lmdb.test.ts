/** The capability on the LMDB store (the service's): upload, listings, quarantine and verdict, and a reopen. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { FlakyTests, quarantineVerdict, testId } from '../../engine/flaky/index.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { makeService, REPO, START, upload } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-flaky-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('uploads, listings, overrides and the verdict work on LMDB and survive a reopen', async () => {
  const sha = 'f'.repeat(40);
  const first = makeService(openLmdbStore({ dir, noSync: true }));
  upload(
    first.service,
    [
      { name: 'retry', flakyFailures: ['timeout 1s'] },
      { name: 'broken', outcome: 'failed' },
    ],
    { sha },
  );
  const id = testId(REPO, { file: '', classname: 'Suite', parent: 'suite', name: 'broken', variant: '' });
  first.service.setQuarantine('acme', 'acme', REPO, id, 'ALWAYS_QUARANTINE');
  const page = { repo: REPO, pageSize: 1, pageToken: '' };
  const before = first.service.listUnhealthy('acme', 'acme', { ...page, status: 'FLAKY' });
  await first.store.close();

  const store = openLmdbStore({ dir, noSync: true });
  try {
    const service = new FlakyTests(store, { now: () => START });
    const after = service.listUnhealthy('acme', 'acme', { ...page, status: 'FLAKY' });
    expect(after.rows.map((row) => row.test.name)).toEqual(['retry']);
    expect(after.page).toEqual({ ...before.page });
    const failing = service.listFailing('acme', 'acme', { ...page, pageSize: 10, start: START - 1, end: START + 1 });
    expect(failing.rows.map((row) => [row.test.name, row.mostCommonFailures[0]?.summary]).sort()).toEqual([
      ['broken', 'assertion failed'],
      ['retry', 'timeout <n>s'],
    ]);
    expect(store.read((tx) => quarantineVerdict(tx, 'acme', REPO, sha))).toMatchObject({
      failedTests: [{ id, name: 'broken' }],
      allFailuresQuarantined: true,
    });
  } finally {
    await store.close();
  }
});

test('an upload of 10,000 test cases is stored whole', async () => {
  const { service, store } = makeService(openLmdbStore({ dir, noSync: true }));
  try {
    const cases = Array.from({ length: 10_000 }, (_, i) => ({
      name: `case ${i}`,
      outcome: i % 100 === 0 ? ('failed' as const) : ('passed' as const),
    }));
    expect(upload(service, cases)).toMatchObject({
      tests: 10_000,
      passed: 9_900,
      failed: 100,
      infrastructureFailure: false,
    });
    expect(store.stats().entries.flakyTests).toBe(10_000);
    expect(store.stats().entries.flakyUploads).toBe(1);
  } finally {
    await store.close();
  }
});
