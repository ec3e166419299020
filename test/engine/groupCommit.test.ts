/**
 * Group commit on LMDB (store/groupCommit.ts): concurrent requests share syncs, and none is answered — and no effect
 * acts outside — before the sync that makes its transaction durable has finished. A failed sync is an error answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { GroupCommit } from '../../engine/store/groupCommit.js';
import { openLmdbStore } from '../../engine/store/index.js';
import type { LmdbStoreOptions } from '../../engine/store/lmdbStore.js';
import { makeApi, queueBody, type Api } from '../api/harness.js';

let dir = '';
let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Turns of the event loop: long enough for an answer not held back to be sent (inject runs in this process). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function open(options: Partial<LmdbStoreOptions> = {}) {
  dir = mkdtempSync(join(tmpdir(), 'greenline-group-'));
  const store = openLmdbStore({ dir, ...options });
  api = await makeApi(store);
  expect((await api.post('createQueue', queueBody({ concurrency: 4 }))).statusCode).toBe(200);
  return store;
}

describe('group commit over HTTP', () => {
  test('concurrent submits share fewer syncs than there are submits, and all are stored after a reopen', async () => {
    const store = await open();
    const before = store.syncStats().syncs;
    const count = 40;
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) => api!.post('submitPullRequest', queueBody({ pr: { number: i + 1 } }))),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(count).fill(200));
    const syncs = store.syncStats().syncs - before;
    expect(syncs).toBeGreaterThan(0);
    expect(syncs).toBeLessThan(count);

    await api?.close();
    api = undefined;
    const reopened = openLmdbStore({ dir });
    try {
      const stored = reopened.read((tx) =>
        [...tx.scan('pullRequests')].map(({ value }) => value.number).sort((a, b) => a - b),
      );
      expect(stored).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    } finally {
      await reopened.close();
    }
  });

  test('a submit is answered only after the sync that makes it durable, though it is committed before', async () => {
    const entered = deferred();
    const release = deferred();
    let submitted: () => boolean = () => false;
    // Holds the first sync that starts once PR 7 is committed (other syncs, of the queue's own work, go through).
    const store = await open({
      beforeSync: () => {
        if (!submitted()) return Promise.resolve();
        entered.resolve();
        return release.promise;
      },
    });
    const queueId = store.read((tx) => [...tx.scan('queues')][0]?.value.id ?? '');
    submitted = () => store.read((tx) => tx.get('pullRequests', [queueId, 7])) !== undefined;
    let answered = false;
    const answer = api!.post('submitPullRequest', queueBody({ pr: { number: 7 } })).then((response) => {
      answered = true;
      return response;
    });
    try {
      await entered.promise;
      // Committed and visible to reads, not yet durable: no answer while the sync is held.
      expect(store.syncStats().pending).toBeGreaterThan(0);
      await turns(50);
      expect(answered).toBe(false);
      // The health check shows nothing stored: it answers while the sync is held.
      expect((await api!.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(answered).toBe(false);
    } finally {
      release.resolve();
    }
    expect((await answer).statusCode).toBe(200);
  });

  test('a sync that fails is a 503, not a success', async () => {
    let failing = false;
    await open({ beforeSync: () => (failing ? Promise.reject(new Error('EIO: the disk failed')) : Promise.resolve()) });
    failing = true;
    const answer = await api!.post('submitPullRequest', queueBody({ pr: { number: 3 } }));
    expect(answer.statusCode).toBe(503);
    expect(answer.json().code).toBe('unavailable');
    failing = false;
    // The disk is back: the next sync covers the transaction, and later requests succeed.
    expect((await api!.post('submitPullRequest', queueBody({ pr: { number: 4 } }))).statusCode).toBe(200);
  });
});

describe('GroupCommit', () => {
  test('one sync covers every commit before it; commits during a sync wait for the next one', async () => {
    const started: number[] = [];
    const gates: { resolve: () => void }[] = [];
    let commits = 0;
    const group = new GroupCommit(() => {
      started.push(commits);
      const gate = deferred();
      gates.push(gate);
      return gate.promise;
    });
    const first = [1, 2, 3].map(() => {
      group.committedOne();
      commits += 1;
      return group.durable();
    });
    await turns(2);
    expect(started).toEqual([3]);
    group.committedOne();
    commits += 1;
    const late = group.durable();
    let lateDone = false;
    void late.then(() => (lateDone = true));
    gates[0]?.resolve();
    await Promise.all(first);
    await turns(2);
    expect(lateDone).toBe(false);
    expect(started).toEqual([3, 4]);
    gates[1]?.resolve();
    await late;
    expect(group.syncs).toBe(2);
    expect(group.pending).toBe(0);
    await expect(group.durable()).resolves.toBeUndefined();
  });
});
