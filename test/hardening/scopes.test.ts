/** Scoped tokens: read, write, admin; beyond its scope a call is 403 insufficient_scope; settings changes name the token. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToken, listTokens, type TokenScope } from '../../engine/tokens.js';
import { expectErrorBody, makeApi, REPO, TOKENS, type Api } from '../api/harness.js';

let api: Api;
const tokens = {} as Record<TokenScope, { token: string; id: string }>;
beforeEach(async () => {
  api = await makeApi();
  for (const scope of ['read', 'write', 'admin'] as const) {
    const { token, record } = createToken(api.store, 'acme', '2026-11-22T12:00:00.000Z', scope);
    tokens[scope] = { token, id: record.id };
  }
  expect(
    (await api.post('createQueue', { repo: REPO, targetBranch: 'main', requiredStatuses: ['ci'] }, tokens.admin.token))
      .statusCode,
  ).toBe(200);
});
afterEach(async () => {
  await api.close();
});

const queue = { repo: REPO, targetBranch: 'main' };
const CALLS: [path: string, body: unknown, needs: TokenScope][] = [
  ['getQueue', queue, 'read'],
  ['getSubmittedPullRequest', { ...queue, pr: { number: 1 } }, 'read'],
  ['listPullRequests', queue, 'read'],
  ['getQueueSettingsHistory', queue, 'read'],
  ['flaky-tests/list-quarantined-tests', { repo: REPO, org_url_slug: 'acme', page_query: { page_size: 10 } }, 'read'],
  ['submitPullRequest', { ...queue, pr: { number: 1 } }, 'write'],
  ['cancelPullRequest', { ...queue, pr: { number: 1 } }, 'write'],
  ['setCommitStatus', { repo: REPO, sha: 'abcdef1', context: 'ci', state: 'success' }, 'write'],
  [
    'flaky-tests/upload',
    { repo: REPO, commit_sha: 'abcdef1', branch: 'main', reports: [{ file: 'r.xml', xml: '<testsuite/>' }] },
    'write',
  ],
  ['updateQueue', { ...queue, concurrency: 3 }, 'admin'],
  ['createQueue', { ...queue, targetBranch: 'next' }, 'admin'],
  ['deleteQueue', { ...queue, targetBranch: 'next' }, 'admin'],
];

describe('scopes', () => {
  for (const held of ['read', 'write', 'admin'] as const) {
    it(`a ${held} token may call what its scope allows, and gets 403 insufficient_scope beyond it`, async () => {
      const order = ['read', 'write', 'admin'];
      for (const [path, body, needs] of CALLS) {
        const response = await api.post(path, body, tokens[held].token);
        if (order.indexOf(held) >= order.indexOf(needs)) {
          expect(response.statusCode, `${held} ${path}: ${response.body}`).not.toBe(403);
        } else {
          const error = expectErrorBody(response, 403, 'insufficient_scope');
          expect(error.message).toBe(`this token's scope is ${held}; ${path} needs a token of scope ${needs} or wider`);
        }
      }
      expect((await api.get('getMergeQueueMetrics', tokens[held].token)).statusCode).toBe(200);
    });
  }

  it('a refused call changes nothing', async () => {
    expectErrorBody(await api.post('updateQueue', { ...queue, concurrency: 9 }, tokens.write.token), 403);
    expect((await api.post('getQueue', queue, tokens.read.token)).json()).toMatchObject({ concurrency: 1 });
  });

  it('tokens made before scopes (no scope stored) keep full rights', async () => {
    const old = listTokens(api.store).find((record) => record.source === 'env');
    expect(old).toBeDefined();
    api.store.write((tx) => {
      const { scope: _scope, ...withoutScope } = old!;
      tx.put('tokens', [old!.id], withoutScope);
    });
    expect((await api.post('updateQueue', { ...queue, concurrency: 2 }, TOKENS.acme)).statusCode).toBe(200);
  });
});

describe('the settings history', () => {
  it('records each change of settings with the id of the token that made it', async () => {
    expect(
      (await api.post('updateQueue', { ...queue, concurrency: 4, state: 'paused' }, tokens.admin.token)).statusCode,
    ).toBe(200);
    expect((await api.post('submitPullRequest', { ...queue, pr: { number: 5 } }, tokens.write.token)).statusCode).toBe(
      200,
    );
    const response = await api.post('getQueueSettingsHistory', queue, tokens.read.token);
    expect(response.statusCode).toBe(200);
    const { changes } = response.json() as {
      changes: { change: string; tokenId: string | null; settings: unknown; at: string }[];
    };
    expect(changes.map(({ change, tokenId, settings }) => ({ change, tokenId, settings }))).toEqual([
      { change: 'created', tokenId: tokens.admin.id, settings: { requiredStatuses: ['ci'] } },
      { change: 'configured', tokenId: tokens.admin.id, settings: { concurrency: 4, state: 'paused' } },
    ]);
  });

  it('is another organization’s 404', async () => {
    expectErrorBody(await api.post('getQueueSettingsHistory', queue, TOKENS.globex), 404);
  });
});
