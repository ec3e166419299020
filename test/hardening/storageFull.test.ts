/**
 * A full store: with a small GREENLINE_MAX_DB_SIZE, writes are refused with 507 storage_full, reads go on, nothing
 * acknowledged is lost, and with room again (a larger limit at the next start) writes work again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openLmdbStore } from '../../engine/store/index.js';
import { expectErrorBody, makeApi, REPO, type Api } from '../api/harness.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';

let dir: string | undefined;
let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const queue = { repo: REPO, targetBranch: 'main' };

test('writes get 507 storage_full at the limit; reads and everything acknowledged stay; a larger limit lets writes in', async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-full-'));
  api = await makeApi(openLmdbStore({ dir, maxBytes: 256 * 1024 }), { gitHost: new SimGitHost() });
  expect((await api.post('createQueue', { ...queue, requiredStatuses: ['ci'] })).statusCode).toBe(200);
  const acknowledged: number[] = [];
  let refused;
  for (let number = 1; number <= 5000 && refused === undefined; number++) {
    const response = await api.post('submitPullRequest', { ...queue, pr: { number } });
    if (response.statusCode === 200) acknowledged.push(number);
    else refused = response;
  }
  expect(refused, 'the limit was never reached').toBeDefined();
  const body = expectErrorBody(refused!, 507, 'storage_full');
  expect(body.message).not.toMatch(/\/tmp|greenline-full/);
  expect(acknowledged.length).toBeGreaterThan(5);

  // Reads keep working, and every acknowledged PR is there.
  const read = await api.post('getQueue', queue);
  expect(read.statusCode).toBe(200);
  for (const number of acknowledged) {
    expect((await api.post('getSubmittedPullRequest', { ...queue, pr: { number } })).statusCode).toBe(200);
  }
  expect((await api.get('getMergeQueueMetrics')).statusCode).toBe(200);
  // Other writes are refused the same way (never a 500).
  expectErrorBody(await api.post('updateQueue', { ...queue, concurrency: 2 }), 507, 'storage_full');

  // A restart with a larger limit: everything is there, and writes work again.
  await api.close();
  api = await makeApi(openLmdbStore({ dir, maxBytes: 64 * 1024 * 1024 }), { gitHost: new SimGitHost() });
  for (const number of acknowledged) {
    expect((await api.post('getSubmittedPullRequest', { ...queue, pr: { number } })).statusCode).toBe(200);
  }
  expect((await api.post('submitPullRequest', { ...queue, pr: { number: 9999 } })).statusCode).toBe(200);
  expect((await api.post('updateQueue', { ...queue, concurrency: 2 })).statusCode).toBe(200);
});
