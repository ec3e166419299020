import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, queueBody, REPO, TOKENS, type Api } from './harness.js';

let api: Api;
beforeAll(async () => {
  api = await makeApi();
});
afterAll(async () => {
  await api.close();
});

/** A string in random letter case, as real clients send enums. */
const anyCase = (value: string) =>
  fc
    .array(fc.boolean(), { minLength: value.length, maxLength: value.length })
    .map((flags) => [...value].map((char, i) => (flags[i] ? char.toUpperCase() : char.toLowerCase())).join(''));
const oneOf = (...values: string[]) => fc.constantFrom(...values).chain(anyCase);
const uint32 = fc.integer({ min: 1, max: 4294967295 });

const patchArbitrary = fc
  .record(
    {
      state: oneOf('running', 'paused', 'draining'),
      mode: oneOf('single', 'parallel'),
      concurrency: uint32,
      bisectionConcurrency: uint32,
      testingTimeoutMinutes: uint32,
      pendingFailureDepth: uint32,
      canOptimisticallyMerge: fc.boolean(),
      batch: fc.boolean(),
      batchingMaxWaitTimeMinutes: uint32,
      batchingMinSize: uint32,
      batchingMaxSize: uint32,
      commentsEnabled: fc.boolean(),
      commandsEnabled: fc.boolean(),
      createPrsForTestingBranches: fc.boolean(),
      directMergeMode: oneOf('off', 'always'),
      optimizationMode: oneOf('off', 'bisection_skip_redundant_tests'),
      mergeMethod: oneOf('merge_commit', 'squash', 'rebase'),
      statusCheckEnabled: fc.boolean(),
      requiredStatuses: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 5 }),
      deleteRequiredStatuses: fc.boolean(),
    },
    { requiredKeys: [] },
  )
  .filter((patch) => !(patch.requiredStatuses !== undefined && patch.deleteRequiredStatuses === true));

type Model = Record<string, unknown> & { requiredStatuses: string[] };

/** The batchingMaxSize set by the patches so far in the current sequence (undefined: never set). */
let maxSizeSet: number | undefined;

/** What getQueue must show after a patch: an independent statement of the updateQueue rules. */
function applyToModel(model: Model, patch: Record<string, unknown>, bisectionSet: boolean): [Model, boolean] {
  const next: Model = { ...model };
  if (patch.batchingMaxSize !== undefined) maxSizeSet = patch.batchingMaxSize as number;
  for (const [field, value] of Object.entries(patch)) {
    if (field === 'requiredStatuses') next.requiredStatuses = [...new Set(value as string[])];
    else if (field === 'deleteRequiredStatuses') {
      if (value === true) next.requiredStatuses = [];
    } else next[field] = typeof value === 'string' ? value.toLowerCase() : value;
  }
  if (next.state === 'draining') next.state = 'paused'; // the queue is empty: nothing to drain (the addendum)
  const setNow = bisectionSet || patch.bisectionConcurrency !== undefined;
  if (!setNow) next.bisectionConcurrency = next.concurrency;
  // The largest batch: as set, or batchingMinSize; never below batchingMinSize, within 32 bits.
  const min = next.batchingMinSize as number;
  next.batchingMaxSize = Math.min(4_294_967_295, Math.max(min, maxSizeSet ?? min));
  // The older spellings (for the hosted service's Terraform provider) say the same as the settings they name.
  next.testingTimeoutMins = next.testingTimeoutMinutes;
  next.isBatching = next.batch;
  next.batchingMaxWaitTimeMins = next.batchingMaxWaitTimeMinutes;
  return [next, setNow];
}

describe('properties', () => {
  test('random valid updateQueue patches round-trip through getQueue', async () => {
    let branchCounter = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(patchArbitrary, { minLength: 1, maxLength: 6 }), async (patches) => {
        const branch = `prop-${branchCounter++}`;
        expect((await api.post('createQueue', queueBody({}, branch))).statusCode).toBe(200);
        let model: Model = (await api.post('getQueue', queueBody({}, branch))).json();
        delete model.enqueuedPullRequests;
        let bisectionSet = false;
        maxSizeSet = undefined;
        for (const patch of patches) {
          [model, bisectionSet] = applyToModel(model, patch, bisectionSet);
          const response = await api.post('updateQueue', queueBody(patch, branch));
          expect(response.statusCode).toBe(200);
          const { requiredStatusesSource, ...answered } = response.json();
          expect(answered).toEqual(model);
          const got = (await api.post('getQueue', queueBody({}, branch))).json();
          expect(got).toEqual({ ...response.json(), enqueuedPullRequests: [] });
          // A list set through the API (even an empty one) is in force, with its source, until deleted.
          expect(requiredStatusesSource).toBe(listSetThrough(patches, patch) ? 'merge_instance' : undefined);
        }
      }),
      { numRuns: 60 },
    );
  });

  const SHA = 'ab'.repeat(20);
  const FLAKY = { repo: REPO, org_url_slug: 'acme', page_query: { page_size: 10, page_token: '' } };
  const QUEUE = ['repo', 'repo.host', 'repo.owner', 'repo.name', 'targetBranch'];
  const PR = [...QUEUE, 'pr', 'pr.number'];
  const FLAKY_FIELDS = [
    'repo',
    'repo.host',
    'repo.owner',
    'repo.name',
    'org_url_slug',
    'page_query',
    'page_query.page_size',
  ];
  /**
   * Per endpoint: a valid body, and the fields any wrong value of which makes the body invalid. A field listed in
   * NULL_IS_DEFAULT is a setting for which `null` means "the default" (api/schemas.ts), so null is not wrong there.
   */
  const endpoints: [path: string, body: Record<string, unknown>, required: string[]][] = [
    ['submitPullRequest', queueBody({ pr: { number: 1 } }), PR],
    ['cancelPullRequest', queueBody({ pr: { number: 1 } }), PR],
    ['restartTestsOnPullRequest', queueBody({ pr: { number: 1 } }), PR],
    ['getSubmittedPullRequest', queueBody({ pr: { number: 1 } }), PR],
    ['setImpactedTargets', queueBody({ pr: { number: 1, sha: SHA }, impactedTargets: ['x'] }), [...PR, 'pr.sha']],
    ['getMergeQueueTestingDetails', queueBody({ testRunId: 'r' }), [...QUEUE, 'testRunId']],
    ['createQueue', queueBody({ concurrency: 2 }), [...QUEUE, 'concurrency']],
    ['deleteQueue', queueBody(), QUEUE],
    ['getQueue', queueBody(), QUEUE],
    ['updateQueue', queueBody({ concurrency: 2 }), [...QUEUE, 'concurrency']],
    [
      'flaky-tests/list-failing-tests',
      { ...FLAKY, start_time: '2026-11-20T00:00:00Z', end_time: '2026-11-21T00:00:00Z' },
      [...FLAKY_FIELDS, 'start_time', 'end_time'],
    ],
    ['flaky-tests/list-unhealthy-tests', { ...FLAKY, status: 'FLAKY' }, [...FLAKY_FIELDS, 'status']],
    ['flaky-tests/list-quarantined-tests', FLAKY, FLAKY_FIELDS],
  ];
  const paths = endpoints.map(([path]) => path);
  /** Values no required field accepts. */
  const wrongValue = fc.constantFrom(null, -1, 1.5, '', 'not valid at all!', [], {}, 4294967296, true);
  const NULL_IS_DEFAULT = new Set(['createQueue concurrency', 'updateQueue concurrency']);

  /** A valid body of a random endpoint with one required field set to a wrong value. */
  const mutated = fc
    .tuple(fc.constantFrom(...endpoints), fc.nat(), wrongValue)
    .filter(
      ([[path, , required], pick, value]) =>
        !(value === null && NULL_IS_DEFAULT.has(`${path} ${required[pick % required.length]}`)),
    )
    .map(([[path, valid, required], pick, value]) => {
      const body = structuredClone(valid);
      const [head, tail] = required[pick % required.length]!.split('.') as [string, string | undefined];
      if (tail === undefined) body[head] = value;
      else (body[head] as Record<string, unknown>)[tail] = value;
      return [path, body] as const;
    });

  test('random invalid bodies always get a 4xx with the error body, and change nothing', async () => {
    await api.post('createQueue', queueBody({ concurrency: 3 }));
    const before = (await api.post('getQueue', queueBody())).json();
    const invalid = fc.oneof(fc.tuple(fc.constantFrom(...paths), fc.jsonValue()), mutated);
    await fc.assert(
      fc.asyncProperty(invalid, async ([path, body]) => {
        const response = await api.post(path, body);
        expect(response.statusCode).toBeGreaterThanOrEqual(400);
        expect(response.statusCode).toBeLessThan(500);
        expectErrorBody(response, response.statusCode);
      }),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.string(), async (path, text) => {
        const response = await api.app.inject({
          method: 'POST',
          url: `/v1/${path}`,
          headers: { 'x-api-token': TOKENS.acme, 'content-type': 'application/json' },
          payload: `{${text}`,
        });
        expectErrorBody(response, 400, 'bad_request');
      }),
      { numRuns: 100 },
    );
    expect((await api.post('getQueue', queueBody())).json()).toEqual(before);
  });
});

function listSetThrough(patches: Record<string, unknown>[], upTo: Record<string, unknown>): boolean {
  let set = false;
  for (const patch of patches) {
    if (patch.requiredStatuses !== undefined) set = true;
    if (patch.deleteRequiredStatuses === true) set = false;
    if (patch === upTo) break;
  }
  return set;
}
