/**
 * Flaky-test analytics: detection quality on synthetic histories with known flaky and broken tests (precision and
 * recall), and ingestion throughput (test cases per second for a 10,000-case upload) against a parse-only baseline
 * measured in the same run. Runs alone with `npx tsx bench/flaky.ts`, or within `npm run bench`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildServer } from '../api/server.js';
import { Engine } from '../engine/engine.js';
import { aggregateUpload, parseReports } from '../engine/flaky/aggregate.js';
import { FlakyTests } from '../engine/flaky/index.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { createMemoryStore, openLmdbStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { random, report, type Figure } from './measure.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

interface Attempted {
  name: string;
  /** Outcomes of its attempts in this job, in order: true = failed. */
  attempts: boolean[];
  message: string;
}

/** A JUnit report in surefire's style: a failed-then-passed test carries flakyFailure, a repeated failure rerunFailure. */
function junit(tests: readonly Attempted[]): string {
  const cases = tests.map(({ name, attempts, message }) => {
    const open = `<testcase classname="com.acme.Suite" name="${escapeXml(name)}" file="src/${escapeXml(name)}.test.ts" time="0.1">`;
    const final = attempts.at(-1) === true;
    const earlier = attempts.slice(0, -1).filter(Boolean).length;
    const msg = escapeXml(message);
    if (!final) return `${open}${`<flakyFailure message="${msg}"/>`.repeat(earlier)}</testcase>`;
    return `${open}<failure message="${msg}"/>${`<rerunFailure message="${msg}"/>`.repeat(earlier)}</testcase>`;
  });
  return `<testsuite name="com.acme.Suite" tests="${tests.length}">${cases.join('')}</testsuite>`;
}

interface SyntheticTest {
  name: string;
  kind: 'healthy' | 'flaky' | 'broken';
  /** Flaky: the chance one attempt fails. */
  failureChance: number;
  /** Broken: from when it fails on every branch (it is broken on main, so every later commit has it)... */
  brokenFrom: number;
  /** ...until when (a fix lands): a test fixed before the end is healthy again. */
  fixedAt: number;
}

interface Quality {
  label: string;
  truth: number;
  flagged: number;
  hits: number;
}

function printQuality(title: string, rows: Quality[]): void {
  console.log(`\n${title}`);
  console.log(`${'class'.padEnd(10)} ${'true'.padStart(6)} ${'flagged'.padStart(8)} ${'correct'.padStart(8)} ${'precision'.padStart(10)} ${'recall'.padStart(8)}`);
  for (const row of rows) {
    const precision = row.flagged === 0 ? 1 : row.hits / row.flagged;
    const recall = row.truth === 0 ? 1 : row.hits / row.truth;
    console.log(
      `${row.label.padEnd(10)} ${String(row.truth).padStart(6)} ${String(row.flagged).padStart(8)} ${String(row.hits).padStart(8)} ` +
        `${precision.toFixed(3).padStart(10)} ${recall.toFixed(3).padStart(8)}`,
    );
  }
}

/**
 * Two weeks of CI on one repository: every hour one job on main and three on pull-request branches, each running
 * every test. Healthy tests pass, except when a PR breaks one (it fails on every run of that PR, retries too);
 * flaky tests fail each attempt with their own chance (0.5% to 30%, log-uniform); broken tests fail everywhere
 * from their breaking time on, and some are fixed again before the end (then they are healthy). A third of the
 * jobs retry failed tests once (a pass-on-retry signal); 1% of jobs are infrastructure failures (almost
 * everything fails). Detection is read from the listings at the end.
 */
export function benchDetection(): void {
  const rng = random(20_261_122);
  const start = Date.parse('2026-11-01T00:00:00.000Z');
  const days = 14;
  const tests: SyntheticTest[] = [];
  const end = start + days * DAY;
  for (let i = 0; i < 150; i++) {
    tests.push({ name: `healthy_${i}`, kind: 'healthy', failureChance: 0, brokenFrom: Infinity, fixedAt: Infinity });
  }
  for (let i = 0; i < 30; i++) {
    const failureChance = 0.005 * Math.exp(rng() * Math.log(0.3 / 0.005));
    tests.push({ name: `flaky_${i}`, kind: 'flaky', failureChance, brokenFrom: Infinity, fixedAt: Infinity });
  }
  for (let i = 0; i < 20; i++) {
    tests.push({ name: `broken_${i}`, kind: 'broken', failureChance: 0, brokenFrom: start + (3 + rng() * 10) * DAY, fixedAt: Infinity });
  }
  for (let i = 0; i < 10; i++) {
    // Broken for a day or two, fixed at least two days before the end: healthy by then.
    const brokenFrom = start + (2 + rng() * 8) * DAY;
    tests.push({ name: `fixed_${i}`, kind: 'healthy', failureChance: 0, brokenFrom, fixedAt: Math.min(brokenFrom + (1 + rng()) * DAY, end - 2 * DAY) });
  }
  let now = start;
  const service = new FlakyTests(createMemoryStore(), { now: () => now });
  const prBreaks = new Map<number, string>();
  let uploads = 0;
  let results = 0;
  let sha = 0;
  const began = process.hrtime.bigint();
  for (let hour = 0; hour < days * 24; hour++) {
    for (let job = 0; job < 4; job++) {
      now = start + hour * HOUR + job * 10 * 60_000;
      const onMain = job === 0;
      const pr = onMain ? undefined : 1 + Math.floor(hour / 6) * 3 + job; // each PR lives ~6 hours
      if (pr !== undefined && !prBreaks.has(pr)) prBreaks.set(pr, rng() < 0.15 ? `healthy_${Math.floor(rng() * 150)}` : '');
      const retries = rng() < 1 / 3;
      const infrastructure = rng() < 0.01;
      const attempted: Attempted[] = tests.map((test) => {
        const fails = (): boolean => {
          if (infrastructure) return rng() < 0.95;
          if (now >= test.brokenFrom && now < test.fixedAt) return true;
          if (pr !== undefined && prBreaks.get(pr) === test.name) return true;
          return test.kind === 'flaky' && rng() < test.failureChance;
        };
        const attempts = [fails()];
        if (attempts[0] && retries && !infrastructure) attempts.push(fails());
        return { name: test.name, attempts, message: `AssertionError at line ${Math.floor(rng() * 500)} after ${Math.floor(rng() * 9000)}ms` };
      });
      service.upload('acme', {
        repo: REPO,
        sha: (++sha).toString(16).padStart(40, '0'),
        branch: onMain ? 'main' : `pr-${pr}`,
        variant: '',
        reports: [{ file: 'junit.xml', xml: junit(attempted) }],
        ...(pr !== undefined && { prNumber: pr }),
      });
      uploads += 1;
      results += attempted.length;
    }
  }
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const listed = (status: 'FLAKY' | 'BROKEN') => {
    const names = new Set<string>();
    let pageToken = '';
    do {
      const page = service.listUnhealthy('acme', 'acme', { repo: REPO, pageSize: 100, pageToken, status });
      for (const row of page.rows) names.add(row.test.name);
      pageToken = page.page.nextPageToken;
    } while (pageToken !== '');
    return names;
  };
  const quality = (label: string, kind: SyntheticTest['kind'], flagged: Set<string>): Quality => ({
    label,
    truth: tests.filter((test) => test.kind === kind).length,
    flagged: flagged.size,
    hits: tests.filter((test) => test.kind === kind && flagged.has(test.name)).length,
  });
  printQuality(
    `flaky-test detection on a synthetic history (${days} days, ${uploads} uploads, ${results} test results; ` +
      `${tests.length} tests: 150 healthy, 10 broken then fixed, 30 flaky at 0.5–30%, 20 broken; ` +
      `ingested in ${seconds.toFixed(1)} s)`,
    [quality('flaky', 'flaky', listed('FLAKY')), quality('broken', 'broken', listed('BROKEN'))],
  );
  const flaky = listed('FLAKY');
  const broken = listed('BROKEN');
  const missed = tests.filter((test) => test.kind === 'flaky' && !flaky.has(test.name));
  if (missed.length > 0) {
    console.log(`missed flaky tests (failure chance): ${missed.map((test) => `${test.name} (${(test.failureChance * 100).toFixed(1)}%)`).join(', ')}`);
  }
  const wrong = tests.filter((test) => (flaky.has(test.name) && test.kind !== 'flaky') || (broken.has(test.name) && test.kind !== 'broken'));
  if (wrong.length > 0) console.log(`wrongly flagged: ${wrong.map((test) => test.name).join(', ')}`);
}

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
    const baseline = await time(`parse + aggregate only, ${(xml.length / 2 ** 20).toFixed(1)} MiB report (per test case)`, count, 5, () =>
      aggregateUpload(REPO, '', parseReports(reports)),
    );
    const memory = uploadTo(createMemoryStore());
    const lmdbFast = uploadTo(openLmdbStore({ dir: join(dir, 'nosync'), noSync: true }));
    const lmdbDurable = uploadTo(openLmdbStore({ dir: join(dir, 'durable') }));

    const clock = new VirtualScheduler(Date.parse('2026-11-22T12:00:00Z'));
    const httpStore = openLmdbStore({ dir: join(dir, 'http') });
    stores.push(httpStore);
    syncConfiguredTokens(httpStore, [{ org: 'acme', token: 'bench-token-0123456789abcdef' }], new Date(clock.now()).toISOString());
    const app = await buildServer({ engine: new Engine(httpStore, { scheduler: clock }) });
    const body = (shaText: string) => JSON.stringify({ repo: REPO, org_url_slug: 'acme', commit_sha: shaText, branch: 'main', reports });
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
    report(`flaky-test ingestion: uploads of ${count.toLocaleString('en')} test cases (2% failing), each one transaction`, baseline, figures);

    // Listings on the repository that now holds 7 uploads of 10,000 tests (200 failing each).
    const listing = new FlakyTests(stores[2] as Store, { now: () => Date.parse('2026-11-22T12:00:01Z') });
    const query = { repo: REPO, pageSize: 100, pageToken: '' };
    const window = { start: Date.parse('2026-11-22T00:00:00Z'), end: Date.parse('2026-11-23T00:00:00Z') };
    const listBaseline = await time('read one test record (baseline)', 1, 200, () => (stores[2] as Store).read((tx) => [...tx.scan('flakyTests', { limit: 1 })]));
    report('flaky-test listings (LMDB, 10,000 tests, 1,400 failures in the window)', listBaseline, [
      await time('list-failing-tests, first page of 100', 1, 50, () => listing.listFailing('acme', 'acme', { ...query, ...window })),
      await time('list-unhealthy-tests FLAKY, first page of 100', 1, 200, () => listing.listUnhealthy('acme', 'acme', { ...query, status: 'FLAKY' })),
    ]);
    await app.close();
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchFlaky(): Promise<void> {
  benchDetection();
  await benchIngestion();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
  await benchFlaky();
}
