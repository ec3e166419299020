import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, queueBody, REPO, TOKENS, type Api } from './harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const DEFAULTS = {
  state: 'running',
  branch: 'main',
  concurrency: 1,
  testingTimeoutMinutes: 300,
  mode: 'single',
  canOptimisticallyMerge: false,
  pendingFailureDepth: 0,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  batchingMaxSize: 4, // batchingMinSize until set: batches grow only where a team sets it (planner/batches.ts)
  createPrsForTestingBranches: false,
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  bisectionConcurrency: 1,
  requiredStatuses: [],
  directMergeMode: 'off',
  optimizationMode: 'off',
  mergeMethod: 'merge_commit',
  adaptiveWindow: false,
  adaptiveWindowFloor: 1,
  speculationRunsPercent: 10,
  parallelBases: 'transitive',
  extensionEnabled: false,
  enqueueingLabel: 'greenline-merge',
  labelCommandsEnabled: false,
  stateLabelsEnabled: false,
  testingTimeoutMins: 300,
  isBatching: false,
  batchingMaxWaitTimeMins: 5,
};

describe('createQueue', () => {
  test('creates a queue with the documented defaults and answers {}', async () => {
    const created = await api.post('createQueue', queueBody());
    expect(created.statusCode).toBe(200);
    expect(created.json()).toEqual({});
    const got = await api.post('getQueue', queueBody());
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ ...DEFAULTS, enqueuedPullRequests: [] });
  });

  test('accepts mode, concurrency and every updateQueue setting, enums in either case', async () => {
    const response = await api.post(
      'createQueue',
      queueBody({
        mode: 'PARALLEL',
        concurrency: 3,
        state: 'Paused',
        batch: true,
        mergeMethod: 'SQUASH',
        adaptiveWindow: true,
        adaptiveWindowFloor: 2,
        parallelBases: 'DIRECT',
        requiredStatuses: ['ci/build', 'ci/test'],
      }),
    );
    expect(response.statusCode).toBe(200);
    const queue = (await api.post('getQueue', queueBody())).json();
    expect(queue).toMatchObject({
      mode: 'parallel',
      concurrency: 3,
      bisectionConcurrency: 3,
      state: 'paused',
      batch: true,
      mergeMethod: 'squash',
      adaptiveWindow: true,
      adaptiveWindowFloor: 2,
      parallelBases: 'direct',
      requiredStatuses: ['ci/build', 'ci/test'],
      requiredStatusesSource: 'merge_instance',
    });
  });

  test('409 when the queue exists, also when the repository is written in another case', async () => {
    await api.post('createQueue', queueBody());
    expectErrorBody(await api.post('createQueue', queueBody()), 409, 'conflict');
    const shouted = { repo: { host: 'GitHub.com', owner: 'ACME', name: 'Widgets' }, targetBranch: 'main' };
    expectErrorBody(await api.post('createQueue', shouted), 409, 'conflict');
    expect((await api.post('getQueue', shouted)).statusCode).toBe(200);
  });

  test('branches are distinct queues and git branch names are checked', async () => {
    expect((await api.post('createQueue', queueBody({}, 'release/1.x'))).statusCode).toBe(200);
    expect((await api.post('createQueue', queueBody({}, 'Main'))).statusCode).toBe(200);
    for (const bad of ['', 'a..b', 'has space', 'x.lock', '/lead', 'trail/', 'a:b', '.hidden']) {
      const body = expectErrorBody(await api.post('createQueue', queueBody({}, bad)), 400, 'bad_request');
      expect(body.details?.map((detail) => detail.field)).toEqual(['targetBranch']);
    }
  });

  test('owners and names ending in .git are refused: git hosts refuse them, and repositories would nest', async () => {
    for (const [repo, field] of [
      [{ host: 'github.com', owner: 'acme/widgets.git', name: 'x' }, 'repo.owner'],
      [{ host: 'github.com', owner: 'acme', name: 'widgets.GIT' }, 'repo.name'],
    ] as const) {
      const body = expectErrorBody(await api.post('createQueue', { repo, targetBranch: 'main' }), 400, 'bad_request');
      expect(body.details?.map((detail) => detail.field)).toEqual([field]);
    }
  });
});

describe('getQueue', () => {
  test('404 for a missing queue', async () => {
    expectErrorBody(await api.post('getQueue', queueBody()), 404, 'not_found');
  });

  test('lists enqueued pull requests in queue order with their state, and not the ones that left', async () => {
    await api.post('createQueue', queueBody({ state: 'paused' }));
    for (const number of [7, 8, 9])
      expect((await api.post('submitPullRequest', queueBody({ pr: { number } }))).statusCode).toBe(200);
    await api.engine.settle();
    expect((await api.post('cancelPullRequest', queueBody({ pr: { number: 8 } }))).statusCode).toBe(200);
    const queue = (await api.post('getQueue', queueBody())).json() as {
      state: string;
      enqueuedPullRequests: { prNumber: number }[];
    };
    expect(queue.state).toBe('paused');
    expect(queue.enqueuedPullRequests.map((pr) => pr.prNumber)).toEqual([7, 9]);
    expect(queue.enqueuedPullRequests[0]).toEqual({
      id: expect.any(String),
      state: 'PENDING',
      prNumber: 7,
      prTitle: 'PR #7',
      prSha: expect.stringMatching(/^[0-9a-f]{40}$/),
      prBaseBranch: 'main',
      prAuthor: 'sim',
      stateChangedAt: '2026-11-22T12:00:00.000Z',
      priorityValue: 100,
      priorityName: 'medium',
      usedDefaultPriorityName: 'medium',
      skipTheLine: false,
      noBatch: false,
    });
    // deleteQueue refuses while a PR is enqueued, and nothing is lost.
    // 400, as the hosted service answers (its Terraform provider reads it to say "empty the queue first").
    expectErrorBody(await api.post('deleteQueue', queueBody()), 400, 'bad_request');
    expect((await api.post('getQueue', queueBody())).json()).toEqual(queue);
  });
});

describe('updateQueue', () => {
  beforeEach(async () => {
    await api.post('createQueue', queueBody());
  });

  test('changes only the fields sent and answers the queue without enqueuedPullRequests', async () => {
    const response = await api.post('updateQueue', queueBody({ concurrency: 5, canOptimisticallyMerge: true }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      ...DEFAULTS,
      concurrency: 5,
      bisectionConcurrency: 5,
      canOptimisticallyMerge: true,
    });
    const second = await api.post('updateQueue', queueBody({ bisectionConcurrency: 2 }));
    expect(second.json()).toMatchObject({ concurrency: 5, bisectionConcurrency: 2, canOptimisticallyMerge: true });
    const third = await api.post('updateQueue', queueBody({ concurrency: 9 }));
    expect(third.json()).toMatchObject({ concurrency: 9, bisectionConcurrency: 2 });
  });

  test('state in either case; draining an empty queue pauses it; switching_modes cannot be requested', async () => {
    expect((await api.post('updateQueue', queueBody({ state: 'PAUSED' }))).json()).toMatchObject({ state: 'paused' });
    expect((await api.post('updateQueue', queueBody({ state: 'Running' }))).json()).toMatchObject({ state: 'running' });
    expect((await api.post('updateQueue', queueBody({ state: 'draining' }))).json()).toMatchObject({ state: 'paused' });
    const refused = expectErrorBody(await api.post('updateQueue', queueBody({ state: 'switching_modes' })), 400);
    expect(refused.details?.[0]?.field).toBe('state');
  });

  test('required statuses: set (source merge_instance), deduplicated, then deleted', async () => {
    const set = await api.post('updateQueue', queueBody({ requiredStatuses: ['build', 'test', 'build'] }));
    expect(set.json()).toMatchObject({ requiredStatuses: ['build', 'test'], requiredStatusesSource: 'merge_instance' });
    const untouched = await api.post('updateQueue', queueBody({ batch: true }));
    expect(untouched.json()).toMatchObject({ requiredStatuses: ['build', 'test'] });
    const deleted = (await api.post('updateQueue', queueBody({ deleteRequiredStatuses: true }))).json();
    expect(deleted.requiredStatuses).toEqual([]);
    expect(deleted).not.toHaveProperty('requiredStatusesSource');
    const both = await api.post('updateQueue', queueBody({ requiredStatuses: ['x'], deleteRequiredStatuses: true }));
    expect(expectErrorBody(both, 400).details?.[0]?.field).toBe('deleteRequiredStatuses');
  });

  test('integers are 1..4294967295 and each invalid field is named', async () => {
    expect((await api.post('updateQueue', queueBody({ concurrency: 4294967295 }))).statusCode).toBe(200);
    const response = await api.post(
      'updateQueue',
      queueBody({
        concurrency: 0,
        testingTimeoutMinutes: 4294967296,
        batchingMinSize: 1.5,
        pendingFailureDepth: '3',
        mode: 'serial',
      }),
    );
    const body = expectErrorBody(response, 400, 'bad_request');
    expect(body.details?.map((detail) => detail.field).sort()).toEqual(
      ['batchingMinSize', 'concurrency', 'mode', 'pendingFailureDepth', 'testingTimeoutMinutes'].sort(),
    );
    // The failed update changed nothing.
    expect((await api.post('getQueue', queueBody())).json()).toMatchObject({ concurrency: 4294967295, mode: 'single' });
  });

  test('unknown fields are ignored', async () => {
    const response = await api.post(
      'updateQueue',
      queueBody({ concurrency: 2, someNewerOption: true, 'x-source': 'ci' }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).not.toHaveProperty('someNewerOption');
  });

  test('404 for a missing queue', async () => {
    expectErrorBody(await api.post('updateQueue', queueBody({ batch: true }, 'nope')), 404, 'not_found');
  });
});

describe('deleteQueue', () => {
  test('deletes an empty queue; 404 when missing', async () => {
    await api.post('createQueue', queueBody());
    const deleted = await api.post('deleteQueue', queueBody());
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({});
    expectErrorBody(await api.post('getQueue', queueBody()), 404);
    expectErrorBody(await api.post('deleteQueue', queueBody()), 404, 'not_found');
    expect((await api.post('createQueue', queueBody())).statusCode).toBe(200);
  });
});

describe('organizations', () => {
  test("another organization's queue does not exist for a token", async () => {
    await api.post('createQueue', queueBody({ concurrency: 3 }));
    for (const path of ['getQueue', 'updateQueue', 'deleteQueue']) {
      expectErrorBody(await api.post(path, queueBody(), TOKENS.globex), 404, 'not_found');
    }
    // The other organization may have its own queue for the same repository and branch.
    expect((await api.post('createQueue', queueBody({ concurrency: 7 }), TOKENS.globex)).statusCode).toBe(200);
    expect((await api.post('getQueue', queueBody(), TOKENS.globex)).json()).toMatchObject({ concurrency: 7 });
    expect((await api.post('getQueue', queueBody())).json()).toMatchObject({ concurrency: 3 });
    expect(api.engine.listQueues('acme').map((queue) => queue.repo)).toEqual([REPO]);
  });
});
