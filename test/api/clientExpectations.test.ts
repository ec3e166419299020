/**
 * What the hosted service's clients expect, call by call (issue 34's table): its Terraform provider (state after
 * apply, required statuses, older spellings, settings back to their defaults) and the seed's own edges
 * (setImpactedTargets without pr.sha).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectErrorBody, expectOk, makeApi, queueBody, type Api } from './harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const ok = (path: string, body: unknown) => expectOk(api, path, body);

describe('Terraform: a queue reads back what was applied', () => {
  test('draining an empty queue pauses it at once: the addendum (then the queue pauses) wins over the Terraform provider', async () => {
    await ok('createQueue', queueBody());
    expect(await ok('updateQueue', queueBody({ state: 'draining' }))).toMatchObject({ state: 'paused' });
    expect(await ok('getQueue', queueBody())).toMatchObject({ state: 'paused', enqueuedPullRequests: [] });
    expect(await ok('updateQueue', queueBody({ state: 'running' }))).toMatchObject({ state: 'running' });
  });

  test('draining a queue with PRs waiting pauses it once its runs end, holding them (the seed)', async () => {
    await ok('createQueue', queueBody());
    await ok('submitPullRequest', queueBody({ pr: { number: 1 } }));
    await ok('submitPullRequest', queueBody({ pr: { number: 2 } }));
    await api.engine.settle();
    await ok('updateQueue', queueBody({ state: 'draining' }));
    const run = await ok(
      'getMergeQueueTestingDetails',
      queueBody({ testRunId: (await ok('getSubmittedPullRequest', queueBody({ pr: { number: 1 } }))).testRunId }),
    );
    await ok('setCommitStatus', { repo: queueBody().repo, sha: run.testBranchSha, context: 'ci', state: 'success' });
    await api.engine.settle();
    const queue = await ok('getQueue', queueBody());
    expect(queue.state).toBe('paused');
    expect(
      queue.enqueuedPullRequests.map((pr: { prNumber: number; state: string }) => [pr.prNumber, pr.state]),
    ).toEqual([[2, 'PENDING']]);
  });

  test('required statuses: [] with source merge_instance is "require nothing"; after delete, [] without a source is "no override"', async () => {
    await ok('createQueue', queueBody());
    expect(await ok('updateQueue', queueBody({ requiredStatuses: [] }))).toMatchObject({
      requiredStatuses: [],
      requiredStatusesSource: 'merge_instance',
    });
    const deleted = await ok('updateQueue', queueBody({ deleteRequiredStatuses: true }));
    // The seed: requiredStatuses is always an array (README, where the seed and a client disagree).
    expect(deleted.requiredStatuses).toEqual([]);
    expect(deleted).not.toHaveProperty('requiredStatusesSource');
  });

  test("an older client's testingTimeoutMins, isBatching and batchingMaxWaitTimeMins are the settings they name", async () => {
    await ok('createQueue', queueBody({ testingTimeoutMins: 45 }));
    expect(await ok('getQueue', queueBody())).toMatchObject({ testingTimeoutMinutes: 45 });
    const updated = await ok(
      'updateQueue',
      queueBody({ testingTimeoutMins: 50, isBatching: true, batchingMaxWaitTimeMins: 7 }),
    );
    expect(updated).toMatchObject({ testingTimeoutMinutes: 50, batch: true, batchingMaxWaitTimeMinutes: 7 });
    // The answer carries both spellings: the provider's getQueue reader takes the older ones.
    expect(updated).toMatchObject({ testingTimeoutMins: 50, isBatching: true, batchingMaxWaitTimeMins: 7 });
    // The same value under both names is fine; two values are a contradiction.
    expect(await ok('updateQueue', queueBody({ testingTimeoutMins: 60, testingTimeoutMinutes: 60 }))).toMatchObject({
      testingTimeoutMinutes: 60,
    });
    const both = expectErrorBody(
      await api.post('updateQueue', queueBody({ testingTimeoutMins: 60, testingTimeoutMinutes: 61 })),
      400,
    );
    expect(both.details?.[0]).toMatchObject({ field: 'testingTimeoutMins' });
    expectErrorBody(await api.post('updateQueue', queueBody({ testingTimeoutMins: 0 })), 400);
    expect((await ok('getQueue', queueBody())).testingTimeoutMinutes).toBe(60);
  });

  test('a setting of the hosted service that Greenline lacks is refused, naming it, and nothing changes', async () => {
    await ok('createQueue', queueBody());
    const refused = expectErrorBody(
      await api.post('updateQueue', queueBody({ concurrency: 4, notReadyTimeoutHours: 24 })),
      400,
    );
    expect(refused.details).toEqual([
      { field: 'notReadyTimeoutHours', message: expect.stringMatching(/not supported/) },
    ]);
    expect((await ok('getQueue', queueBody())).concurrency).toBe(1);
    // Fields nobody is known to send stay ignored (the addendum).
    expect((await api.post('updateQueue', queueBody({ someNewerOption: 1 }))).statusCode).toBe(200);
  });
});

describe('settings back to their defaults with null', () => {
  test('pendingFailureDepth null is 0 (off) again; bisectionConcurrency null follows concurrency again', async () => {
    await ok('createQueue', queueBody({ pendingFailureDepth: 3, concurrency: 4, bisectionConcurrency: 2 }));
    const reset = await ok('updateQueue', queueBody({ pendingFailureDepth: null, bisectionConcurrency: null }));
    expect(reset).toMatchObject({ pendingFailureDepth: 0, bisectionConcurrency: 4 });
    expect(await ok('updateQueue', queueBody({ concurrency: 6 }))).toMatchObject({ bisectionConcurrency: 6 });
    // 0 stays refused: the seed's range starts at 1.
    expectErrorBody(await api.post('updateQueue', queueBody({ pendingFailureDepth: 0 })), 400);
    // The settings history keeps what was sent.
    const history = await ok('getQueueSettingsHistory', queueBody());
    expect(JSON.stringify(history)).toContain('"pendingFailureDepth":null');
  });

  test('every nullable setting reads its documented default after null', async () => {
    await ok(
      'createQueue',
      queueBody({
        testingTimeoutMinutes: 9,
        batch: true,
        mergeMethod: 'squash',
        enqueueingLabel: 'x',
        speculationRunsPercent: 50,
      }),
    );
    const reset = await ok(
      'updateQueue',
      queueBody({
        testingTimeoutMinutes: null,
        batch: null,
        mergeMethod: null,
        enqueueingLabel: null,
        speculationRunsPercent: null,
      }),
    );
    expect(reset).toMatchObject({
      testingTimeoutMinutes: 300,
      batch: false,
      mergeMethod: 'merge_commit',
      enqueueingLabel: 'greenline-merge',
      speculationRunsPercent: 10,
    });
    expectErrorBody(await api.post('updateQueue', queueBody({ mode: null })), 400);
  });
});

describe('setImpactedTargets without pr.sha (the seed does not require it)', () => {
  test("applies to the PR's head as the queue knows it", async () => {
    await ok('createQueue', queueBody({ mode: 'parallel' }));
    await ok('submitPullRequest', queueBody({ pr: { number: 7 } }));
    await api.engine.settle();
    expect((await ok('getSubmittedPullRequest', queueBody({ pr: { number: 7 } }))).readiness.hasImpactedTargets).toBe(
      false,
    );
    expect(await ok('setImpactedTargets', queueBody({ pr: { number: 7 }, impactedTargets: ['//a'] }))).toEqual({});
    await api.engine.settle();
    const pr = await ok('getSubmittedPullRequest', queueBody({ pr: { number: 7 } }));
    expect(pr.readiness.hasImpactedTargets).toBe(true);
    expect(pr.state).toBe('TESTING');
  });

  test('a PR never submitted: 404 saying so', async () => {
    await ok('createQueue', queueBody({ mode: 'parallel' }));
    const refused = expectErrorBody(
      await api.post('setImpactedTargets', queueBody({ pr: { number: 8 }, impactedTargets: 'ALL' })),
      404,
    );
    expect(refused.message).toMatch(/#8/);
  });
});
