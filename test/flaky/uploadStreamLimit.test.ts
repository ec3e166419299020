/**
 * An oversize upload over real HTTP (api/uploadStream.ts): refused 400 too_many_test_cases while the client is still
 * sending its body — the answer arrives before the body ends, and nothing of it is stored. On the old route the
 * answer came only after the whole body was read and parsed (here: never, as the body never ends).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { MAX_TEST_CASES_PER_UPLOAD } from '../../engine/flaky/index.js';
import { makeApi, REPO, TOKENS, type Api } from '../api/harness.js';

let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Writes `text` in pieces, waiting for the socket to take each (backpressure); stops early once `stop()` says so. */
async function send(request: http.ClientRequest, text: string, stop: () => boolean): Promise<void> {
  const piece = 64 * 1024;
  for (let at = 0; at < text.length && !stop(); at += piece) {
    if (!request.write(text.slice(at, at + piece))) await new Promise((resolve) => request.once('drain', resolve));
  }
}

test('an upload over the limit is refused before its body ends', async () => {
  api = await makeApi();
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = api.app.server.address() as AddressInfo;
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/flaky-tests/upload',
    headers: { 'x-api-token': TOKENS.acme, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
  });
  request.on('error', () => undefined);
  let answered = false;
  const answer = new Promise<{ status: number; body: string }>((resolve) =>
    request.on('response', (response) => {
      answered = true;
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    }),
  );
  const head = JSON.stringify({
    repo: REPO,
    commit_sha: 'abcdef1',
    branch: 'main',
    reports: [{ file: 'r.xml', xml: '<testsuite name="s">' }],
  });
  // Everything up to the open xml string, then one case more than the limit; the body's end is never sent.
  const open = head.slice(0, head.lastIndexOf('"'));
  await send(request, open, () => answered);
  await send(request, '<testcase name=\\"t\\"/>'.repeat(MAX_TEST_CASES_PER_UPLOAD + 1), () => answered);
  const { status, body } = await answer;
  request.destroy();
  expect(status).toBe(400);
  expect(JSON.parse(body)).toMatchObject({ code: 'bad_request', reason: 'too_many_test_cases' });
  expect(api.store.read((tx) => tx.count('flakyUploads'))).toBe(0);
});

test('an upload under the limit goes through the counting and is stored', async () => {
  api = await makeApi();
  const xml = `<testsuite name="s">${'<testcase classname="c" name="t"/>'.repeat(1000)}</testsuite>`;
  const response = await api.post('flaky-tests/upload', {
    repo: REPO,
    commit_sha: 'abcdef1',
    branch: 'main',
    reports: [{ file: 'r.xml', xml }],
  });
  expect(response.statusCode).toBe(200);
});
