import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, queueBody, TOKENS, type Api } from './harness.js';

let api: Api;
beforeAll(async () => {
  api = await makeApi();
  await api.post('createQueue', queueBody());
});
afterAll(async () => {
  await api.close();
});

const POST_PATHS = [
  'submitPullRequest',
  'cancelPullRequest',
  'restartTestsOnPullRequest',
  'getSubmittedPullRequest',
  'listPullRequests',
  'setImpactedTargets',
  'getMergeQueueTestingDetails',
  'createQueue',
  'deleteQueue',
  'getQueue',
  'updateQueue',
  'flaky-tests/list-failing-tests',
  'flaky-tests/list-unhealthy-tests',
  'flaky-tests/list-quarantined-tests',
  'flaky-tests/get-test-details',
  'flaky-tests/link-ticket-to-test-case',
];

describe('authentication', () => {
  test.each(POST_PATHS)('POST /v1/%s needs a valid x-api-token', async (path) => {
    expectErrorBody(await api.post(path, queueBody(), null), 401, 'unauthorized');
    expectErrorBody(await api.post(path, queueBody(), 'not-a-token-of-anyone'), 401, 'unauthorized');
    expectErrorBody(await api.post(path, queueBody(), ''), 401, 'unauthorized');
  });

  test('GET /v1/getMergeQueueMetrics needs a valid x-api-token', async () => {
    expectErrorBody(await api.get('getMergeQueueMetrics', null), 401, 'unauthorized');
    expectErrorBody(await api.get('getMergeQueueMetrics', `${TOKENS.acme}x`), 401, 'unauthorized');
  });

  test('authentication comes before the body is read', async () => {
    const response = await api.app.inject({
      method: 'POST',
      url: '/v1/getQueue',
      headers: { 'content-type': 'text/plain' },
      payload: 'x'.repeat(21 * 1024 * 1024),
    });
    expectErrorBody(response, 401, 'unauthorized');
  });

  test('GET /healthz answers 200 without a token', async () => {
    const response = await api.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });
});

describe('bodies', () => {
  const raw = (payload: string | Buffer, contentType?: string) =>
    api.app.inject({
      method: 'POST',
      url: '/v1/getQueue',
      headers: { 'x-api-token': TOKENS.acme, ...(contentType === undefined ? {} : { 'content-type': contentType }) },
      payload,
    });

  test('415 for a body that is not JSON', async () => {
    expectErrorBody(await raw('repo=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
    expectErrorBody(await raw(JSON.stringify(queueBody()), 'text/plain'), 415, 'unsupported_media_type');
    expectErrorBody(await raw('<queue/>', 'application/xml'), 415, 'unsupported_media_type');
  });

  test('JSON with a charset is accepted', async () => {
    expect((await raw(JSON.stringify(queueBody()), 'application/json; charset=utf-8')).statusCode).toBe(200);
  });

  test('malformed or empty JSON is 400', async () => {
    expectErrorBody(await raw('{"repo": ', 'application/json'), 400, 'bad_request');
    expectErrorBody(await raw('', 'application/json'), 400, 'bad_request');
    expectErrorBody(await raw('{"__proto__": {"x": 1}}', 'application/json'), 400, 'bad_request');
  });

  test('deeply nested JSON is a 400, not a crash', async () => {
    const depth = 1_000_000;
    expectErrorBody(await raw('['.repeat(depth) + ']'.repeat(depth), 'application/json'), 400, 'bad_request');
    const nested = `{"repo":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)},"targetBranch":"main"}`;
    expectErrorBody(await raw(nested, 'application/json'), 400, 'bad_request');
  });

  test('a body that is not an object is 400', async () => {
    for (const payload of ['[]', '"text"', '42', 'null', 'true']) {
      expectErrorBody(await raw(payload, 'application/json'), 400, 'bad_request');
    }
  });

  test('no body at all is 400 naming the missing fields', async () => {
    const response = await api.app.inject({
      method: 'POST',
      url: '/v1/getQueue',
      headers: { 'x-api-token': TOKENS.acme },
    });
    const body = expectErrorBody(response, 400, 'bad_request');
    expect(body.details?.map((detail) => detail.field)).toEqual(['repo', 'targetBranch']);
  });

  test('a body over 20 MiB is 413; a 19 MiB body is accepted', async () => {
    const padded = (bytes: number) => {
      const base = JSON.stringify({ ...queueBody(), padding: '' });
      return base.replace('"padding":""', `"padding":"${'x'.repeat(bytes - base.length)}"`);
    };
    const big = padded(20 * 1024 * 1024 + 1);
    expect(big.length).toBe(20 * 1024 * 1024 + 1);
    expectErrorBody(await raw(big, 'application/json'), 413, 'payload_too_large');
    const exact = await raw(padded(20 * 1024 * 1024), 'application/json');
    expect(exact.statusCode).toBe(200);
    const nineteen = await raw(padded(19 * 1024 * 1024), 'application/json');
    expect(nineteen.statusCode).toBe(200);
    expect(nineteen.json()).toMatchObject({ branch: 'main' });
  });
});

describe('routing', () => {
  test('an unknown path is 404 with the error body', async () => {
    expectErrorBody(await api.post('noSuchThing', {}), 404, 'not_found');
    expectErrorBody(await api.app.inject({ method: 'GET', url: '/elsewhere' }), 404, 'not_found');
  });

  test('a known path with the wrong method is 405 with Allow', async () => {
    const response = await api.get('createQueue');
    expectErrorBody(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('POST');
    const metrics = await api.app.inject({
      method: 'POST',
      url: '/v1/getMergeQueueMetrics',
      headers: { 'x-api-token': TOKENS.acme },
    });
    expectErrorBody(metrics, 405, 'method_not_allowed');
    expect(metrics.headers.allow).toBe('GET');
  });
});

const PR = { number: 42 };
const SHA = '0123456789abcdef0123456789abcdef01234567';
const PAGE = { page_size: 10, page_token: '' };
const FLAKY = { repo: queueBody().repo, org_url_slug: 'acme' };

/** Every body is validated before anything else: an invalid one is a 400 naming the field; a valid one never is. */
const VALIDATED: [path: string, valid: object, invalid: object, field: string][] = [
  [
    'submitPullRequest',
    queueBody({ pr: PR, priority: 'HIGH', noBatch: true, skipTheLine: false }),
    queueBody({ pr: { number: 0 } }),
    'pr.number',
  ],
  [
    'submitPullRequest',
    queueBody({ pr: { number: '123' }, priority: 0 }),
    queueBody({ pr: PR, priority: 256 }),
    'priority',
  ],
  ['cancelPullRequest', queueBody({ pr: PR }), queueBody({ pr: { number: '12a' } }), 'pr.number'],
  ['restartTestsOnPullRequest', queueBody({ pr: PR }), queueBody({ pr: {} }), 'pr.number'],
  [
    'getSubmittedPullRequest',
    queueBody({ pr: PR, includeTimeline: true }),
    queueBody({ pr: { number: -1 } }),
    'pr.number',
  ],
  [
    'setImpactedTargets',
    queueBody({ pr: { number: '5', sha: SHA }, impactedTargets: ['//a:b', '//c'] }),
    queueBody({ pr: { number: 5, sha: 'xyz' }, impactedTargets: [] }),
    'pr.sha',
  ],
  [
    'setImpactedTargets',
    queueBody({ pr: { number: 5, sha: SHA }, impactedTargets: 'all' }),
    queueBody({ pr: { number: 5, sha: SHA }, impactedTargets: 'SOME' }),
    'impactedTargets',
  ],
  [
    'setImpactedTargets',
    queueBody({ pr: { number: 5, sha: SHA }, impactedTargets: 'IMPACTS_ALL' }),
    queueBody({ pr: { number: 5, sha: SHA }, impactedTargets: [''] }),
    'impactedTargets.0',
  ],
  ['getMergeQueueTestingDetails', queueBody({ testRunId: 'run-1' }), queueBody({ testRunId: '' }), 'testRunId'],
  [
    'flaky-tests/list-failing-tests',
    { ...FLAKY, page_query: PAGE, start_time: '2026-11-15T00:00:00Z', end_time: '2026-11-22T00:00:00Z' },
    { ...FLAKY, page_query: PAGE, start_time: '2026-11-14T00:00:00Z', end_time: '2026-11-22T00:00:00Z' },
    'end_time',
  ],
  [
    'flaky-tests/list-failing-tests',
    {
      ...FLAKY,
      page_query: { page_size: 100 },
      start_time: '2026-11-21T00:00:00+02:00',
      end_time: '2026-11-22T00:00:00Z',
    },
    { ...FLAKY, page_query: PAGE, start_time: 'yesterday', end_time: '2026-11-22T00:00:00Z' },
    'start_time',
  ],
  [
    'flaky-tests/list-unhealthy-tests',
    { ...FLAKY, page_query: PAGE, status: 'flaky' },
    { ...FLAKY, page_query: PAGE, status: 'HEALTHY' },
    'status',
  ],
  [
    'flaky-tests/list-quarantined-tests',
    { ...FLAKY, page_query: { page_size: 1, page_token: '' } },
    { ...FLAKY, page_query: { page_size: 101 } },
    'page_query.page_size',
  ],
  [
    'flaky-tests/list-quarantined-tests',
    { ...FLAKY, page_query: PAGE },
    { repo: FLAKY.repo, page_query: PAGE },
    'org_url_slug',
  ],
];

describe('validation of every endpoint', () => {
  test.each(VALIDATED)(
    '%s: 400 naming the invalid field; a valid body passes validation',
    async (path, valid, invalid, field) => {
      const accepted = await api.post(path, valid);
      // 404: no such queue or PR. Never a 400, never a 500.
      expect([200, 404], accepted.body).toContain(accepted.statusCode);
      const body = expectErrorBody(await api.post(path, invalid), 400, 'bad_request');
      expect(body.details?.map((detail) => detail.field)).toContain(field);
    },
  );
});

describe('GET /v1/getMergeQueueMetrics', () => {
  test('answers the exposition format with the organization queues only', async () => {
    await api.post('createQueue', queueBody({}, 'other-org-branch'), TOKENS.globex);
    const response = await api.get('getMergeQueueMetrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.body).toContain(
      'greenline_queue_info{repo_host="github.com",repo="acme/widgets",branch="main",state="running",mode="single"} 1',
    );
    expect(response.body).not.toContain('other-org-branch');
  });

  test('filters by repository; repo without repoHost is 400', async () => {
    const mine = await api.get('getMergeQueueMetrics?repo=acme/widgets&repoHost=github.com');
    expect(mine.body).toContain('branch="main"');
    const other = await api.get('getMergeQueueMetrics?repo=acme/gadgets&repoHost=github.com');
    expect(other.statusCode).toBe(200);
    expect(other.body).not.toContain('branch="main"');
    const hostOnly = await api.get('getMergeQueueMetrics?repoHost=gitlab.com');
    expect(hostOnly.body).not.toContain('branch="main"');
    const body = expectErrorBody(await api.get('getMergeQueueMetrics?repo=acme/widgets'), 400, 'bad_request');
    expect(body.details?.[0]?.field).toBe('repoHost');
    expectErrorBody(await api.get('getMergeQueueMetrics?repo=widgets&repoHost=github.com'), 400, 'bad_request');
  });
});
