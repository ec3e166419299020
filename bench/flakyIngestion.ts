/**
 * Flaky-test ingestion throughput (test cases per second for a 10,000-case upload into the memory store, LMDB with
 * and without sync, and over HTTP) against a parse-only baseline, and the listings' speed on what was uploaded, each
 * beside a baseline measured in the same run. Part of bench/flaky.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer } from '../api/server.js';
import { Engine } from '../engine/engine.js';
import { aggregateUpload, parseReports } from '../engine/flaky/aggregate.js';
import { FlakyTests } from '../engine/flaky/index.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { createMemoryStore, openLmdbStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { junit } from './flakyJunit.js';
import { report, type Figure } from './measure.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };

function bigReport(count: number, failEvery: number): string {
  return junit(
    Array.from({ length: count }, (_, i) => ({
      name: `module_${Math.floor(i / 100)}/case_${i}`,
      attempts: [i % failEvery === 0],
      message: `expected ${i} to equal ${i + 1}`,
    })),
  );
}

async function time(name: string, operations: number, repeat: number, body: (i: number) => unknown): Promise<Figure> {
  await body(-1); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < repeat; i++) await body(i);
  return { name, operations: operations * repeat, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

/** Ingestion throughput, in test cases per second, for uploads of 10,000 test cases. */
export async function benchIngestion(): Promise<void> {
  const count = 10_000;
  const xml = bigReport(count, 50);
  const reports = [{ file: 'junit.xml', xml }];
  const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-flaky-'));
  const stores: Store[] = [];
  try {
    let sha = 0;
    const nextSha = () => (++sha).toString(16).padStart(40, '0');
    const uploadTo = (store: Store) => {
      stores.push(store);
      const service = new FlakyTests(store, { now: () => Date.parse('2026-11-22T12:00:00Z') });
      return () => service.upload('acme', { repo: REPO, sha: nextSha(), branch: 'main', variant: '', reports });
    };
    const baseline = await time(
      `parse + aggregate only, ${(xml.length / 2 ** 20).toFixed(1)} MiB report (per test case)`,
      count,
      5,
      () => aggregateUpload(REPO, '', parseReports(reports)),
    );
    const memory = uploadTo(createMemoryStore());
    const lmdbFast = uploadTo(openLmdbStore({ dir: join(dir, 'nosync'), noSync: true }));
    const lmdbDurable = uploadTo(openLmdbStore({ dir: join(dir, 'durable') }));

    const clock = new VirtualScheduler(Date.parse('2026-11-22T12:00:00Z'));
    const httpStore = openLmdbStore({ dir: join(dir, 'http') });
    stores.push(httpStore);
    syncConfiguredTokens(
      httpStore,
      [{ org: 'acme', token: 'bench-token-0123456789abcdef' }],
      new Date(clock.now()).toISOString(),
    );
    const app = await buildServer({ engine: new Engine(httpStore, { scheduler: clock }) });
    const body = (shaText: string) =>
      JSON.stringify({ repo: REPO, org_url_slug: 'acme', commit_sha: shaText, branch: 'main', reports });
    const viaHttp = async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/flaky-tests/upload',
        headers: { 'x-api-token': 'bench-token-0123456789abcdef', 'content-type': 'application/json' },
        payload: body(nextSha()),
      });
      if (response.statusCode !== 200) throw new Error(response.body);
    };

    const figures = [
      await time('upload, memory store (per test case)', count, 5, memory),
      await time('upload, LMDB noSync (per test case)', count, 5, lmdbFast),
      await time('upload, LMDB durable (per test case)', count, 5, lmdbDurable),
      await time('POST /v1/flaky-tests/upload, LMDB durable (per test case)', count, 5, viaHttp),
    ];
    report(
      `flaky-test ingestion: uploads of ${count.toLocaleString('en')} test cases (2% failing), each one transaction`,
      baseline,
      figures,
    );

    // Listings on the repository that now holds 7 uploads of 10,000 tests (200 failing each).
    const listing = new FlakyTests(stores[2] as Store, { now: () => Date.parse('2026-11-22T12:00:01Z') });
    const query = { repo: REPO, pageSize: 100, pageToken: '' };
    const window = { start: Date.parse('2026-11-22T00:00:00Z'), end: Date.parse('2026-11-23T00:00:00Z') };
    const listBaseline = await time('read one test record (baseline)', 1, 200, () =>
      (stores[2] as Store).read((tx) => [...tx.scan('flakyTests', { limit: 1 })]),
    );
    report('flaky-test listings (LMDB, 10,000 tests, 1,400 failures in the window)', listBaseline, [
      await time('list-failing-tests, first page of 100', 1, 50, () =>
        listing.listFailing('acme', 'acme', { ...query, ...window }),
      ),
      await time('list-unhealthy-tests FLAKY, first page of 100', 1, 200, () =>
        listing.listUnhealthy('acme', 'acme', { ...query, status: 'FLAKY' }),
      ),
    ]);
    await app.close();
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await rm(dir, { recursive: true, force: true });
  }
}
