/** Each condition answers its catalogue entry: the status, the old `code`, and the condition itself as `reason`. */
import { afterEach, expect, test } from 'vitest';
import { ERRORS, type ErrorCode } from '../../engine/model/errors.js';
import { type Api, expectErrorBody, makeApi, queueBody, REPO, TOKENS } from './harness.js';

let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function expectReason(response: Awaited<ReturnType<Api['post']>>, reason: ErrorCode) {
  const body = expectErrorBody(response, ERRORS[reason].status, ERRORS[reason].category);
  expect(body, response.body).toMatchObject({ reason });
}

test('the merge queue answers the code of each condition', async () => {
  api = await makeApi();
  await expectReason(await api.post('getQueue', queueBody()), 'queue_not_found');
  expect((await api.post('createQueue', queueBody())).statusCode).toBe(200);
  await expectReason(await api.post('createQueue', queueBody()), 'queue_exists');
  await expectReason(await api.post('getSubmittedPullRequest', queueBody({ pr: { number: 7 } })), 'pr_not_found');
  await expectReason(await api.post('cancelPullRequest', queueBody({ pr: { number: 7 } })), 'pr_not_queued');
  await expectReason(
    await api.post('getMergeQueueTestingDetails', queueBody({ testRunId: 'tr_none' })),
    'test_run_not_found',
  );
  await expectReason(
    await api.post('setCommitStatus', { repo: REPO, sha: 'abcdef1', context: 'ci', state: 'success' }),
    'commit_not_tested',
  );
  await expectReason(await api.post('listPullRequests', queueBody({ cursor: 'nope' })), 'invalid_cursor');
  expect((await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }))).statusCode).toBe(200);
  await expectReason(await api.post('deleteQueue', queueBody()), 'queue_not_empty');
  expect((await api.post('updateQueue', queueBody({ state: 'draining' }))).statusCode).toBe(200);
  await expectReason(await api.post('submitPullRequest', queueBody({ pr: { number: 2 } })), 'queue_draining');
});

test('a merged PR submitted again is pr_already_merged', async () => {
  api = await makeApi();
  expect((await api.post('createQueue', queueBody({ requiredStatuses: ['ci'] }))).statusCode).toBe(200);
  expect((await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }))).statusCode).toBe(200);
  await api.engine.settle();
  const { testRunId } = (await api.post('getSubmittedPullRequest', queueBody({ pr: { number: 1 } }))).json() as {
    testRunId: string;
  };
  const { testBranchSha } = (await api.post('getMergeQueueTestingDetails', queueBody({ testRunId }))).json() as {
    testBranchSha: string;
  };
  expect(
    (await api.post('setCommitStatus', { repo: REPO, sha: testBranchSha, context: 'ci', state: 'success' })).statusCode,
  ).toBe(200);
  await api.engine.settle();
  expect((await api.post('getSubmittedPullRequest', queueBody({ pr: { number: 1 } }))).json()).toMatchObject({
    state: 'MERGED',
  });
  await expectReason(await api.post('submitPullRequest', queueBody({ pr: { number: 1 } })), 'pr_already_merged');
});

test('the HTTP layer answers the code of each condition', async () => {
  api = await makeApi();
  await expectReason(await api.post('getQueue', queueBody({ targetBranch: 7 })), 'invalid_field');
  await expectReason(await api.post('getQueue', queueBody(), null), 'unauthorized');
  await expectReason(await api.post('getQueue', queueBody(), 'no-such-token-0123456789'), 'unauthorized');
  await expectReason(await api.post('noSuchEndpoint', {}), 'endpoint_not_found');
  await expectReason(await api.get('getQueue'), 'method_not_allowed');
  const headers = { 'x-api-token': TOKENS.acme };
  const malformed = await api.app.inject({
    method: 'POST',
    url: '/v1/getQueue',
    headers: { ...headers, 'content-type': 'application/json' },
    payload: '{',
  });
  await expectReason(malformed, 'invalid_json');
  const text = await api.app.inject({
    method: 'POST',
    url: '/v1/getQueue',
    headers: { ...headers, 'content-type': 'text/plain' },
    payload: 'x',
  });
  await expectReason(text, 'unsupported_media_type');
});

test('the flaky-test endpoints answer the code of each condition', async () => {
  api = await makeApi();
  const listing = { repo: REPO, page_query: { page_size: 10 } };
  await expectReason(
    await api.post('flaky-tests/get-settings', { repo: REPO, org_url_slug: 'globex' }),
    'org_not_found',
  );
  const forged = { ...listing, org_url_slug: 'acme', page_query: { page_size: 10, page_token: 'forged.token' } };
  await expectReason(await api.post('flaky-tests/list-quarantined-tests', forged), 'invalid_page_token');
  const test = { repo: REPO, org_url_slug: 'acme', test_id: '00000000-0000-4000-8000-000000000000' };
  await expectReason(await api.post('flaky-tests/get-test-details', test), 'test_not_found');
  const upload = (name: string) => ({
    repo: REPO,
    commit_sha: 'abcdef1',
    branch: 'main',
    upload_key: 'job-7-attempt-1',
    reports: [{ file: 'r.xml', xml: `<testsuite name="s"><testcase classname="C" name="${name}"/></testsuite>` }],
  });
  expect((await api.post('flaky-tests/upload', upload('a'))).json()).toMatchObject({ already_stored: false });
  expect((await api.post('flaky-tests/upload', upload('a'))).json()).toMatchObject({ already_stored: true });
  await expectReason(await api.post('flaky-tests/upload', upload('b')), 'upload_key_conflict');
});
