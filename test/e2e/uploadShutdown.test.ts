/**
 * A large upload and the end of the process, on the real `greenline serve` (a child process, LMDB in a data folder):
 * SIGTERM with a short grace stops the upload (503 upload_interrupted, then the process exits) instead of waiting for
 * it; kill -9 in the middle of one loses nothing acknowledged; and in both cases the same upload sent again after the
 * restart completes it, every test counted once.
 */
import { request } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { TESTS_PER_TRANSACTION } from '../../engine/flaky/ingestBatches.js';
import { prepareUpload } from '../../engine/flaky/prepare.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { call, eventually, startServer, stop, withDataDir, type Running } from './process.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const testCase = (i: number) => `<testcase classname="pkg.C${i % 50}" name="t${i}"/>`;
const report = (cases: number) =>
  `<testsuite name="s">${Array.from({ length: cases }, (_, i) => testCase(i)).join('')}</testsuite>`;
const bodyOf = (cases: number) =>
  JSON.stringify({
    repo: REPO,
    commit_sha: 'abcdef1',
    branch: 'main',
    reports: [{ file: 'r.xml', xml: report(cases) }],
  });
/** The id of the upload's first test: it is stored by the upload's first transaction. */
const firstTestId = [
  ...prepareUpload({ repo: REPO, variant: '', reports: [{ file: 'r.xml', xml: report(1) }] }).tests.keys(),
][0] as string;

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
});

async function serve(dir: string, env: Record<string, string> = {}): Promise<Running> {
  const server = await startServer({
    GREENLINE_DATA: dir,
    GREENLINE_PROVIDER: 'sim',
    GREENLINE_API_TOKENS: 'default:upload-token-0123456789abcdef',
    ...env,
  });
  running.push(server);
  return server;
}

const TOKEN = 'upload-token-0123456789abcdef';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs the upload over its own connection; resolves with the answer, or the error when the connection ends without one. */
function postUpload(server: Running, body: string): Promise<Answer | Error> {
  return new Promise((resolve) => {
    const sent = request(
      `${server.url}/v1/flaky-tests/upload`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': TOKEN } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
        response.on('error', resolve);
      },
    );
    sent.on('error', resolve);
    sent.end(body);
  });
}

/** Resolves once the upload's first transaction is committed (its first test can be read). */
async function firstBatchStored(server: Running): Promise<void> {
  await eventually(
    () => call(server, '/v1/flaky-tests/get-test', TOKEN, { test_id: firstTestId }).then((response) => response.status),
    (status) => status === 200,
    120_000,
  );
}

/** What the data folder holds of the flaky-test uploads (read once the process is gone). */
async function storedUploads(dir: string) {
  const store = openLmdbStore({ dir });
  try {
    return store.read((tx) => ({
      uploads: [...tx.scan('flakyUploads')].map(({ value }) => value.progress),
      repoUploads: [...tx.scan('flakyRepos')].map(({ value }) => value.uploads),
      tests: tx.count('flakyTests'),
      runs: [...new Set([...tx.scan('flakyTests')].map(({ value }) => value.totals.runs))],
      storing: [...tx.scan('flakyShas')].map(({ value }) => value.storing),
    }));
  } finally {
    await store.close();
  }
}

/** After the restart: the same upload again completes it, and the store holds one upload's counts. */
async function retryCountsOnce(dir: string, body: string, cases: number): Promise<void> {
  const server = await serve(dir);
  const answer = await postUpload(server, body);
  expect(answer).not.toBeInstanceOf(Error);
  expect((answer as Answer).status, (answer as Answer).body).toBe(200);
  expect(JSON.parse((answer as Answer).body)).toMatchObject({ tests: cases, passed: cases });
  expect(await stop(server)).toEqual({ code: 0, signal: null });
  expect(await storedUploads(dir)).toEqual({
    uploads: [undefined],
    repoUploads: [1],
    tests: cases,
    runs: [1],
    storing: [undefined],
  });
  // Part of it was stored before: this send stored the rest.
  expect(JSON.parse((answer as Answer).body)).toMatchObject({ already_stored: false });
}

test('SIGTERM with a 1 s grace in the middle of a large upload: the upload answers 503, the process exits, the upload is left resumable', async () => {
  await withDataDir(async (dir) => {
    // Many batches (50,000 tests): storing them takes longer than the grace, so SIGTERM finds the upload in the middle.
    const batches = 500;
    const cases = batches * TESTS_PER_TRANSACTION;
    const body = bodyOf(cases);
    const server = await serve(dir, { GREENLINE_SHUTDOWN_GRACE: '1' });
    const events: string[] = [];
    const uploading = postUpload(server, body).then((answer) => {
      events.push(answer instanceof Error ? `upload failed: ${answer.message}` : `upload answered ${answer.status}`);
      return answer;
    });
    await firstBatchStored(server);
    server.child.kill('SIGTERM');
    const exited = await server.exited;
    events.push(`exited ${exited.code}`);
    const answer = await uploading;
    expect(events).toEqual(['upload answered 503', 'exited 0']);
    expect(JSON.parse((answer as Answer).body)).toMatchObject({ reason: 'upload_interrupted' });
    expect((answer as Answer).headers).toMatchObject({ 'retry-after': '5', connection: 'close' });
    expect(server.stdout()).toContain('greenline: stopped');

    // The process ended before the upload was: part of its batches are stored, and it says how many.
    const left = await storedUploads(dir);
    expect(left.uploads).toEqual([{ batches, size: TESTS_PER_TRANSACTION, stored: expect.any(Number) }]);
    const stored = left.uploads[0]?.stored ?? 0;
    expect(stored).toBeLessThan(batches);
    expect(left).toMatchObject({ repoUploads: [1], tests: stored * TESTS_PER_TRANSACTION, runs: [1], storing: [1] });

    await retryCountsOnce(dir, body, cases);
  });
});

test('kill -9 in the middle of an upload, a restart, the same upload again: every test is counted once', async () => {
  await withDataDir(async (dir) => {
    // 6,000 tests: enough batches that the kill, sent once the first is seen, lands before the last.
    const cases = 60 * TESTS_PER_TRANSACTION;
    const body = bodyOf(cases);
    const server = await serve(dir);
    const uploading = postUpload(server, body);
    await firstBatchStored(server);
    server.child.kill('SIGKILL');
    expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await uploading).toBeInstanceOf(Error);
    // Killed in the middle: part of the upload's tests are stored.
    const left = await storedUploads(dir);
    expect(left.tests).toBeGreaterThan(0);
    expect(left.tests).toBeLessThan(cases);

    await retryCountsOnce(dir, body, cases);
  });
});
