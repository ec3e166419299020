/**
 * Batched commits on LMDB (GREENLINE_LMDB_SYNC=batch, the default: store/lmdbBatched.ts, runtime/inputTransaction.ts):
 * requests' inputs run in lmdb-js's batches, no commit of theirs is synced on the event loop, each is answered only
 * once its batch is flushed, and a batch whose commit fails acknowledges nothing and leaves the working sets equal to
 * the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../cli/config.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import type { CI } from '../../engine/providers/types.js';
import { openLmdbStore } from '../../engine/store/index.js';
import type { LmdbStoreOptions } from '../../engine/store/lmdbStore.js';
import { expectErrorBody, makeApi, queueBody, type Api } from '../api/harness.js';

let dir = '';
let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

async function open(options: Partial<LmdbStoreOptions> = {}, engine: Parameters<typeof makeApi>[1] = {}) {
  dir = mkdtempSync(join(tmpdir(), 'greenline-batch-'));
  const store = openLmdbStore({ dir, batch: true, ...options });
  api = await makeApi(store, engine);
  const required = engine.ci === undefined ? {} : { requiredStatuses: ['ci/build'] };
  expect((await api.post('createQueue', queueBody({ concurrency: 4, ...required }))).statusCode).toBe(200);
  return store;
}

const submit = (number: number) => api!.post('submitPullRequest', queueBody({ pr: { number } }));

/** The PR numbers a store at `dir` holds for the queue, read after a reopen. */
async function storedNumbers(): Promise<number[]> {
  const reopened = openLmdbStore({ dir });
  try {
    return reopened.read((tx) => [...tx.scan('pullRequests')].map(({ key }) => Number(key[1])).sort((a, b) => a - b));
  } finally {
    await reopened.close();
  }
}

describe('batched commits over HTTP', () => {
  test('the service runs batched commits by default', () => {
    expect(loadConfig({ GREENLINE_DATA: '/tmp/greenline-batch-config' }).lmdbSync).toBe('batch');
  });

  test('concurrent submits share batches, none synced on the event loop, and all are stored after a reopen', async () => {
    const store = await open();
    const before = store.syncStats();
    const count = 40;
    const answers = await Promise.all(Array.from({ length: count }, (_, i) => submit(i + 1)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(count).fill(200));
    const after = store.syncStats();
    // Every submit's commit went through lmdb-js's batches and was flushed; none was synced on the event loop.
    expect(after.loopSyncs - before.loopSyncs).toBe(0);
    expect(after.batched - before.batched).toBeGreaterThanOrEqual(count);
    expect(after.batchesFailed).toBe(0);
    await api!.close();
    api = undefined;
    expect(await storedNumbers()).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });

  test('inputs of one queue apply in call order within a batch', async () => {
    await open();
    const answers = await Promise.all([submit(1), api!.post('cancelPullRequest', queueBody({ pr: { number: 1 } }))]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    const pr = await api!.post('getSubmittedPullRequest', queueBody({ pr: { number: 1 } }));
    expect(pr.json()).toMatchObject({ state: 'CANCELLED' });
  });

  test('a failed batch commit: every waiting caller is answered 503, nothing is acknowledged, the working set equals the store', async () => {
    let failing = false;
    const store = await open({ failBatchedCommit: () => (failing ? new Error('EIO: i/o error') : undefined) });
    expect((await submit(1)).statusCode).toBe(200);
    failing = true;
    const refused = await Promise.all([2, 3, 4, 5].map(submit));
    for (const answer of refused) expectErrorBody(answer, 503, 'unavailable');
    failing = false;
    const queueId = store.read((tx) => [...tx.scan('queues')][0]!.value.id);
    // The working set that took the failed inputs was dropped; the one rebuilt when next needed is the store's.
    const { live, rebuilt } = api!.engine.workingSetsOf(queueId);
    if (live !== undefined) expect(live.queue).toEqual(rebuilt?.queue);
    const queue = (await api!.post('getQueue', queueBody())).json();
    expect(queue.enqueuedPullRequests.map((entry: { prNumber: number }) => entry.prNumber)).toEqual([1]);
    expect((await submit(6)).statusCode).toBe(200);
    const after = api!.engine.workingSetsOf(queueId);
    expect(after.live?.queue).toEqual(after.rebuilt?.queue);
    expect(store.syncStats().batchesFailed).toBeGreaterThanOrEqual(4);
    await api!.close();
    api = undefined;
    expect(await storedNumbers()).toEqual([1, 6]);
  });

  test('an effect without a result runs once: the outbox reads its next entry only after the batch removed this one', async () => {
    // startCi removes its entry, then starts CI: with the removal in the store's batch, the outbox must wait for it.
    const starts = new Map<string, number>();
    const ci: CI = {
      name: 'counting',
      start: (run) => {
        const count = (starts.get(run.runId) ?? 0) + 1;
        starts.set(run.runId, count);
        // A second start of one run is the bug; thrown, it stops the outbox going round (the test then fails).
        if (count > 1) throw new Error(`run ${run.runId} started ${count} times`);
      },
      stop: () => undefined,
    };
    await open({}, { ci, gitHost: new SimGitHost() });
    expect((await submit(1)).statusCode).toBe(200);
    while (starts.size === 0) {
      await api!.engine.settle();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await api!.engine.settle();
    expect([...starts.values()]).toEqual([1]);
  });

  test('a request that fails alone (an unknown queue) aborts only its own transaction in the batch', async () => {
    const store = await open();
    const answers = await Promise.all([
      submit(1),
      api!.post('submitPullRequest', queueBody({ pr: { number: 2 } }, 'nope')),
      submit(3),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 404, 200]);
    expect(store.syncStats().batchesFailed).toBe(0);
    await api!.close();
    api = undefined;
    expect(await storedNumbers()).toEqual([1, 3]);
  });
});
