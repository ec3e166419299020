/** JUnit uploads are parsed off the event loop, and every field of a test's identity has a maximum length. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_IDENTITY_FIELD_CHARS } from '../../engine/flaky/junit.js';
import { expectErrorBody, makeApi, REPO, type Api } from '../api/harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const upload = (xml: string) => ({
  repo: REPO,
  commit_sha: 'abcdef1',
  branch: 'main',
  reports: [{ file: 'r.xml', xml }],
});
const suite = (cases: number) =>
  `<testsuite name="s">${Array.from({ length: cases }, (_, i) => `<testcase classname="pkg.C${i % 50}" name="t${i}"/>`).join('')}</testsuite>`;

describe('a large upload', () => {
  it('does not hold up a request that arrives while it is being parsed', async () => {
    const finished: string[] = [];
    let health: Promise<unknown> | undefined;
    api.app.addHook('preHandler', async (request) => {
      // The health check is sent the moment the upload reaches its handler: it must not wait for the parsing.
      if (request.url === '/v1/flaky-tests/upload' && health === undefined) {
        health = new Promise((resolve) => setImmediate(resolve))
          .then(() => api.app.inject({ method: 'GET', url: '/healthz' }))
          .then((response) => finished.push(`healthz ${response.statusCode}`));
      }
    });
    const uploaded = api.post('flaky-tests/upload', upload(suite(60_000))).then((response) => {
      finished.push(`upload ${response.statusCode}`);
      return response;
    });
    const response = await uploaded;
    await health;
    expect(response.json()).toMatchObject({ tests: 60_000, passed: 60_000 });
    expect(finished).toEqual(['healthz 200', 'upload 200']);
  });
});

describe('field lengths', () => {
  it(`refuse a test name over ${MAX_IDENTITY_FIELD_CHARS} characters, naming the report, and store nothing`, async () => {
    const long = 'n'.repeat(MAX_IDENTITY_FIELD_CHARS + 1);
    for (const xml of [
      `<testsuite name="s"><testcase classname="c" name="${long}"/></testsuite>`,
      `<testsuite name="s"><testcase classname="${long}" name="t"/></testsuite>`,
      `<testsuite name="${long}"><testcase classname="c" name="t"/></testsuite>`,
      `<testsuite name="s"><testcase classname="c" name="t" file="${long}"/></testsuite>`,
    ]) {
      const body = expectErrorBody(await api.post('flaky-tests/upload', upload(xml)), 400, 'bad_request');
      expect(body.message).toContain('"r.xml"');
      expect(body.message).toContain(`at most ${MAX_IDENTITY_FIELD_CHARS}`);
    }
    const stored = api.store.read((tx) => [...tx.scan('flakyTests', { prefix: [] })].length);
    expect(stored).toBe(0);
  });

  it('takes a name of exactly the maximum, and cuts a huge failure message to its summary', async () => {
    const name = 'n'.repeat(MAX_IDENTITY_FIELD_CHARS);
    const message = 'boom '.repeat(1_000_000);
    const xml = `<testsuite name="s"><testcase classname="c" name="${name}"><failure message="${message}"/></testcase></testsuite>`;
    const response = await api.post('flaky-tests/upload', upload(xml));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ tests: 1, failed: 1 });
  });

  it('an invalid report is still a 400 from the worker, naming the file', async () => {
    const body = expectErrorBody(await api.post('flaky-tests/upload', upload('<testsuite>')), 400, 'bad_request');
    expect(body.message).toContain('"r.xml" is not a valid JUnit XML report');
  });
});
