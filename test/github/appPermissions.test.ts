/**
 * The App merges every PR a person could merge (issue 32), against the stand-in, which checks each operation against
 * the permissions the App's manifest grants and every query against GitHub's OpenAPI description: a PR changing a
 * workflow file, a token GitHub revoked, a PR of 150 commits rebased, `.greenline.yaml` read on GitHub.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { APP_PERMISSIONS, appManifest } from '../../engine/providers/github/manifest.js';
import { closeQueuesAfterEach, opened, submitted } from './fixture.js';
import { example } from './webhookExamples.js';

closeQueuesAfterEach();

const WORKFLOW = { '.github/workflows/ci.yml': 'on: push\njobs: {}\n' };

describe('GitHub mode: what the App may do', () => {
  test('the manifest in docs/github.md is the one the App is built with, and grants workflows and checks', () => {
    const docs = readFileSync(new URL('../../docs/github.md', import.meta.url), 'utf8');
    const block = /## The manifest\s+```json\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(block).toBeDefined();
    expect(JSON.parse(block!)).toEqual(appManifest('https://greenline.example.com'));
    expect(APP_PERMISSIONS).toMatchObject({ workflows: 'write', contents: 'write', checks: 'write' });
  });

  test('a PR that changes .github/workflows/ci.yml is tested and merges', async () => {
    const q = await submitted({}, { 1: ['Bump actions/checkout', WORKFLOW] });
    const run = q.runOf(1);
    expect(q.github.files(run.testBranch)).toMatchObject(WORKFLOW);
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.files('main')).toMatchObject(WORKFLOW);
  });

  test('the stand-in refuses what the permissions do not allow, as GitHub does', async () => {
    const q = await opened({}, { 1: ['Bump actions/checkout', WORKFLOW] });
    // The permissions of the manifest before issue 32: no workflows, checks read only.
    const { workflows: _dropped, ...without } = APP_PERMISSIONS;
    q.github.granted = { ...without, checks: 'read' };
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.github.count('repos/merge', 403)).toBeGreaterThan(0);
    expect(q.errors.join('\n')).toMatch(/without `workflows` permission/);
    expect(q.pr(1).state).not.toBe('MERGED');
  });
});

describe('GitHub mode: installation tokens', () => {
  test('a revoked token is renewed on a 401: the queue goes on at once, not after the outbox backs off', async () => {
    const q = await submitted();
    const run = q.runOf(1);
    const made = q.github.count('apps/create-installation-access-token');
    q.github.revokeTokens();
    // Without moving the clock: the effects run once, and a failed one would wait for its retry.
    await q.send('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.count('apps/create-installation-access-token')).toBe(made + 1);
    // The 401s all came before the new token (a token under 5 s old is first sent again by @octokit/auth-app, for
    // GitHub's replication delay); none after it.
    const renewed = q.github.exchanges.findLastIndex(
      (exchange) => exchange.operationId === 'apps/create-installation-access-token',
    );
    expect(q.github.exchanges.slice(renewed).filter((exchange) => exchange.status === 401)).toEqual([]);
    expect(q.github.exchanges.filter((exchange) => exchange.status === 401).length).toBeGreaterThan(0);
    expect(q.errors.filter((error) => /Bad credentials/.test(error))).toEqual([]);
  });

  test('an installation event drops the tokens kept: the next request makes a new one', async () => {
    const q = await submitted();
    const made = q.github.count('apps/create-installation-access-token');
    await q.deliver('installation', example('installation', 'new_permissions_accepted'));
    await q.deliver('check_suite', q.checkSuitePayload(q.runOf(1).testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.count('apps/create-installation-access-token')).toBe(made + 1);
    expect(q.github.exchanges.filter((exchange) => exchange.status === 401)).toEqual([]);
  });
});

describe('GitHub mode: pages', () => {
  test('rebase: a PR of 150 commits is replayed whole (GitHub pages its commits by 100)', async () => {
    const q = await opened({ mergeMethod: 'rebase' }, { 1: ['Commit 1', { 'f1.txt': '1\n' }] });
    for (let n = 2; n <= 150; n++) q.github.pushToPull(1, { [`f${n}.txt`]: `${n}\n` });
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    const files = q.github.files(run.testBranch)!;
    expect(Object.keys(files).filter((name) => name.startsWith('f'))).toHaveLength(150);
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success'));
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.github.files('main')).toMatchObject({ 'f1.txt': '1\n', 'f150.txt': '150\n' });
  });
});

describe('GitHub mode: .greenline.yaml', () => {
  test('the file on the target branch sets the required statuses (over branch protection)', async () => {
    const q = await opened();
    q.github.protection.set('main', ['ci']);
    q.github.push('main', { '.greenline.yaml': 'required_statuses: [build, test]\n' }, 'Add .greenline.yaml');
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    const run = q.runOf(1);
    expect(run).toMatchObject({ requiredStatuses: ['build', 'test'], requiredStatusesSource: 'service_config' });
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success', 'build'));
    expect(q.pr(1).state).toBe('TESTING');
    await q.deliver('check_suite', q.checkSuitePayload(run.testBranchSha, 'success', 'test'));
    expect(q.pr(1).state).toBe('MERGED');
  });

  test('an invalid file keeps what was known, and protection applies', async () => {
    const q = await opened();
    q.github.protection.set('main', ['ci']);
    q.github.push('main', { '.greenline.yaml': 'required_statuses: build\n' }, 'A broken .greenline.yaml');
    await q.deliver('issue_comment', q.commentPayload(1, '/greenline merge'));
    expect(q.runOf(1)).toMatchObject({
      requiredStatuses: ['ci'],
      requiredStatusesSource: 'repo_provider_branch_protection',
    });
  });
});
