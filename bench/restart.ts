/**
 * A restart of a big service (issue 15): 10,000 queues holding 100,000 PRs on LMDB, and the time `Engine.start()`
 * takes to rebuild every queue's working set (restored snapshots of every enqueued PR and active run), with the
 * process's RSS after it, beside reading the same records without restoring anything.
 *
 * The data: one queue built by the engine itself (10 PRs submitted on the simulated host, 4 of them testing), its
 * records copied under 10,000 queue ids and repositories. `npm run bench:restart [-- QUEUES]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Engine, type QueueKey } from '../engine/engine.js';
import { SimGitHost } from '../engine/providers/sim/simGitHost.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { createMemoryStore, openLmdbStore } from '../engine/store/index.js';
import type { CollectionName, Key, Store } from '../engine/store/store.js';

const PRS_PER_QUEUE = 10;
/** When the template queue is made (a virtual clock). */
const TEMPLATE_TIME = '2026-11-24T00:00:00Z';

/** The collections a queue's data is under, keyed by its id first. */
const PER_QUEUE: CollectionName[] = [
  'pullRequests',
  'timeline',
  'testRuns',
  'actors',
  'events',
  'timers',
  'outbox',
  'metricsPrs',
  'metricsTotals',
];

async function template(): Promise<{ store: Store; queueId: string; key: QueueKey }> {
  const store = createMemoryStore();
  const key: QueueKey = {
    org: 'bench',
    repo: { host: 'github.com', owner: 'bench', name: 'template' },
    branch: 'main',
  };
  const engine = new Engine(store, {
    scheduler: new VirtualScheduler(Date.parse(TEMPLATE_TIME)),
    gitHost: new SimGitHost(),
  });
  engine.start();
  const queueId = engine.createQueue(key, { concurrency: 4, requiredStatuses: ['ci'] }).id;
  await engine.settle();
  for (let number = 1; number <= PRS_PER_QUEUE; number++) engine.submitPullRequest(key, number);
  await engine.settle();
  engine.stop();
  return { store, queueId, key };
}

/** Copies the template queue under `count` new ids into the LMDB store. */
async function populate(target: Store, count: number): Promise<void> {
  const { store, queueId, key } = await template();
  const entries = store.read((tx) =>
    PER_QUEUE.flatMap((collection) =>
      [...tx.scan(collection, { prefix: [queueId] })].map((entry) => ({ collection, ...entry })),
    ),
  );
  const queue = store.read((tx) => tx.get('queues', [queueId]));
  if (queue === undefined) throw new Error('no template queue');
  const text = JSON.stringify({ queue, entries });
  for (let start = 0; start < count; start += 200) {
    target.write((tx) => {
      for (let i = start; i < Math.min(count, start + 200); i++) {
        const id = `q_${i.toString(16).padStart(16, '0')}`;
        const copy = JSON.parse(text.replaceAll(queueId, id)) as {
          queue: typeof queue;
          entries: { collection: CollectionName; key: Key; value: never }[];
        };
        copy.queue.repo = { ...key.repo, name: `repo${i}` };
        tx.put('queues', [id], copy.queue);
        tx.put('queueIndex', [key.org, key.repo.host, key.repo.owner, `repo${i}`, key.branch], id);
        for (const entry of copy.entries) tx.put(entry.collection, entry.key, entry.value);
      }
    });
  }
}

export async function benchRestart(queues = 10_000): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-restart-'));
  try {
    const build = openLmdbStore({ dir, noSync: true });
    await populate(build, queues);
    await build.close();

    const store = openLmdbStore({ dir });
    const before = process.memoryUsage().rss;
    const readStart = process.hrtime.bigint();
    const records = store.read((tx) => {
      let prs = 0;
      for (const { value: queue } of tx.scan('queues')) {
        for (const number of [...queue.runtime.lineup, ...queue.runtime.waiting])
          if (tx.get('pullRequests', [queue.id, number]) !== undefined) prs++;
      }
      return prs;
    });
    const readSeconds = Number(process.hrtime.bigint() - readStart) / 1e9;
    const start = process.hrtime.bigint();
    // The clock of the copied data: a restart right after, so that what is measured is the rebuild, not the runs'
    // deadlines that a long downtime would have passed (those fire at start, one transaction each).
    const engine = new Engine(store, {
      scheduler: new VirtualScheduler(Date.parse(TEMPLATE_TIME)),
      gitHost: new SimGitHost(),
    });
    engine.start();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const rss = process.memoryUsage().rss;
    console.log(
      `\nrestart: ${queues.toLocaleString('en')} queues, ${records.toLocaleString('en')} enqueued PRs on LMDB: ` +
        `Engine.start() (every working set rebuilt) ${seconds.toFixed(2)} s, RSS ${(rss / 2 ** 20).toFixed(0)} MiB ` +
        `(${(before / 2 ** 20).toFixed(0)} MiB before); reading the same queue and PR records alone: ${readSeconds.toFixed(2)} s ` +
        `(start = ${(seconds / readSeconds).toFixed(2)}× that)`,
    );
    engine.stop();
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchRestart(Number(process.argv[2] ?? 10_000));
}
