/**
 * Test files relative to the repository root: mocha writes the runner's absolute path as `file`, which must not make
 * the same test a new test on every runner. Pure normalisation, the upload endpoint, and `greenline upload` finding
 * the root of a real git work tree.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRootFor, uploadCommand } from '../../cli/upload.js';
import { repoRelativePath } from '../../engine/flaky/paths.js';
import { captureConsole } from '../console.js';
import { makeApi, TOKENS, type Api } from '../api/harness.js';
import { listBody, REPO, uploadBody } from './helpers.js';

describe('repoRelativePath', () => {
  test.each([
    ['/tmp/runner-1/work/test/sample.spec.js', '/tmp/runner-1/work', 'test/sample.spec.js'],
    ['/tmp/runner-1/work/test/sample.spec.js', '/tmp/runner-1/work/', 'test/sample.spec.js'],
    ['C:\\a\\repo\\test\\x.spec.js', 'C:\\a\\repo', 'test/x.spec.js'],
    ['./test/x.spec.js', '/tmp/w', 'test/x.spec.js'],
    ['test/x.spec.js', undefined, 'test/x.spec.js'],
    // Outside the root, or a root that is only a prefix of a folder name: left as it is.
    ['/opt/other/x.spec.js', '/tmp/w', '/opt/other/x.spec.js'],
    ['/tmp/work2/x.spec.js', '/tmp/work', '/tmp/work2/x.spec.js'],
    ['', '/tmp/w', ''],
  ])('%s under %s is %s', (file, root, expected) => {
    expect(repoRelativePath(file, root)).toBe(expected);
  });
});

const mochaReport = (root: string) =>
  `<testsuites name="Mocha Tests"><testsuite name="sample" tests="1" failures="1">` +
  `<testcase name="sample adds" classname="adds" file="${root}/test/sample.spec.js"><failure message="boom">boom</failure></testcase>` +
  `</testsuite></testsuites>`;

describe('uploads name their repository root', () => {
  let api: Api;
  beforeAll(async () => {
    api = await makeApi();
  });
  afterAll(async () => {
    await api.close();
  });

  test('the same test from two runners is one test, listed with its relative path', async () => {
    for (const [index, root] of ['/tmp/runner-a/work', '/home/ci/builds/7/widgets'].entries()) {
      const body = {
        ...uploadBody([]),
        commit_sha: String(index + 1).repeat(40),
        repo_root: root,
        reports: [{ file: 'mocha.xml', xml: mochaReport(root) }],
      };
      expect((await api.post('flaky-tests/upload', body)).statusCode).toBe(200);
    }
    const listed = await api.post(
      'flaky-tests/list-failing-tests',
      listBody({ start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-23T00:00:00Z' }),
    );
    const tests = (listed.json() as { tests: { file_path: string; name: string }[] }).tests;
    expect(tests).toEqual([expect.objectContaining({ name: 'sample adds', file_path: 'test/sample.spec.js' })]);
  });
});

describe('greenline upload --repo-root', () => {
  let api: Api;
  let url: string;
  let dir: string;
  beforeAll(async () => {
    api = await makeApi();
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const address = api.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    url = `http://127.0.0.1:${address.port}`;
    dir = await realpath(await mkdtemp(join(tmpdir(), 'greenline-root-')));
    execFileSync('git', ['init', '-q', join(dir, 'widgets')]);
    await mkdir(join(dir, 'widgets', 'reports'), { recursive: true });
    await writeFile(join(dir, 'widgets', 'reports', 'mocha.xml'), mochaReport(join(dir, 'widgets')));
  });
  afterAll(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the root is the git work tree around the current folder, else the folder; --repo-root names it', async () => {
    expect(await repoRootFor(undefined, join(dir, 'widgets', 'reports'))).toBe(join(dir, 'widgets'));
    expect(await repoRootFor(undefined, dir)).toBe(dir);
    expect(await repoRootFor('widgets', dir)).toBe(join(dir, 'widgets'));
    await expect(repoRootFor('missing', dir)).rejects.toThrow('--repo-root missing: not a folder');
  });

  test('uploads mocha paths relative to the detected root', async () => {
    captureConsole();
    const cwd = process.cwd();
    process.chdir(join(dir, 'widgets', 'reports'));
    try {
      const code = await uploadCommand({
        junit: '*.xml',
        repo: 'github.com/acme/widgets',
        sha: 'abcdef1234567',
        token: TOKENS.acme,
        url,
      });
      expect(code).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    const listed = await api.post(
      'flaky-tests/list-failing-tests',
      listBody({ start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-23T00:00:00Z' }),
    );
    expect((listed.json() as { tests: { file_path: string }[] }).tests.map((row) => row.file_path)).toEqual([
      'test/sample.spec.js',
    ]);
    expect(REPO).toEqual({ host: 'github.com', owner: 'acme', name: 'widgets' });
  });
});
