/** A full merge-queue scenario over HTTP, driven through setCommitStatus, with a server restart in the middle. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openLmdbStore } from '../../engine/store/index.js';
import { expectErrorBody, makeApi, queueBody, REPO, TOKENS, type Api } from './harness.js';

let dir = '';
let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

async function open(): Promise<Api> {
  api = await makeApi(openLmdbStore({ dir, noSync: true }));
  return api;
}

async function submitted(a: Api, number: number, includeTimeline = false) {
  const response = await a.post('getSubmittedPullRequest', queueBody({ pr: { number }, includeTimeline }));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Record<string, unknown> & {
    state: string;
    testRunId: string;
    timeline?: { event: string; message: string }[];
  };
}

async function details(a: Api, testRunId: string) {
  const response = await a.post('getMergeQueueTestingDetails', queueBody({ testRunId }));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    testBranch: string;
    testBranchSha: string;
    status: string;
    testedPullRequests: { prNumber: number }[];
    statusChecks: unknown[];
  };
}

async function status(a: Api, sha: string, state: string, token?: string) {
  return a.post('setCommitStatus', { repo: REPO, sha, context: 'ci/build', state, url: 'https://ci.example/1' }, token);
}

describe('a merge queue over HTTP', () => {
  test('tests, fails, retests and merges through setCommitStatus, also across a restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'greenline-mq-'));
    let a = await open();
    expect(
      (await a.post('createQueue', queueBody({ concurrency: 2, requiredStatuses: ['ci/build'] }))).statusCode,
    ).toBe(200);
    for (const number of [1, 2]) {
      const response = await a.post('submitPullRequest', queueBody({ pr: { number: String(number) } }));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({});
    }
    await a.engine.settle();
    const one = await submitted(a, 1);
    expect(one).toMatchObject({
      state: 'TESTING',
      prNumber: 1,
      prTitle: 'PR #1',
      prAuthor: 'sim',
      prBaseBranch: 'main',
      isCurrentlySubmittedToQueue: true,
      priorityName: 'medium',
      readiness: {
        doesBaseBranchMatch: true,
        gitHubMergeability: 'mergeable',
        hasImpactedTargets: false,
        requiresImpactedTargets: false,
      },
    });
    const run1 = await details(a, one.testRunId);
    expect(run1).toMatchObject({
      status: 'in_progress',
      testBranch: `greenline/main/${one.testRunId}`,
      testedPullRequests: [{ prNumber: 1, prUrl: 'https://github.com/acme/widgets/pull/1', title: 'PR #1' }],
    });
    const run2 = await details(a, (await submitted(a, 2)).testRunId);

    // Statuses of another organization, or for an unknown SHA, find nothing.
    expectErrorBody(await status(a, run1.testBranchSha, 'success', TOKENS.globex), 404, 'not_found');
    expectErrorBody(await status(a, 'f'.repeat(40), 'success'), 404, 'not_found');
    expectErrorBody(
      await a.post('setCommitStatus', { repo: REPO, sha: run1.testBranchSha, context: 'ci/build', state: 'done' }),
      400,
      'bad_request',
    );

    // PR 1 fails (in upper case, as some CI sends it): it is kicked, and PR 2 is retested without it.
    expect((await status(a, run1.testBranchSha, 'FAILURE')).statusCode).toBe(200);
    await a.engine.settle();
    const failed = await submitted(a, 1, true);
    expect(failed.state).toBe('FAILED');
    // Its failure likelihood, and what it rests on: shown, with the timeline saying it.
    expect(failed).toMatchObject({ failureLikelihood: { features: { failedAttempts: 1, size: 0 } } });
    expect((failed.failureLikelihood as { probability: number }).probability).toBeGreaterThan(0);
    expect(failed.timeline?.find((entry) => entry.event === 'ready')?.message).toMatch(
      /failure likelihood \d+\.\d% from failedAttempts 0\.00/,
    );
    expect((await details(a, (await submitted(a, 2)).testRunId)).status).toBe('in_progress');
    expect(run2.status).toBe('in_progress');
    expect((await details(a, one.testRunId)).statusChecks).toEqual([
      { context: 'ci/build', url: 'https://ci.example/1', state: 'FAILURE', description: '' },
    ]);
    const retest = await submitted(a, 2);
    expect(retest.testRunId).not.toBe(
      (await a.post('getSubmittedPullRequest', queueBody({ pr: { number: 1 } }))).json().testRunId,
    );

    // The service restarts while PR 2 is testing; nothing is lost and the run goes on.
    await a.close();
    api = undefined;
    a = await open();
    expect((await submitted(a, 2)).state).toBe('TESTING');
    const rerun = await details(a, retest.testRunId);
    expect(rerun.status).toBe('in_progress');
    expect((await status(a, rerun.testBranchSha, 'pending')).statusCode).toBe(200);
    expect((await status(a, rerun.testBranchSha, 'success')).statusCode).toBe(200);
    await a.engine.settle();
    const merged = await submitted(a, 2, true);
    expect(merged).toMatchObject({ state: 'MERGED', isCurrentlySubmittedToQueue: false });
    expect(merged.timeline?.map((entry) => entry.event)).toEqual([
      'submitted',
      'ready',
      'testing',
      'requeued',
      'testing',
      'passed',
      'merging',
      'merged',
    ]);
    const queue = (await a.post('getQueue', queueBody())).json() as { enqueuedPullRequests: unknown[] };
    expect(queue.enqueuedPullRequests).toEqual([]);
    expectErrorBody(await a.post('cancelPullRequest', queueBody({ pr: { number: 2 } })), 404, 'not_found');
    expectErrorBody(await a.post('getMergeQueueTestingDetails', queueBody({ testRunId: 'nope' })), 404, 'not_found');
    expect((await a.post('deleteQueue', queueBody())).statusCode).toBe(200);
  });
});
