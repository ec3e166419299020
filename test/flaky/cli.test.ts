/** `greenline upload` against a real server listening on a loopback port. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { parseRepoArgument, uploadCommand } from '../../cli/upload.js';
import { makeApi, TOKENS, type Api } from '../api/harness.js';
import { junitXml, listBody } from './helpers.js';
import { captureConsole } from '../console.js';

let api: Api;
let url: string;
let dir: string;
const cwd = process.cwd();

beforeAll(async () => {
  api = await makeApi();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const address = api.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  url = `http://127.0.0.1:${address.port}`;
  dir = await mkdtemp(join(tmpdir(), 'greenline-upload-'));
  await mkdir(join(dir, 'reports', 'unit'), { recursive: true });
  await writeFile(
    join(dir, 'reports', 'unit', 'a.xml'),
    junitXml([
      { name: 'a', file: 'src/a.ts' },
      { name: 'b', outcome: 'failed', file: 'src/b.ts' },
    ]),
  );
  await writeFile(
    join(dir, 'reports', 'b.xml'),
    junitXml([
      { name: 'c', outcome: 'skipped' },
      { name: 'a', file: 'src/a.ts' },
    ]),
  );
  await writeFile(join(dir, 'CODEOWNERS'), 'src/b.ts @team-b\n');
  await writeFile(join(dir, 'broken.xml'), '<testsuite><testcase name="x">');
  process.chdir(dir);
});
afterAll(async () => {
  process.chdir(cwd);
  await api.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const base = { repo: 'github.com/acme/widgets', sha: 'abcdef1234567', token: TOKENS.acme };

describe('greenline upload', () => {
  test('globs the reports, uploads them and prints the counts', async () => {
    const { out } = captureConsole();
    const code = await uploadCommand({
      ...base,
      junit: 'reports/**/*.xml',
      url,
      prNumber: 7,
      branch: 'feature/x',
      codeowners: 'CODEOWNERS',
    });
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(
      /^Uploaded 2 reports \(upload [0-9a-f-]{36}\): 3 tests, 1 passed, 1 failed, 1 skipped$/,
    );
    const listing = await api.post(
      'flaky-tests/list-failing-tests',
      listBody({ start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-23T00:00:00Z' }),
    );
    const [row] = (
      listing.json() as { tests: { name: string; codeowners: string[]; pull_requests_impacted_last_7d: number }[] }
    ).tests;
    expect(row).toMatchObject({ name: 'b', codeowners: ['@team-b'], pull_requests_impacted_last_7d: 1 });
  });

  test('the token and URL may come from the environment', async () => {
    captureConsole();
    vi.stubEnv('GREENLINE_TOKEN', TOKENS.acme);
    vi.stubEnv('GREENLINE_URL', url);
    try {
      expect(await uploadCommand({ junit: 'reports/unit/*.xml', repo: 'acme/widgets', sha: 'abcdef1' })).toBe(0);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  test('an invalid report fails the upload (exit 1), naming the file', async () => {
    const { err } = captureConsole();
    expect(await uploadCommand({ ...base, junit: 'reports/**/*.xml,broken.xml', url })).toBe(1);
    expect(err.join('\n')).toMatch(/answered 400: .*broken\.xml/);
  });

  test('usage errors exit 2; an unreachable service exits 1', async () => {
    const { err } = captureConsole();
    expect(await uploadCommand({ ...base, junit: 'nothing/*.xml', url })).toBe(2);
    expect(await uploadCommand({ ...base, junit: 'reports/**/*.xml', url, token: '' })).toBe(2);
    expect(await uploadCommand({ ...base, junit: 'reports/**/*.xml', url, sha: 'main' })).toBe(2);
    expect(await uploadCommand({ ...base, junit: 'reports/**/*.xml', url, repo: 'widgets' })).toBe(2);
    // An unreachable service is tried again, after 2, 4 and 8 s, before giving up.
    const waits: number[] = [];
    expect(
      await uploadCommand(
        { ...base, junit: 'reports/**/*.xml', url: 'http://127.0.0.1:1' },
        { sleep: async (ms) => void waits.push(ms) },
      ),
    ).toBe(1);
    expect(waits).toEqual([2000, 4000, 8000]);
    expect(err).toHaveLength(8);
  });

  test('a 503 (the service shutting down) is sent again after its retry-after, to the service started again: stored once', async () => {
    const first = await makeApi();
    await first.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = first.app.server.address() as AddressInfo;
    first.engine.flakyTests.interruptUploads();
    const waits: number[] = [];
    let second: Api | undefined;
    // While the client waits, the service restarts on the same store and port.
    const restart = async (ms: number) => {
      waits.push(ms);
      first.engine.stop();
      await first.app.close();
      second = await makeApi(first.store);
      await second.app.listen({ port, host: '127.0.0.1' });
    };
    const { out, err } = captureConsole();
    expect(
      await uploadCommand({ ...base, junit: 'reports/**/*.xml', url: `http://127.0.0.1:${port}` }, { sleep: restart }),
    ).toBe(0);
    expect(waits).toEqual([5000]);
    expect(err.join('\n')).toMatch(/the service is unavailable \(503\); sending again in 5 s \(attempt 2 of 4\)/);
    expect(out.join('\n')).toMatch(/^Uploaded 2 reports/);
    expect(second?.store.read((tx) => tx.count('flakyUploads'))).toBe(1);
    await second?.close();
  });

  test('repository arguments', () => {
    expect(parseRepoArgument('acme/widgets')).toEqual({ host: 'github.com', owner: 'acme', name: 'widgets' });
    expect(parseRepoArgument('gitlab.com/group/sub/proj')).toEqual({
      host: 'gitlab.com',
      owner: 'group/sub',
      name: 'proj',
    });
    expect(parseRepoArgument('https://github.com/acme/widgets.git')).toEqual({
      host: 'github.com',
      owner: 'acme',
      name: 'widgets',
    });
    expect(parseRepoArgument('git@github.com:acme/widgets.git')).toEqual({
      host: 'github.com',
      owner: 'acme',
      name: 'widgets',
    });
  });
});
