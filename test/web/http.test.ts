/**
 * The dashboard over HTTP (Fastify inject, memory store, virtual clock): sessions, organization scoping, the status
 * of every bad request and the queue actions. The live feed: test/web/liveFeed.test.ts.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { listTokens, revokeToken } from '../../engine/tokens.js';
import { makeApi, queueBody, TOKENS, type Api } from '../api/harness.js';
import { dashboardForms } from './dashboardForms.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const { FORM, signIn, get, post, expectSignIn, makeQueue } = dashboardForms(() => api);

describe('sessions', () => {
  test('every page without a session, or with a forged or expired one, is the sign-in page', async () => {
    const id = await makeQueue();
    const cookie = await signIn(TOKENS.acme);
    const [name, value] = cookie.split('=') as [string, string];
    const [payload, mac] = value.split('.') as [string, string];
    const forged = `${name}=${Buffer.from(JSON.stringify(['tok_x', 'acme', Date.now() + 1e9])).toString('base64url')}.${mac}`;
    for (const url of ['/', '/charts', '/flaky', `/queues/${id}`, `/queues/${id}/prs/1`, '/tests/abc']) {
      expectSignIn(await get(url), url);
      expectSignIn(await get(url, forged), url);
      expectSignIn(await get(url, `${name}=${payload}`), url);
      expect((await get(url, cookie)).statusCode).not.toBe(303);
    }
    // The live stream is told `signed-out` instead (a test below).
    // A script's request (not a page opened) is told 401 with the sign-in page.
    expect((await api.app.inject({ method: 'GET', url: '/charts' })).statusCode).toBe(401);
  });

  test('a wrong or empty token is refused; revoking the token ends its sessions; signing out clears the cookie', async () => {
    const wrong = await api.app.inject({
      method: 'POST',
      url: '/signin',
      headers: FORM,
      payload: 'token=nope-nope-nope-nope',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('action="/signin"');
    expect(wrong.body).toContain('not valid');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const empty = await api.app.inject({ method: 'POST', url: '/signin', headers: FORM, payload: 'token=' });
    expect(empty.statusCode).toBe(400);

    const cookie = await signIn(TOKENS.acme);
    expect((await get('/', cookie)).statusCode).toBe(200);
    const out = await post('/signout', '', cookie);
    expect((await get('/signin?next=%2Fcharts', cookie)).headers.location).toBe('/charts');
    expect(out.statusCode).toBe(303);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');

    const token = listTokens(api.store).find((record) => record.org === 'acme')!;
    revokeToken(api.store, token.id);
    expectSignIn(await get('/', cookie), '/');
  });

  test('after sign-in only a path of this site is followed', async () => {
    for (const next of ['https://evil.example/', '//evil.example/', '/\\evil']) {
      const response = await api.app.inject({
        method: 'POST',
        url: '/signin',
        headers: FORM,
        payload: `token=${TOKENS.acme}&next=${encodeURIComponent(next)}`,
      });
      expect(response.headers.location).toBe('/');
    }
  });
});

describe('organizations', () => {
  test("another organization's queue, PR and run are not found, and its pages list none of them", async () => {
    const id = await makeQueue();
    await api.post('submitPullRequest', queueBody({ pr: { number: 7 } }));
    await api.engine.settle();
    const runId = api.engine.getQueue({ org: 'acme', repo: queueBody().repo, branch: 'main' }).queue.runtime
      .activeRuns[0]!;
    const acme = await signIn(TOKENS.acme);
    const globex = await signIn(TOKENS.globex);
    for (const url of [`/queues/${id}`, `/queues/${id}/prs/7`, `/queues/${id}/runs/${runId}`]) {
      expect((await get(url, acme)).statusCode).toBe(200);
      const other = await get(url, globex);
      expect(other.statusCode).toBe(404);
      expect(other.body).not.toContain('widgets');
    }
    expect((await post(`/queues/${id}/state`, 'state=paused', globex)).statusCode).toBe(404);
    expect((await get('/', globex)).body).not.toContain(id);
    expect((await get('/', acme)).body).toContain(id);
  });
});

describe('bad requests', () => {
  test('each gets a page with the right status and says what is wrong', async () => {
    const id = await makeQueue();
    const cookie = await signIn(TOKENS.acme);
    const cases: [string, Promise<LightMyRequestResponse>, number, string][] = [
      ['no such queue', get('/queues/q_nope', cookie), 404, 'no queue q_nope'],
      ['a PR number that is not one', get(`/queues/${id}/prs/abc`, cookie), 400, 'is not a pull request number'],
      ['a PR never submitted', get(`/queues/${id}/prs/9`, cookie), 404, 'never submitted'],
      ['no such run', get(`/queues/${id}/runs/tr_x`, cookie), 404, 'no test run tr_x'],
      [
        'a repository without test results',
        get('/flaky?repo=github.com/acme/widgets&list=failing', cookie),
        404,
        'no flaky-test data',
      ],
      ['no such test', get('/tests/nope', cookie), 404, 'no test nope'],
      ['a missing state', post(`/queues/${id}/state`, '', cookie), 400, 'missing the field'],
      ['an unknown state', post(`/queues/${id}/state`, 'state=asleep', cookie), 400, 'state'],
      ['a bad quarantine setting', post('/tests/x/quarantine', 'setting=maybe', cookie), 400, 'setting must be'],
    ];
    for (const [what, response, status, text] of cases) {
      const answer = await response;
      expect(answer.statusCode, what).toBe(status);
      expect(answer.headers['content-type'], what).toContain('text/html');
      expect(answer.body, what).toContain(text);
    }
  });

  test('the settings form refuses what updateQueue refuses, naming each field, and changes nothing', async () => {
    const id = await makeQueue();
    const cookie = await signIn(TOKENS.acme);
    const response = await post(
      `/queues/${id}/settings`,
      'concurrency=abc&batchingMinSize=0&batch=perhaps&mode=single',
      cookie,
    );
    expect(response.statusCode).toBe(400);
    for (const field of ['concurrency', 'batchingMinSize', 'batch'])
      expect(response.body).toContain(`<strong>${field}</strong>`);
    expect(response.headers['hx-replace-url']).toBe(`/queues/${id}`);
    expect(api.engine.listQueues('acme')[0]!.settings).toMatchObject({
      concurrency: 1,
      batchingMinSize: 4,
      batch: false,
    });
  });

  test('posts from another site are refused; /v1 still takes JSON only', async () => {
    const id = await makeQueue();
    const cookie = await signIn(TOKENS.acme);
    const foreign = await post(`/queues/${id}/state`, 'state=paused', cookie, {
      origin: 'https://evil.example',
      host: 'localhost:80',
    });
    expect(foreign.statusCode).toBe(403);
    expect(api.engine.listQueues('acme')[0]!.state).toBe('running');
    const form = await api.app.inject({
      method: 'POST',
      url: '/v1/getQueue',
      headers: { ...FORM, 'x-api-token': TOKENS.acme },
      payload: 'a=b',
    });
    expect(form.statusCode).toBe(415);
  });
});

describe('actions', () => {
  test('pause, resume and drain change the queue and lead back to its page', async () => {
    const id = await makeQueue();
    const cookie = await signIn(TOKENS.acme);
    await api.post('submitPullRequest', queueBody({ pr: { number: 3 } }));
    for (const state of ['paused', 'running', 'draining'] as const) {
      const response = await post(`/queues/${id}/state`, `state=${state}`, cookie);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/queues/${id}`);
      expect(api.engine.listQueues('acme')[0]!.state).toBe(state);
    }
  });

  test('saved settings reach the queue; empty fields leave theirs as they are', async () => {
    const id = await makeQueue();
    const cookie = await signIn(TOKENS.acme);
    const response = await post(
      `/queues/${id}/settings`,
      'concurrency=3&bisectionConcurrency=&pendingFailureDepth=&batch=true&mergeMethod=squash&adaptiveWindow=true&adaptiveWindowFloor=2&speculationRunsPercent=&optimizationMode=speculate_by_likelihood&parallelBases=direct&requiredStatuses=ci%2Fbuild%2C+ci%2Ftest',
      cookie,
    );
    expect(response.statusCode).toBe(303);
    const queue = api.engine.listQueues('acme')[0]!;
    expect(queue.settings).toMatchObject({
      concurrency: 3,
      batch: true,
      mergeMethod: 'squash',
      pendingFailureDepth: 0,
      adaptiveWindow: true,
      adaptiveWindowFloor: 2,
      optimizationMode: 'speculate_by_likelihood',
      parallelBases: 'direct',
    });
    expect(queue.settings.speculationRunsPercent).toBeUndefined();
    expect(queue.settings.bisectionConcurrency).toBeUndefined();
    expect(queue.requiredStatuses).toEqual(['ci/build', 'ci/test']);
    await post(`/queues/${id}/settings`, 'requiredStatuses=', cookie);
    expect(api.engine.listQueues('acme')[0]!.requiredStatuses).toBeNull();
  });
});
