/** The defects of issue 19 found by probing the API's inputs: each answered 500 (or was accepted) before. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POST_ENDPOINTS } from '../../api/endpoints.js';
import { expectErrorBody, makeApi, REPO, type Api } from '../api/harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

/** A body every merge-queue endpoint would take, but for its target branch. */
function bodyWithBranch(targetBranch: string) {
  return {
    repo: REPO,
    targetBranch,
    pr: { number: 1, sha: 'abcdef1' },
    testRunId: 'run-1',
    impactedTargets: ['//a'],
  };
}

describe('an unpaired UTF-16 surrogate', () => {
  it('in targetBranch is a 400 naming the field on every merge-queue endpoint', async () => {
    // The queue exists, so the request gets as far as the store keys when the branch is not refused first.
    expect((await api.post('createQueue', { repo: REPO, targetBranch: 'main' })).statusCode).toBe(200);
    const tried: string[] = [];
    for (const { path } of POST_ENDPOINTS) {
      if (path.startsWith('flaky-tests') || path === 'setCommitStatus') continue;
      const response = await api.post(path, bodyWithBranch('\ud800'));
      tried.push(path);
      const body = expectErrorBody(response, 400, 'bad_request');
      expect(body.details?.map((detail) => detail.field)).toContain('targetBranch');
    }
    expect(tried.length).toBeGreaterThanOrEqual(10);
  });

  it('in a flaky-test upload branch or test name is refused or stored as valid text, never a 500', async () => {
    const xml = '<testsuite name="s"><testcase classname="c" name="t\ud800"/></testsuite>';
    const response = await api.post('flaky-tests/upload', {
      repo: REPO,
      commit_sha: 'abcdef1',
      branch: 'main\udc00',
      reports: [{ file: 'r.xml', xml }],
    });
    expectErrorBody(response, 400, 'bad_request');
  });
});

describe('the metrics query', () => {
  it('holds repo to the limits of a request body: a 1,990-character name is a 400, not a 500', async () => {
    const response = await api.get(`getMergeQueueMetrics?repo=acme/${'a'.repeat(1990)}&repoHost=github.com`);
    const body = expectErrorBody(response, 400, 'bad_request');
    expect(body.details?.map((detail) => detail.field)).toContain('repo');
  });

  it('refuses a repo whose parts are not names', async () => {
    expectErrorBody(
      await api.get(`getMergeQueueMetrics?repo=${encodeURIComponent('acme/wid gets')}&repoHost=github.com`),
      400,
    );
    expectErrorBody(await api.get(`getMergeQueueMetrics?repo=acme/%ED%A0%80&repoHost=github.com`), 400);
  });

  it('still answers a valid repo', async () => {
    const response = await api.get('getMergeQueueMetrics?repo=acme/widgets&repoHost=github.com');
    expect(response.statusCode).toBe(200);
  });
});

describe('setImpactedTargets', () => {
  const body = (count: number) => ({
    repo: REPO,
    targetBranch: 'main',
    pr: { number: 1, sha: 'abcdef1' },
    impactedTargets: Array.from({ length: count }, (_, i) => `//t:${i}`),
  });
  it('takes 100,000 targets, as the README says, and refuses 100,001', async () => {
    expect((await api.post('createQueue', { repo: REPO, targetBranch: 'main', mode: 'parallel' })).statusCode).toBe(
      200,
    );
    expect((await api.post('setImpactedTargets', body(100_000))).statusCode).toBe(200);
    const refused = expectErrorBody(await api.post('setImpactedTargets', body(100_001)), 400, 'bad_request');
    expect(refused.details?.map((detail) => detail.field)).toContain('impactedTargets');
  });
});

describe('every request body', () => {
  it('with an unpaired surrogate in any string or key is a 400 naming the field', async () => {
    const status = { repo: REPO, sha: 'abcdef1', context: 'ci\udfff', state: 'success' };
    const body = expectErrorBody(await api.post('setCommitStatus', status), 400, 'bad_request');
    expect(body.details).toEqual([{ field: 'context', message: 'must be valid Unicode (no unpaired surrogate)' }]);
    const keyed = expectErrorBody(await api.post('getQueue', { repo: REPO, targetBranch: 'main', 'x\ud800': 1 }), 400);
    expect(keyed.details?.[0]?.field).toBe('(key)');
  });
});
