/**
 * The link between the two halves of the product, over HTTP: a merge-queue run whose failed tests, as uploaded for
 * its test branch SHA, are all quarantined counts as passed; any other failure still fails.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { testId } from '../../engine/flaky/index.js';
import { makeApi, queueBody, type Api } from '../api/harness.js';
import { junitXml, REPO, uploadBody, type CaseSpec } from './helpers.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
  expect((await api.post('createQueue', queueBody({ requiredStatuses: ['ci/test'] }))).statusCode).toBe(200);
  // History: three tests seen passing on main; `flappy` failed and passed on one commit, so it is flaky.
  const history = await api.post(
    'flaky-tests/upload',
    uploadBody([{ name: 'pinned' }, { name: 'solid' }, { name: 'flappy', flakyFailures: ['timed out'] }], {
      commit_sha: 'b'.repeat(40),
    }),
  );
  expect(history.statusCode, history.body).toBe(200);
  const pin = await api.post('flaky-tests/set-quarantine', {
    repo: REPO,
    org_url_slug: 'acme',
    test_id: idOf('pinned'),
    setting: 'ALWAYS_QUARANTINE',
  });
  expect(pin.statusCode, pin.body).toBe(200);
});
afterEach(async () => {
  await api.close();
});

const idOf = (name: string) => testId(REPO, { file: '', classname: 'Suite', parent: 'suite', name, variant: '' });

interface Submitted {
  state: string;
  testRunId: string;
  timeline: { event: string; message: string }[];
}

/** Submits PR `number` alone, uploads `cases` for its test branch, reports `state`, and returns the PR and run. */
async function runWith(number: number, cases: CaseSpec[], state: 'failure' | 'error' = 'failure') {
  expect((await api.post('submitPullRequest', queueBody({ pr: { number } }))).statusCode).toBe(200);
  await api.engine.settle();
  const testing = (await api.post('getSubmittedPullRequest', queueBody({ pr: { number } }))).json() as Submitted;
  expect(testing.state).toBe('TESTING');
  const details = (
    await api.post('getMergeQueueTestingDetails', queueBody({ testRunId: testing.testRunId }))
  ).json() as {
    testBranchSha: string;
  };
  const sha = details.testBranchSha;
  const uploaded = await api.post('flaky-tests/upload', {
    ...uploadBody([], { commit_sha: sha, branch: `greenline/main/${testing.testRunId}` }),
    reports: [{ file: 'junit.xml', xml: junitXml(cases) }],
  });
  expect(uploaded.statusCode, uploaded.body).toBe(200);
  const reported = await api.post('setCommitStatus', { repo: REPO, sha, context: 'ci/test', state });
  expect(reported.statusCode, reported.body).toBe(200);
  await api.engine.settle();
  const pr = (
    await api.post('getSubmittedPullRequest', queueBody({ pr: { number }, includeTimeline: true }))
  ).json() as Submitted;
  const run = (
    await api.post('getMergeQueueTestingDetails', queueBody({ testRunId: testing.testRunId }))
  ).json() as Record<string, unknown>;
  return { pr, run };
}

describe('the merge queue and quarantine', () => {
  test('a run whose only failures are quarantined passes, and says so', async () => {
    const { pr, run } = await runWith(1, [{ name: 'pinned', outcome: 'failed' }, { name: 'solid' }]);
    expect(pr.state).toBe('MERGED');
    expect(run).toMatchObject({ status: 'succeeded', quarantinedFailures: ['pinned'] });
    // The check keeps what CI reported.
    expect(run.statusChecks).toEqual([expect.objectContaining({ context: 'ci/test', state: 'FAILURE' })]);
    const entry = pr.timeline.find((item) => item.event === 'quarantine_passed');
    expect(entry?.message).toContain('every failed test is quarantined (pinned)');
    // Operators see it too.
    const metrics = (await api.get('getMergeQueueMetrics')).body;
    expect(metrics).toMatch(/^greenline_quarantined_failures_ignored_total\{[^}]*queue_type="main"[^}]*\} 1$/m);
  });

  test('a failure of a test that is not quarantined still fails the run', async () => {
    const { pr, run } = await runWith(2, [
      { name: 'pinned', outcome: 'failed' },
      { name: 'solid', outcome: 'failed' },
    ]);
    expect(pr.state).toBe('FAILED');
    expect(run.status).toBe('failed');
    expect(run.quarantinedFailures).toBeUndefined();
    expect((await api.get('getMergeQueueMetrics')).body).toMatch(
      /^greenline_quarantined_failures_ignored_total\{[^}]*queue_type="main"[^}]*\} 0$/m,
    );
  });

  test('a flaky test counts only when the repository auto-quarantines', async () => {
    const off = await runWith(3, [{ name: 'flappy', outcome: 'failed' }]);
    expect(off.pr.state).toBe('FAILED');
    const settings = await api.post('flaky-tests/update-settings', {
      repo: REPO,
      org_url_slug: 'acme',
      auto_quarantine: true,
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const on = await runWith(4, [{ name: 'flappy', outcome: 'failed' }]);
    expect(on.pr.state).toBe('MERGED');
    expect(on.run.quarantinedFailures).toEqual(['flappy']);
  });

  test('an error status is never excused, nor a failure without uploaded results', async () => {
    const error = await runWith(5, [{ name: 'pinned', outcome: 'failed' }], 'error');
    expect(error.pr.state).toBe('FAILED');
    const nothing = await runWith(6, [{ name: 'solid' }]);
    expect(nothing.pr.state).toBe('FAILED');
  });
});
