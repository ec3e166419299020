/**
 * Parallel mode over HTTP, end to end: a monorepo with a frontend, a backend and docs. CI uploads impacted targets
 * (as the widely used CI action does: the PR number as a string), the queue tests each PR on exactly the PRs it
 * depends on, and independent lanes merge without waiting for each other.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectErrorBody, expectOk, makeApi, queueBody, TOKENS, type Api } from './harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const ok = (path: string, body: unknown) => expectOk(api, path, body);

/** The PR's head SHA as the (simulated) git host reports it, once the queue has looked at the PR. */
async function headOf(number: number): Promise<string> {
  return (await ok('getSubmittedPullRequest', queueBody({ pr: { number } }))).prSha as string;
}

async function runOf(number: number) {
  const pr = await ok('getSubmittedPullRequest', queueBody({ pr: { number } }));
  return ok('getMergeQueueTestingDetails', queueBody({ testRunId: pr.testRunId }));
}

const pass = async (number: number) => {
  const run = await runOf(number);
  await ok('setCommitStatus', { repo: queueBody().repo, sha: run.testBranchSha, context: 'ci', state: 'success' });
  await api.engine.settle();
};

const TARGETS: Record<number, string[] | string> = {
  1: ['//frontend:app', '//frontend:lib'],
  2: ['//backend:api'],
  3: [],
  4: ['//frontend:lib', '//backend:api'],
  5: 'IMPACTS_ALL',
};

describe('setImpactedTargets and parallel lanes over HTTP', () => {
  test('frontend, backend and docs: each PR tested on what it depends on, lanes merging on their own', async () => {
    await ok('createQueue', queueBody({ mode: 'parallel', concurrency: 5, requiredStatuses: ['ci'] }));
    for (const number of [1, 2, 3, 4, 5]) {
      await ok('submitPullRequest', queueBody({ pr: { number } }));
      await api.engine.settle();
      expect(await ok('getSubmittedPullRequest', queueBody({ pr: { number } }))).toMatchObject({
        state: 'NOT_READY',
        readiness: { requiresImpactedTargets: true, hasImpactedTargets: false, gitHubMergeability: 'mergeable' },
      });
      const body = queueBody({
        pr: { number: String(number), sha: await headOf(number) },
        impactedTargets: TARGETS[number],
      });
      expect(await ok('setImpactedTargets', body)).toEqual({});
      await api.engine.settle();
    }
    for (const number of [1, 2, 3, 4, 5]) {
      expect((await ok('getSubmittedPullRequest', queueBody({ pr: { number } }))).readiness.hasImpactedTargets).toBe(
        true,
      );
    }

    const frontend = await runOf(1);
    expect(frontend).toMatchObject({
      status: 'in_progress',
      impactedTargets: ['//frontend:app', '//frontend:lib'],
      impactedTargetsForTestedPrs: ['//frontend:app', '//frontend:lib'],
      dependentPrs: [],
    });
    expect(await runOf(3)).toMatchObject({ impactedTargets: [], impactedTargetsForTestedPrs: [], dependentPrs: [] });
    // The shared change depends on both lanes; its run holds them.
    expect(await runOf(4)).toMatchObject({
      impactedTargets: ['//backend:api', '//frontend:app', '//frontend:lib'],
      impactedTargetsForTestedPrs: ['//backend:api', '//frontend:lib'],
      dependentPrs: [1, 2],
      basePullRequests: [1, 2],
    });
    // ALL depends on everything ahead with targets (not the docs change).
    expect(await runOf(5)).toMatchObject({
      impactedTargets: ['ALL'],
      impactedTargetsForTestedPrs: ['ALL'],
      dependentPrs: [1, 2, 4],
    });

    // The docs PR and the backend PR pass first and merge at once; the frontend is still testing.
    await pass(3);
    await pass(2);
    const state = async (number: number) => (await ok('getSubmittedPullRequest', queueBody({ pr: { number } }))).state;
    expect([await state(1), await state(2), await state(3)]).toEqual(['TESTING', 'MERGED', 'MERGED']);
    await pass(5);
    await pass(4);
    expect([await state(4), await state(5)]).toEqual(['TESTS_PASSED', 'TESTS_PASSED']);
    await pass(1);
    expect([await state(1), await state(4), await state(5)]).toEqual(['MERGED', 'MERGED', 'MERGED']);
  });

  test('bad bodies are 400, unknown queues 404, another organization sees nothing', async () => {
    await ok('createQueue', queueBody({ mode: 'parallel' }));
    const sha = 'a'.repeat(40);
    expectErrorBody(
      await api.post('setImpactedTargets', queueBody({ pr: { number: 1, sha }, impactedTargets: 'SOME' })),
      400,
    );
    expectErrorBody(
      await api.post('setImpactedTargets', queueBody({ pr: { number: 1, sha }, impactedTargets: [''] })),
      400,
    );
    // Without pr.sha the targets are for the head the queue knows: a PR never submitted has none.
    expectErrorBody(
      await api.post('setImpactedTargets', queueBody({ pr: { number: 1 }, impactedTargets: [] })),
      404,
      'not_found',
    );
    expectErrorBody(
      await api.post('setImpactedTargets', queueBody({ pr: { number: 0, sha }, impactedTargets: [] })),
      400,
    );
    expectErrorBody(
      await api.post('setImpactedTargets', queueBody({ pr: { number: 1, sha }, impactedTargets: [] }, 'other')),
      404,
      'not_found',
    );
    expectErrorBody(
      await api.post('setImpactedTargets', queueBody({ pr: { number: 1, sha }, impactedTargets: [] }), TOKENS.globex),
      404,
      'not_found',
    );
    expect(await ok('setImpactedTargets', queueBody({ pr: { number: 1, sha }, impactedTargets: 'all' }))).toEqual({});
  });

  test('a list of 100,000 targets is taken, and the last upload for a SHA wins', async () => {
    await ok('createQueue', queueBody({ mode: 'parallel', concurrency: 2 }));
    await ok('submitPullRequest', queueBody({ pr: { number: 1 } }));
    await ok('submitPullRequest', queueBody({ pr: { number: 2 } }));
    await api.engine.settle();
    const many = Array.from({ length: 100_000 }, (_, i) => `//services/s${i % 977}/module${i}:target`);
    const body = queueBody({ pr: { number: 1, sha: await headOf(1) }, impactedTargets: many });
    expect(JSON.stringify(body).length).toBeGreaterThan(3_000_000);
    expect(await ok('setImpactedTargets', body)).toEqual({});
    await ok(
      'setImpactedTargets',
      queueBody({ pr: { number: 2, sha: await headOf(2) }, impactedTargets: [many[99_999]] }),
    );
    await api.engine.settle();
    expect((await runOf(2)).dependentPrs).toEqual([1]);
    await ok(
      'setImpactedTargets',
      queueBody({ pr: { number: 2, sha: await headOf(2) }, impactedTargets: ['//elsewhere'] }),
    );
    await api.engine.settle();
    expect((await runOf(2)).dependentPrs).toEqual([]);
    expect((await runOf(1)).impactedTargets).toHaveLength(100_000);
  });
});
