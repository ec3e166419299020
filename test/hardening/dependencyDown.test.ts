/**
 * A dependency down answers 503 with retry-after in the one error body, never a 500: the local git host failing
 * (its repositories folder unusable) when createQueue prepares the repository. (The store's database down:
 * test/postgres/outage.test.ts; GitHub's API down for a webhook: test/github/webhookOutage.test.ts.)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { LocalGitHost } from '../../engine/providers/local/localGitHost.js';
import { makeApi, type Api } from '../api/harness.js';

let api: Api | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await api?.close().catch(() => undefined);
  api = undefined;
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('dependencies down', () => {
  test('the local git host failing: createQueue is a 503 dependency_unavailable with retry-after, and creates nothing', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'greenline-git-down-'));
    dirs.push(dataDir);
    // Where the repositories go is a file: git cannot create one.
    await writeFile(join(dataDir, 'repos'), 'not a folder');
    api = await makeApi(undefined, { gitHost: new LocalGitHost({ dataDir }) });
    const response = await api.post('createQueue', {
      repo: { host: 'local', owner: 'acme', name: 'widgets' },
      targetBranch: 'main',
    });
    expect(response.statusCode).toBe(503);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    const body = response.json() as { code: string; reason: string; message: string };
    expect(body).toMatchObject({ code: 'unavailable', reason: 'dependency_unavailable' });
    expect(body.message).not.toContain(dataDir);
    expect(api.engine.listQueues('acme')).toEqual([]);
  });
});
