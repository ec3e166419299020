/**
 * A pull request named by its head branch (`pr.branch`) on every endpoint that takes `pr` (api/prByBranch.ts): the
 * PR of that branch the queue has, 404 when it has none, 400 when `pr.number` names another PR; submitting takes
 * the number. The simulated git host says each PR's head branch (`pr-<number>`).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, queueBody, type Api } from './harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
  expect((await api.post('createQueue', queueBody({ state: 'paused' }))).statusCode).toBe(200);
  for (const number of [7, 8])
    expect((await api.post('submitPullRequest', queueBody({ pr: { number } }))).statusCode).toBe(200);
  await api.engine.settle();
});
afterEach(async () => {
  await api.close();
});

describe('pr.branch', () => {
  test('getSubmittedPullRequest finds the PR of a branch; an unknown branch is 404; a number of another branch is 400', async () => {
    const byBranch = await api.post('getSubmittedPullRequest', queueBody({ pr: { branch: 'pr-8' } }));
    expect(byBranch.statusCode).toBe(200);
    expect(byBranch.json()).toMatchObject({ prNumber: 8, isCurrentlySubmittedToQueue: true });
    expect(
      (await api.post('getSubmittedPullRequest', queueBody({ pr: { number: 8, branch: 'pr-8' } }))).json(),
    ).toMatchObject({ prNumber: 8 });
    expectErrorBody(
      await api.post('getSubmittedPullRequest', queueBody({ pr: { branch: 'feature/none' } })),
      404,
      'not_found',
    );
    const mismatch = expectErrorBody(
      await api.post('getSubmittedPullRequest', queueBody({ pr: { number: 7, branch: 'pr-8' } })),
      400,
      'bad_request',
    );
    expect(mismatch.message).toContain('branch pr-7');
    expect((await api.post('getSubmittedPullRequest', queueBody({ pr: { branch: 'pr-8' } }))).json()).toMatchObject({
      prNumber: 8,
    });
    // Neither: the field is named.
    const neither = expectErrorBody(
      await api.post('getSubmittedPullRequest', queueBody({ pr: {} })),
      400,
      'bad_request',
    );
    expect(neither.details?.map((detail) => detail.field)).toEqual(['pr.number']);
    expectErrorBody(
      await api.post('getSubmittedPullRequest', queueBody({ pr: { branch: 'no..dots' } })),
      400,
      'bad_request',
    );
  });

  test('cancel, restart and setImpactedTargets take the branch too; a branch whose PR left is still found for reading, not for cancelling', async () => {
    expect((await api.post('restartTestsOnPullRequest', queueBody({ pr: { branch: 'pr-7' } }))).statusCode).toBe(200);
    expect(
      (await api.post('setImpactedTargets', queueBody({ pr: { branch: 'pr-7' }, impactedTargets: ['a'] }))).statusCode,
    ).toBe(200);
    expect((await api.post('cancelPullRequest', queueBody({ pr: { branch: 'pr-7' } }))).statusCode).toBe(200);
    expect((await api.post('getSubmittedPullRequest', queueBody({ pr: { number: 7 } }))).json()).toMatchObject({
      state: 'CANCELLED',
    });
    expect((await api.post('getSubmittedPullRequest', queueBody({ pr: { branch: 'pr-7' } }))).json()).toMatchObject({
      prNumber: 7,
      isCurrentlySubmittedToQueue: false,
    });
    expectErrorBody(await api.post('cancelPullRequest', queueBody({ pr: { branch: 'pr-7' } })), 404, 'not_found');
    // The other PR was not touched.
    expect((await api.post('getSubmittedPullRequest', queueBody({ pr: { number: 8 } }))).json()).toMatchObject({
      state: 'PENDING',
      isCurrentlySubmittedToQueue: true,
    });
  });

  test('submitPullRequest takes the number; a branch beside it must be that PR’s', async () => {
    const alone = expectErrorBody(
      await api.post('submitPullRequest', queueBody({ pr: { branch: 'pr-9' } })),
      400,
      'bad_request',
    );
    expect(alone.details?.map((detail) => detail.field)).toEqual(['pr.number']);
    expectErrorBody(
      await api.post('submitPullRequest', queueBody({ pr: { number: 7, branch: 'pr-8' } })),
      400,
      'bad_request',
    );
    expect(
      (await api.post('submitPullRequest', queueBody({ pr: { number: 8, branch: 'pr-8' }, priority: 'high' })))
        .statusCode,
    ).toBe(200);
    expect((await api.post('getSubmittedPullRequest', queueBody({ pr: { branch: 'pr-8' } }))).json()).toMatchObject({
      priorityName: 'high',
    });
  });
});
