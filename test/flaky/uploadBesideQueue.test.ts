/**
 * Queues in parallel with an upload (issue 30): while a large upload is stored batch by batch on LMDB, an input to a
 * queue is committed and answered between two of its batches — observed by the upload's progress in the store, not
 * by a clock: when the submit is answered, the upload still has batches to store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { TESTS_PER_TRANSACTION } from '../../engine/flaky/ingestBatches.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { makeApi, queueBody } from '../api/harness.js';

test('a queue input is answered while another repository’s upload is still being stored', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-upload-beside-'));
  const api = await makeApi(openLmdbStore({ dir }));
  try {
    expect((await api.post('createQueue', queueBody({ concurrency: 2 }))).statusCode).toBe(200);
    const batches = 40;
    const xml = `<testsuite name="s">${Array.from({ length: batches * TESTS_PER_TRANSACTION }, (_, i) => `<testcase classname="pkg.C${i % 50}" name="t${i}"/>`).join('')}</testsuite>`;
    const big = { host: 'github.com', owner: 'acme', name: 'big' };
    const uploading = api.post('flaky-tests/upload', {
      repo: big,
      commit_sha: 'abcdef1',
      branch: 'main',
      reports: [{ file: 'r.xml', xml }],
    });
    const progress = () => api.store.read((tx) => [...tx.scan('flakyUploads')].map(({ value }) => value.progress)[0]);
    // Waits (turn by turn, no clock) until the upload has stored its first batch.
    while (progress() === undefined) await new Promise((resolve) => setImmediate(resolve));
    const submitted = await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }));
    const atAnswer = progress();
    expect(submitted.statusCode).toBe(200);
    expect(atAnswer).toMatchObject({ batches });
    expect(atAnswer?.stored).toBeLessThan(batches);
    expect((await uploading).statusCode).toBe(200);
    expect(progress()).toBeUndefined();
  } finally {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  }
});
