/**
 * A full store is not an outage: restarted at its GREENLINE_MAX_DB_SIZE it opens read-only, /readyz says so (200,
 * with the reason), reads and flaky-test listings answer, dashboard sign-in works, writes get 507 storage_full;
 * a retention sweep frees room without a restart, and a larger limit at the next start lets writes in. The data
 * never goes over the limit, even through one large write.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { RetentionSweep } from '../../engine/retention/sweep.js';
import { expectErrorBody, makeApi, REPO, TOKENS, type Api } from '../api/harness.js';
import { listBody, uploadBody } from '../flaky/helpers.js';

let dir: string | undefined;
let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const LIMIT = 512 * 1024;
const DAY = 86_400_000;
const queue = { repo: REPO, targetBranch: 'main' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const open = (maxBytes: number) =>
  makeApi(openLmdbStore({ dir: dir as string, maxBytes }), { gitHost: new SimGitHost() });

/** Bytes of the store's data, as the limit counts them, from what the store says of its fullness. */
const dataBytes = (current: Api) => Number(/the store holds (\d+) bytes/.exec(current.store.fullReason?.() ?? '')?.[1]);

test('a full store restarts read-only: /readyz says so, reads, listings and sign-in work, writes get 507; room frees it', async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-full-start-'));
  api = await open(LIMIT);
  expect((await api.post('createQueue', { ...queue, requiredStatuses: ['ci'] })).statusCode).toBe(200);
  expect((await api.post('createQueue', { ...queue, targetBranch: 'spare' })).statusCode).toBe(200);
  const acknowledged: number[] = [];
  for (let number = 1; number <= 20_000; number++) {
    const response = await api.post('submitPullRequest', { ...queue, pr: { number } });
    if (response.statusCode !== 200) {
      expectErrorBody(response, 507, 'storage_full');
      break;
    }
    acknowledged.push(number);
  }
  // One large write (an upload of many cases) is refused whole rather than taking the store over its limit.
  const cases = Array.from({ length: 3000 }, (_, index) => ({ name: `case-${index}`, outcome: 'failed' as const }));
  expectErrorBody(await api.post('flaky-tests/upload', uploadBody(cases)), 507, 'storage_full');
  expect(dataBytes(api)).toBeLessThanOrEqual(LIMIT);
  await api.close();

  // The restart, at the same limit.
  api = await open(LIMIT);
  const ready = await api.app.inject({ method: 'GET', url: '/readyz' });
  expect(ready.statusCode).toBe(200);
  expect(ready.json()).toEqual({
    status: 'read-only',
    reason: expect.stringMatching(/limit of 524288 \(GREENLINE_MAX_DB_SIZE\).*507 storage_full.*reads are served/),
  });
  expect((await api.post('getQueue', queue)).statusCode).toBe(200);
  for (const number of acknowledged)
    expect((await api.post('getSubmittedPullRequest', { ...queue, pr: { number } })).statusCode).toBe(200);
  for (const listing of ['list-quarantined-tests', 'list-unhealthy-tests']) {
    const response = await api.post(
      `flaky-tests/${listing}`,
      listBody(listing === 'list-unhealthy-tests' ? { status: 'flaky' } : {}),
    );
    expect({ listing, status: response.statusCode }, response.body).toEqual({ listing, status: 200 });
  }
  const signIn = await api.app.inject({
    method: 'POST',
    url: '/signin',
    headers: FORM,
    payload: `token=${TOKENS.acme}`,
  });
  expect(signIn.statusCode, signIn.body).toBe(303);
  expect(signIn.headers['set-cookie']).toMatch(/greenline_session=/);
  expectErrorBody(await api.post('submitPullRequest', { ...queue, pr: { number: 90_000 } }), 507, 'storage_full');

  // Room freed without a restart: a retention sweep (its removals are never refused) lets writes in again.
  await api.clock.advanceBy(10 * DAY);
  const swept = await new RetentionSweep({
    engine: api.engine,
    store: api.store,
    clock: api.clock,
    settings: { eventsDays: 1 },
  }).sweep();
  expect(swept.queues.events).toBeGreaterThan(0);
  expect((await api.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
  const resumed = await api.post('submitPullRequest', { ...queue, targetBranch: 'spare', pr: { number: 90_001 } });
  expect(resumed.statusCode, resumed.body).toBe(200);
  await api.close();

  // A larger limit at the next start: ready, and writes go on.
  api = await open(64 * 1024 * 1024);
  expect((await api.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
  expect((await api.post('submitPullRequest', { ...queue, pr: { number: 90_002 } })).statusCode).toBe(200);
});
