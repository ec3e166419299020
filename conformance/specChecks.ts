/**
 * The spec's checks, for any server of this API, steerable or not: authentication, the queue's schema, the ranges
 * of updateQueue, the errors of each endpoint, the empty-queue rule of deleteQueue (with PRs in every state a
 * client can hold them in) and paging. Each check uses a queue of its own.
 */
import type { ApiClient } from './client.js';
import { ConformanceFailure, QueueApi, REPO } from './queueApi.js';
import type { Check } from './run.js';

/** Spec 2.2: every queue field and its type (enumerations as listed). */
const QUEUE_FIELDS: Record<string, string | readonly string[]> = {
  state: ['running', 'paused', 'draining', 'switching_modes'],
  branch: 'string',
  concurrency: 'number',
  testingTimeoutMinutes: 'number',
  mode: ['single', 'parallel'],
  canOptimisticallyMerge: 'boolean',
  pendingFailureDepth: 'number',
  batch: 'boolean',
  batchingMaxWaitTimeMinutes: 'number',
  batchingMinSize: 'number',
  createPrsForTestingBranches: 'boolean',
  commentsEnabled: 'boolean',
  commandsEnabled: 'boolean',
  statusCheckEnabled: 'boolean',
  bisectionConcurrency: 'number',
  requiredStatuses: 'array',
  directMergeMode: ['off', 'always'],
  optimizationMode: 'string',
  mergeMethod: ['merge_commit', 'squash', 'rebase'],
};

function expectStatus(what: string, status: number, allowed: readonly number[]): void {
  if (!allowed.includes(status))
    throw new ConformanceFailure(`${what}: answered ${status}, expected ${allowed.join(' or ')}`);
}

function checkQueueBody(body: Record<string, unknown>, withEnqueued: boolean): void {
  for (const [field, type] of Object.entries(QUEUE_FIELDS)) {
    const value = body[field];
    const ok = Array.isArray(type)
      ? type.includes(value as string)
      : type === 'array'
        ? Array.isArray(value)
        : typeof value === type;
    if (!ok)
      throw new ConformanceFailure(
        `queue field ${field} is ${JSON.stringify(value)}, expected ${Array.isArray(type) ? type.join('|') : type}`,
      );
  }
  if (withEnqueued && !Array.isArray(body.enqueuedPullRequests))
    throw new ConformanceFailure('getQueue has no enqueuedPullRequests array');
}

type SpecCheck = (api: QueueApi, client: ApiClient) => Promise<void>;

export const SPEC_CHECKS: Record<string, SpecCheck> = {
  'every call needs x-api-token (401 without it or with a wrong one)': async (api, client) => {
    expectStatus(
      'getQueue without a token',
      (await client.post('getQueue', { repo: REPO, targetBranch: api.branch }, null)).status,
      [401],
    );
    expectStatus(
      'getQueue with a wrong token',
      (await client.post('getQueue', { repo: REPO, targetBranch: api.branch }, 'not-a-token-0000000000')).status,
      [401, 403],
    );
    expectStatus(
      'GET getMergeQueueMetrics without a token',
      (await client.get('getMergeQueueMetrics', null)).status,
      [401],
    );
  },
  'getQueue: every field of spec 2.2, typed; updateQueue answers the same fields': async (api) => {
    expectStatus('getQueue before createQueue', (await api.call('getQueue')).status, [404]);
    await api.create();
    expectStatus('createQueue twice', (await api.call('createQueue')).status, [409]);
    checkQueueBody((await api.queue()) as unknown as Record<string, unknown>, true);
    checkQueueBody((await api.update({ commentsEnabled: false })) as unknown as Record<string, unknown>, false);
  },
  'updateQueue: integers 1 to 4294967295, the enumerations, and only the fields sent change': async (api) => {
    await api.create();
    for (const field of [
      'concurrency',
      'bisectionConcurrency',
      'testingTimeoutMinutes',
      'pendingFailureDepth',
      'batchingMaxWaitTimeMinutes',
      'batchingMinSize',
    ]) {
      for (const bad of [0, 4294967296, 1.5, '2'])
        expectStatus(
          `updateQueue ${field}: ${JSON.stringify(bad)}`,
          (await api.call('updateQueue', { [field]: bad })).status,
          [400],
        );
      const at = (await api.update({ [field]: 4294967295 })) as unknown as Record<string, unknown>;
      if (at[field] !== 4294967295)
        throw new ConformanceFailure(`updateQueue ${field}: 4294967295 answered ${JSON.stringify(at[field])}`);
    }
    for (const [field, bad] of [
      ['state', 'switching_modes'],
      ['mode', 'serial'],
      ['directMergeMode', 'never'],
      ['mergeMethod', 'fast_forward'],
    ] as const) {
      expectStatus(`updateQueue ${field}: ${bad}`, (await api.call('updateQueue', { [field]: bad })).status, [400]);
    }
    const before = await api.queue();
    const after = (await api.update({ mergeMethod: 'squash' })) as unknown as Record<string, unknown>;
    if (after.mergeMethod !== 'squash' || after.mode !== before.mode || after.state !== before.state)
      throw new ConformanceFailure(`updateQueue mergeMethod changed more than it: ${JSON.stringify(after)}`);
  },
  'pull request calls on what is not there: 404': async (api) => {
    expectStatus(
      'submitPullRequest to no queue',
      (await api.call('submitPullRequest', { pr: { number: 1 } })).status,
      [404],
    );
    await api.create();
    for (const path of ['getSubmittedPullRequest', 'cancelPullRequest', 'restartTestsOnPullRequest']) {
      expectStatus(
        `${path} for a PR never submitted`,
        (await api.call(path, { pr: { number: 424242 } })).status,
        [404],
      );
    }
    expectStatus(
      'getMergeQueueTestingDetails for no run',
      (await api.call('getMergeQueueTestingDetails', { testRunId: 'no-such-run' })).status,
      [404],
    );
    expectStatus(
      'submitPullRequest with pr.number 0',
      (await api.call('submitPullRequest', { pr: { number: 0 } })).status,
      [400],
    );
    expectStatus('submitPullRequest without pr', (await api.call('submitPullRequest')).status, [400]);
  },
  'deleteQueue only when empty: refused while any PR is enqueued, in any state, then allowed': async (api) => {
    // Paused, parallel: a PR without impacted targets stays NOT_READY; with them, PENDING.
    await api.create({ state: 'paused', mode: 'parallel' });
    await api.submit(1);
    expectStatus('deleteQueue with a PR enqueued', (await api.call('deleteQueue')).status, [400, 409]);
    const queue = await api.queue();
    if ((queue.enqueuedPullRequests ?? []).length !== 1)
      throw new ConformanceFailure(
        `after a refused deleteQueue the queue holds ${JSON.stringify(queue.enqueuedPullRequests)}`,
      );
    await api.submit(2);
    await api.targets(2);
    expectStatus('deleteQueue with PRs enqueued', (await api.call('deleteQueue')).status, [400, 409]);
    await api.ok('cancelPullRequest', { pr: { number: 1 } });
    await api.ok('cancelPullRequest', { pr: { number: 2 } });
    expectStatus('deleteQueue once empty', (await api.call('deleteQueue')).status, [200]);
    expectStatus('getQueue after deleteQueue', (await api.call('getQueue')).status, [404]);
  },
  'draining refuses new PRs, merges those it has, then pauses': async (api) => {
    // A run in flight keeps it draining (with nothing in flight it pauses at once).
    await api.create({ state: 'running' });
    await api.submit(1);
    await api.waitPr(1, 'TESTING');
    await api.update({ state: 'draining' });
    const refused = await api.call('submitPullRequest', { pr: { number: 2 } });
    expectStatus('submitPullRequest to a draining queue', refused.status, [409]);
    if ((await api.pr(1)).isCurrentlySubmittedToQueue !== true)
      throw new ConformanceFailure('a draining queue dropped the PR it had');
    // Steering CI: its run passes, it merges, and the queue pauses.
    await api.status((await api.pr(1)).testRunId ?? '', 'ci', 'success');
    await api.waitPr(1, 'MERGED');
    await api.waitQueue('paused');
  },
  'listPullRequests pages: each PR once, take at a time': async (api) => {
    await api.create({ state: 'paused' });
    for (const n of [1, 2, 3, 4, 5]) await api.submit(n);
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const body = await api.ok<{ pullRequests: { prNumber: number }[]; nextCursor?: string }>('listPullRequests', {
        take: 2,
        ...(cursor === undefined ? {} : { cursor }),
      });
      if (body.pullRequests.length > 2)
        throw new ConformanceFailure(`a page of take 2 held ${body.pullRequests.length}`);
      seen.push(...body.pullRequests.map((pr) => pr.prNumber));
      cursor = body.nextCursor;
      if (cursor === undefined) break;
    }
    if (seen.length !== 5 || new Set(seen).size !== 5)
      throw new ConformanceFailure(`paging listed ${JSON.stringify(seen)}, expected each of 5 PRs once`);
    expectStatus('listPullRequests take 0', (await api.call('listPullRequests', { take: 0 })).status, [400]);
    expectStatus(
      'listPullRequests with a forged cursor',
      (await api.call('listPullRequests', { cursor: 'forged' })).status,
      [400],
    );
  },
};

export async function runSpecChecks(
  client: ApiClient,
  options: { prefix: string; waitMs: number; failFast?: boolean },
): Promise<Check[]> {
  const checks: Check[] = [];
  for (const [index, [name, check]] of Object.entries(SPEC_CHECKS).entries()) {
    const api = new QueueApi(client, `${options.prefix}-spec-${index}`, options.waitMs);
    const mark = client.mark();
    const started = Date.now();
    try {
      await check(api, client);
      checks.push({ name, ms: Date.now() - started });
    } catch (error) {
      checks.push({
        name,
        ms: Date.now() - started,
        failure: {
          name,
          message: error instanceof Error ? error.message : String(error),
          curl: client.curl(client.since(mark)),
        },
      });
    }
    const left = await api.call<{ enqueuedPullRequests?: { prNumber: number }[] }>('getQueue');
    for (const pr of left.body.enqueuedPullRequests ?? [])
      await api.call('cancelPullRequest', { pr: { number: pr.prNumber } });
    await api.call('deleteQueue');
    if (options.failFast === true && checks.at(-1)?.failure !== undefined) break;
  }
  return checks;
}
