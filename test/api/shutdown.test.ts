import { expect, test } from 'vitest';
import { TESTS_PER_TRANSACTION } from '../../engine/flaky/ingestBatches.js';
import { expectErrorBody, makeApi, REPO } from './harness.js';

test('while the service closes, a request gets 503 in the one error shape and the connection closes', async () => {
  const api = await makeApi();
  const closing = api.app.close();
  const response = await api.get('getMergeQueueMetrics');
  expectErrorBody(response, 503, 'unavailable');
  expect(response.headers.connection).toBe('close');
  expect(response.headers['retry-after']).toBe('5');
  await closing;
  await api.store.close();
});

const suite = (cases: number) =>
  `<testsuite name="s">${Array.from({ length: cases }, (_, i) => `<testcase classname="pkg.C${i % 50}" name="t${i}"/>`).join('')}</testsuite>`;

test('an upload being stored when the service stops uploads answers 503 upload_interrupted; sent again, it is stored once', async () => {
  const api = await makeApi();
  const cases = 4 * TESTS_PER_TRANSACTION;
  const body = { repo: REPO, commit_sha: 'abcdef1', branch: 'main', reports: [{ file: 'r.xml', xml: suite(cases) }] };
  const uploading = api.post('flaky-tests/upload', body);
  // Once its first batch is stored, the service closes and, its grace over, stops the uploads (as cli/serve.ts does).
  while (api.store.read((tx) => tx.count('flakyUploads')) === 0) await new Promise((resolve) => setImmediate(resolve));
  const closing = api.app.close();
  api.engine.flakyTests.interruptUploads();
  const response = await uploading;
  expect(expectErrorBody(response, 503, 'unavailable')).toMatchObject({ reason: 'upload_interrupted' });
  expect(response.headers['retry-after']).toBe('5');
  expect(response.headers.connection).toBe('close');
  await closing;
  api.engine.stop();
  const progress = api.store.read((tx) => [...tx.scan('flakyUploads')].map(({ value }) => value.progress));
  expect(progress).toEqual([{ batches: 4, size: TESTS_PER_TRANSACTION, stored: expect.any(Number) }]);
  expect(progress[0]?.stored).toBeLessThan(4);

  // The service again, on the same store: the same upload stores the rest, and every test counts one run.
  const again = await makeApi(api.store);
  const retried = await again.post('flaky-tests/upload', body);
  expect(retried.statusCode).toBe(200);
  expect(retried.json()).toMatchObject({ tests: cases, passed: cases, already_stored: false });
  const stored = again.store.read((tx) => ({
    uploads: [...tx.scan('flakyUploads')].map(({ value }) => value.progress),
    runs: new Set([...tx.scan('flakyTests')].map(({ value }) => value.totals.runs)),
    tests: tx.count('flakyTests'),
    storing: [...tx.scan('flakyShas')].map(({ value }) => value.storing),
  }));
  expect(stored).toEqual({ uploads: [undefined], runs: new Set([1]), tests: cases, storing: [undefined] });
  await again.close();
});
