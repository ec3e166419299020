/**
 * estimatedMergeAt and estimatedMergeAtP90 (fields beyond the seed) on getSubmittedPullRequest and listPullRequests:
 * present on a ready PR once the queue has seen a CI run, absent before and once the PR left the queue.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { makeApi, queueBody, REPO, type Api } from './harness.js';

let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

const MINUTE = 60_000;

async function pr(a: Api, number: number): Promise<Record<string, unknown>> {
  const response = await a.post('getSubmittedPullRequest', queueBody({ pr: { number } }));
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function pass(a: Api, number: number): Promise<void> {
  const { testRunId } = (await pr(a, number)) as { testRunId: string };
  const details = (await a.post('getMergeQueueTestingDetails', queueBody({ testRunId }))).json() as {
    testBranchSha: string;
  };
  expect(
    (
      await a.post('setCommitStatus', {
        repo: REPO,
        sha: details.testBranchSha,
        context: 'ci',
        state: 'success',
        url: 'https://ci.example/1',
      })
    ).statusCode,
  ).toBe(200);
  await a.engine.settle();
}

describe('merge estimates over the API', () => {
  test('a ready PR has a median and a P90 once the queue has seen CI; a merged one has none', async () => {
    const a = (api = await makeApi());
    expect((await a.post('createQueue', queueBody({ concurrency: 1, requiredStatuses: ['ci'] }))).statusCode).toBe(200);
    for (const number of [1, 2, 3])
      expect((await a.post('submitPullRequest', queueBody({ pr: { number } }))).statusCode).toBe(200);
    await a.engine.settle();
    // No run has finished yet: nothing to estimate from.
    expect(await pr(a, 2)).not.toHaveProperty('estimatedMergeAt');
    a.clock.advanceBy(20 * MINUTE);
    await pass(a, 1);
    const two = await pr(a, 2);
    const three = await pr(a, 3);
    expect(typeof two.estimatedMergeAt).toBe('string');
    const now = a.clock.now();
    expect(Date.parse(two.estimatedMergeAt as string)).toBeGreaterThan(now);
    expect(Date.parse(two.estimatedMergeAtP90 as string)).toBeGreaterThanOrEqual(
      Date.parse(two.estimatedMergeAt as string),
    );
    expect(Date.parse(three.estimatedMergeAt as string)).toBeGreaterThan(Date.parse(two.estimatedMergeAt as string));
    expect(await pr(a, 1)).not.toHaveProperty('estimatedMergeAt');
    const listed = (await a.post('listPullRequests', queueBody({}))).json() as {
      pullRequests: Record<string, unknown>[];
    };
    const listedTwo = listed.pullRequests.find((row) => row.prNumber === 2)!;
    expect(listedTwo.estimatedMergeAt).toBe(two.estimatedMergeAt);
  });
});
