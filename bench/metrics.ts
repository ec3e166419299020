/**
 * The cost of a metrics scrape on a store with a long history: 20 queues of one organization, 500 PRs through each
 * (about 17 hours of virtual time, some failures, retests and restarts), a few PRs still enqueued, on LMDB. The
 * baseline, from the same run: reading the raw history (every PR record and timeline entry of those queues), which
 * a scrape deriving its figures from the history would have to do at least; the floor beside the figures:
 * prom-client rendering an empty registry.
 * Runs alone with `npx tsx bench/metrics.ts`, or within `npm run bench`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { buildServer } from '../api/server.js';
import { Engine, type QueueKey } from '../engine/engine.js';
import { collectMetrics, renderMetrics, renderSnapshot } from '../engine/metrics/index.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { openLmdbStore } from '../engine/store/index.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { measure, report } from './measure.js';

const TOKEN = 'bench-token-0123456789abcdef';
const QUEUES = 20;
const PRS_PER_QUEUE = 500;
const PER_ROUND = 4;
const ROUND_MINUTES = 8;

const keyOf = (i: number): QueueKey => ({
  org: 'acme',
  repo: { host: 'github.com', owner: 'acme', name: `repo-${i}` },
  branch: 'main',
});

/** Reports on the queue's active runs in line-up order until none is left; every `failEvery`-th report fails. */
async function finishRuns(
  engine: Engine,
  key: QueueKey,
  counter: { reports: number },
  failEvery: number,
): Promise<void> {
  for (let guard = 0; guard < 100; guard++) {
    const { queue } = engine.getQueue(key);
    const runId = queue.runtime.activeRuns[0];
    if (runId === undefined) return;
    const { run } = engine.getTestRun(key, runId);
    const state = ++counter.reports % failEvery === 0 ? 'failure' : 'success';
    engine.setCommitStatus(key.org, { repo: key.repo, sha: run.testBranchSha, context: 'ci', state });
    await engine.settle();
  }
}

async function buildHistory(engine: Engine, clock: VirtualScheduler): Promise<void> {
  const keys = Array.from({ length: QUEUES }, (_, i) => keyOf(i));
  for (const key of keys) engine.createQueue(key, { requiredStatuses: ['ci'], concurrency: PER_ROUND });
  await engine.settle();
  const counter = { reports: 0 };
  for (let round = 0; round < PRS_PER_QUEUE / PER_ROUND; round++) {
    for (const key of keys) for (let k = 1; k <= PER_ROUND; k++) engine.submitPullRequest(key, round * PER_ROUND + k);
    await engine.settle();
    // Now and then a restart through the API, as people do.
    if (round % 10 === 5) for (const key of keys) engine.restartTestsOnPullRequest(key, round * PER_ROUND + 1);
    await engine.settle();
    clock.advanceBy(ROUND_MINUTES * 60_000);
    await engine.settle();
    for (const key of keys) await finishRuns(engine, key, counter, 23);
  }
  // A few PRs still in the queue, testing and waiting, for the gauges.
  for (const key of keys) for (let k = 1; k <= 6; k++) engine.submitPullRequest(key, PRS_PER_QUEUE + k);
  await engine.settle();
  clock.advanceBy(3 * 60_000);
}

export async function benchMetrics(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-'));
  const store = openLmdbStore({ dir, noSync: true });
  try {
    syncConfiguredTokens(store, [{ org: 'acme', token: TOKEN }], new Date().toISOString());
    const clock = new VirtualScheduler(Date.parse('2026-11-22T00:00:00.000Z'));
    const engine = new Engine(store, { scheduler: clock });
    engine.start();
    const started = process.hrtime.bigint();
    await buildHistory(engine, clock);
    const setupSeconds = Number(process.hrtime.bigint() - started) / 1e9;

    const now = clock.now();
    const stats = store.stats().entries;
    const snapshot = collectMetrics(store, 'acme', {}, now);
    const windowEntries = snapshot.queues.reduce((total, queue) => total + queue.window.length, 0);
    const text = (await renderMetrics({ store, org: 'acme', now })).text;
    console.log(
      `\nmetrics history: ${QUEUES} queues × ${PRS_PER_QUEUE} PRs, built in ${setupSeconds.toFixed(1)} s ` +
        `(${stats.events.toLocaleString('en')} events, ${stats.timeline.toLocaleString('en')} timeline entries, ` +
        `${stats.testRuns.toLocaleString('en')} test runs); the metrics log holds ${stats.metricsLog.toLocaleString('en')} entries ` +
        `(${windowEntries} in the window); a scrape is ${(text.length / 1024).toFixed(0)} KiB, ${text.split('\n').length} lines`,
    );

    const app = await buildServer({ engine });
    const get = (query: string) =>
      app.inject({ method: 'GET', url: `/v1/getMergeQueueMetrics${query}`, headers: { 'x-api-token': TOKEN } });
    // The baseline: what a scrape deriving its figures from the whole history would have to read at least.
    const baseline = await measure(`read raw: every PR record and timeline entry of ${QUEUES} queues`, 10, () =>
      store.read((tx) => {
        let entries = 0;
        for (const queue of snapshot.queues) {
          for (const _ of tx.scan('pullRequests', { prefix: [queue.queue.id] })) entries++;
          for (const _ of tx.scan('timeline', { prefix: [queue.queue.id] })) entries++;
        }
        return entries;
      }),
    );
    const figures = [
      await measure(`GET getMergeQueueMetrics, ${QUEUES} queues (auth, inject)`, 200, () => get('')),
      await measure(`renderMetrics, ${QUEUES} queues (collect + render)`, 200, () =>
        renderMetrics({ store, org: 'acme', now }),
      ),
      await measure(`  collect only: the store reads of ${QUEUES} queues`, 200, () =>
        collectMetrics(store, 'acme', {}, now),
      ),
      await measure(`  render only: prom-client over the collected snapshot`, 200, () => renderSnapshot(snapshot)),
      await measure('GET getMergeQueueMetrics?repo=…&repoHost=… (one queue)', 1_000, () =>
        get('?repo=acme/repo-7&repoHost=github.com'),
      ),
      await measure('prom-client: render an empty registry (the floor)', 2_000, () => new Registry().metrics()),
    ];
    report(`metrics scrape (LMDB, ${QUEUES} queues × ${PRS_PER_QUEUE} PRs of history)`, baseline, figures);
    await app.close();
    engine.stop();
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
  await benchMetrics();
}
