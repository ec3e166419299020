/**
 * Growth under retention (issue 19): a simulated stretch of days at 1,000 PRs and 50,000 test results a day, on a
 * virtual clock, with the default retention (engine/retention/settings.ts) and its sweep once a simulated day. Prints
 * the data folder's size per day: it grows while the windows fill (30 days for results, 90 for ended PRs, runs and
 * events), then stops growing, as LMDB reuses the pages the sweep frees. The ratio at the end compares the growth
 * of the last 20 days with that of the first 20.
 *
 * The traffic: 10 queues (batches of up to 10 PRs, the simulated git host, every run passing), and uploads of 1,000
 * test cases (from a population of 5,000 tests, 2% failing) for a new commit each. Stored with noSync (the sizes are
 * what is compared; durability is not under test here).
 * `npm run bench:growth [-- DAYS [PRS_PER_DAY [RESULTS_PER_DAY]]]` (defaults 120, 1000, 50000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type QueueKey } from '../engine/engine.js';
import type { AggregatedUpload } from '../engine/flaky/aggregate.js';
import { uploadNow } from '../engine/flaky/ingestBatches.js';
import { prepareUpload } from '../engine/flaky/prepare.js';
import { SimGitHost } from '../engine/providers/sim/simGitHost.js';
import { DEFAULT_RETENTION } from '../engine/retention/settings.js';
import { RetentionSweep } from '../engine/retention/sweep.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { openLmdbStore } from '../engine/store/index.js';

const [DAYS = 120, PRS_PER_DAY = 1000, RESULTS_PER_DAY = 50_000] = process.argv.slice(2).map(Number);
const QUEUES = 10;
const CASES_PER_UPLOAD = 1000;
const POPULATION = 5000;
const DAY_MS = 86_400_000;

const dir = mkdtempSync(join(tmpdir(), 'greenline-bench-growth-'));
const store = openLmdbStore({ dir, noSync: true });
const clock = new VirtualScheduler(Date.parse('2026-01-01T00:00:00Z'));
const engine = new Engine(store, { scheduler: clock, gitHost: new SimGitHost() });
engine.start();
const sweep = new RetentionSweep({ engine, store, clock, settings: { ...DEFAULT_RETENTION, sweepSeconds: 0 } });
const keys: QueueKey[] = Array.from({ length: QUEUES }, (_, i) => ({
  org: 'bench',
  repo: { host: 'github.com', owner: 'bench', name: `repo${i}` },
  branch: 'main',
}));
for (const key of keys)
  engine.createQueue(key, { batch: true, batchingMinSize: 10, concurrency: 3, requiredStatuses: ['ci'] });
await engine.settle();

/** Upload templates (10 of them, each a different slice of the test population), copied for each upload. */
const REPO = { host: 'github.com', owner: 'bench', name: 'repo0' };
const templates: AggregatedUpload[] = Array.from({ length: 10 }, (_, t) => {
  const cases = Array.from({ length: CASES_PER_UPLOAD }, (_, i) => {
    const n = (t * 500 + i) % POPULATION;
    const fails = (n * 7 + t) % 50 === 0;
    return `<testcase classname="pkg.C${n % 100}" name="t${n}">${fails ? '<failure message="boom"/>' : ''}</testcase>`;
  });
  return prepareUpload({
    repo: REPO,
    variant: '',
    reports: [{ file: 'junit.xml', xml: `<testsuite name="s">${cases.join('')}</testsuite>` }],
  });
});

let number = 0;
let uploads = 0;
async function day(): Promise<void> {
  const perQueue = Math.ceil(PRS_PER_DAY / QUEUES);
  for (const key of keys) for (let i = 0; i < perQueue; i++) engine.submitPullRequest(key, ++number);
  await engine.settle();
  // Every run passes, a round at a time, until the queues are empty.
  for (let round = 0; round < 10_000; round++) {
    const runs = store.read((tx) =>
      [...tx.scan('queues')].flatMap(({ value: queue }) =>
        queue.runtime.activeRuns.flatMap((id) => tx.get('testRuns', [queue.id, id]) ?? []),
      ),
    );
    const ready = runs.filter((run) => run.testBranchSha !== '');
    for (const run of ready)
      engine.setCommitStatus('bench', {
        repo:
          keys.find((key) => key.repo.name === store.read((tx) => tx.get('queues', [run.queueId]))?.repo.name)?.repo ??
          REPO,
        sha: run.testBranchSha,
        context: 'ci',
        state: 'success',
      });
    clock.advanceBy(60_000);
    await engine.settle();
    if (runs.length === 0 && engine.getQueue(keys[0] as QueueKey).enqueued.length === 0) break;
  }
  for (let i = 0; i < RESULTS_PER_DAY / CASES_PER_UPLOAD; i++) {
    const template = templates[uploads % templates.length] as AggregatedUpload;
    const aggregated = { ...template, tests: structuredClone(template.tests) };
    uploadNow(
      store,
      'bench',
      {
        repo: REPO,
        sha: (++uploads).toString(16).padStart(40, '0'),
        branch: 'main',
        variant: '',
        reports: ['junit.xml'],
      },
      aggregated,
      () => clock.now(),
    );
  }
  clock.advanceTo(Math.ceil((clock.now() + 1) / DAY_MS) * DAY_MS);
  await sweep.sweep();
}

const sizes: number[] = [];
const started = performance.now();
console.log(
  `growth: ${DAYS} days, ${PRS_PER_DAY} PRs and ${RESULTS_PER_DAY} test results a day, default retention (PRs ${DEFAULT_RETENTION.prsDays} d, events ${DEFAULT_RETENTION.eventsDays} d, results ${DEFAULT_RETENTION.testResultsDays} d)`,
);
for (let d = 1; d <= DAYS; d++) {
  await day();
  const stats = store.stats();
  sizes.push(stats.sizeBytes);
  console.log(
    `day ${String(d).padStart(3)}: ${(stats.sizeBytes / 2 ** 20).toFixed(1).padStart(7)} MB  PRs ${stats.entries.pullRequests}  runs ${stats.entries.testRuns}  events ${stats.entries.events}  uploads ${stats.entries.flakyUploads}  commit results ${stats.entries.flakyCommits}  (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
}
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const span = Math.min(20, Math.floor(DAYS / 3));
const early = (sizes[span - 1] as number) - (sizes[0] as number);
const late = (sizes[DAYS - 1] as number) - (sizes[DAYS - span] as number);
console.log(
  `size: day 1 ${mb(sizes[0] as number)} MB, day ${Math.min(DAYS, 91)} ${mb(sizes[Math.min(DAYS, 91) - 1] as number)} MB, day ${DAYS} ${mb(sizes[DAYS - 1] as number)} MB`,
);
console.log(
  `growth over the last ${span} days / over the first ${span}: ${(late / early).toFixed(3)} (${mb(late)} MB vs ${mb(early)} MB)`,
);
engine.stop();
await store.close();
rmSync(dir, { recursive: true, force: true });
