/**
 * The PR page's actions and the history page over HTTP (Fastify inject, memory store, virtual clock): each action goes
 * through the API's procedure with the API's scope (write), is recorded in the PR's timeline with who asked, and is
 * refused 403 when forged (no CSRF token, a wrong one) or beyond the token's scope; a read token sees no action.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createToken } from '../../engine/tokens.js';
import { makeApi, queueBody, TOKENS, type Api } from '../api/harness.js';
import { junitXml } from '../flaky/helpers.js';
import { GitHubHost } from '../../engine/providers/github/githubHost.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const KEY = { org: 'acme', repo: queueBody().repo, branch: 'main' };

async function signIn(token: string): Promise<string> {
  const response = await api.app.inject({
    method: 'POST',
    url: '/signin',
    headers: FORM,
    payload: `token=${encodeURIComponent(token)}`,
  });
  expect(response.statusCode).toBe(303);
  return String(response.headers['set-cookie']).split(';')[0]!;
}
const get = (url: string, cookie: string) =>
  api.app.inject({ method: 'GET', url, headers: { cookie, accept: 'text/html' } });
const csrfOf = async (cookie: string) => /name="_csrf" value="([^"]+)"/.exec((await get('/', cookie)).body)![1]!;
const post = (url: string, payload: string, cookie: string) =>
  api.app.inject({ method: 'POST', url, headers: { ...FORM, cookie }, payload });

async function queueWith(...numbers: number[]): Promise<string> {
  expect((await api.post('createQueue', queueBody({ concurrency: 1 }))).statusCode).toBe(200);
  for (const number of numbers)
    expect((await api.post('submitPullRequest', queueBody({ pr: { number } }))).statusCode).toBe(200);
  await api.engine.settle();
  return api.engine.listQueues('acme')[0]!.id;
}

const state = (number: number) => api.engine.getSubmittedPullRequest(KEY, number).pr;
const lastLine = (number: number) => api.engine.getSubmittedPullRequest(KEY, number, true).timeline!.at(-1)!;

describe('acting on a PR from its page', () => {
  test('a token of scope write sees the actions; each goes through and its timeline says who asked', async () => {
    const id = await queueWith(1, 2, 3);
    const cookie = await signIn(TOKENS.acme);
    const page = await get(`/queues/${id}/prs/2`, cookie);
    expect(page.statusCode).toBe(200);
    for (const action of ['cancel', 'retest', 'priority', 'skip-the-line'])
      expect(page.body).toContain(`action="/queues/${id}/prs/2/${action}"`);
    const csrf = await csrfOf(cookie);
    const tokenId = api.engine.findToken(TOKENS.acme)!.id;

    expect((await post(`/queues/${id}/prs/2/priority`, `_csrf=${csrf}&priority=high`, cookie)).headers.location).toBe(
      `/queues/${id}/prs/2`,
    );
    expect(state(2).priorityName).toBe('high');
    expect(lastLine(2).message).toContain(`by token ${tokenId} (dashboard)`);

    expect((await post(`/queues/${id}/prs/3/skip-the-line`, `_csrf=${csrf}&skipTheLine=true`, cookie)).statusCode).toBe(
      303,
    );
    expect(state(3).skipTheLine).toBe(true);

    expect((await post(`/queues/${id}/prs/1/retest`, `_csrf=${csrf}`, cookie)).statusCode).toBe(303);
    await api.engine.settle();
    expect(
      api.engine
        .getSubmittedPullRequest(KEY, 1, true)
        .timeline!.some(
          (line) =>
            line.message.startsWith(`restart asked by token ${tokenId} (dashboard)`) ||
            line.message === `tests restarted by token ${tokenId} (dashboard)`,
        ),
    ).toBe(true);

    // Cancel is asked again on the page before it is sent.
    expect(page.body).toMatch(
      /<details class="confirm" id="confirm-cancel"><summary>Cancel…<\/summary><form method="post" action="[^"]+\/prs\/2\/cancel">/,
    );
    expect((await post(`/queues/${id}/prs/2/cancel`, `_csrf=${csrf}`, cookie)).statusCode).toBe(303);
    expect(state(2).state).toBe('CANCELLED');
    expect(lastLine(2)).toMatchObject({ event: 'cancelled', message: `cancelled by token ${tokenId} (dashboard)` });

    // What is refused, is refused as the API refuses it: a PR no longer queued, a wrong priority.
    const again = await post(`/queues/${id}/prs/2/priority`, `_csrf=${csrf}&priority=high`, cookie);
    expect(again.statusCode).toBe(404);
    expect(again.body).toContain('not in the queue');
    expect(state(2).state).toBe('CANCELLED');
    const wrong = await post(`/queues/${id}/prs/3/priority`, `_csrf=${csrf}&priority=soonish`, cookie);
    expect(wrong.statusCode).toBe(400);
    expect(
      (await post(`/queues/${id}/prs/3/skip-the-line`, `_csrf=${csrf}&skipTheLine=maybe`, cookie)).statusCode,
    ).toBe(400);
    expect((await post(`/queues/${id}/prs/abc/cancel`, `_csrf=${csrf}`, cookie)).statusCode).toBe(400);
    // The API's own cancel says who asked too.
    await api.post('cancelPullRequest', queueBody({ pr: { number: 3 } }));
    expect(lastLine(3).message).toBe(`cancelled by token ${tokenId}`);
  });

  test('a forged post (no CSRF token, a wrong one, another session’s) is refused 403 and changes nothing', async () => {
    const id = await queueWith(1);
    const cookie = await signIn(TOKENS.acme);
    const other = await signIn(TOKENS.globex);
    const foreign = await csrfOf(other);
    for (const payload of ['', '_csrf=', '_csrf=forged', `_csrf=${foreign}`]) {
      const response = await post(`/queues/${id}/prs/1/cancel`, payload, cookie);
      expect(response.statusCode, payload).toBe(403);
      expect(response.body).toContain('CSRF');
    }
    // The queue's own actions are covered alike.
    expect((await post(`/queues/${id}/state`, 'state=paused', cookie)).statusCode).toBe(403);
    expect(api.engine.listQueues('acme')[0]!.state).toBe('running');
    expect(state(1).state).not.toBe('CANCELLED');
    // htmx sends the token as a header.
    const viaHeader = await api.app.inject({
      method: 'POST',
      url: `/queues/${id}/prs/1/cancel`,
      headers: { ...FORM, cookie, 'x-csrf-token': await csrfOf(cookie) },
      payload: '',
    });
    expect(viaHeader.statusCode).toBe(303);
    expect(state(1).state).toBe('CANCELLED');
  });

  test('a read token sees no action and no queue control, and its posts are refused 403', async () => {
    const id = await queueWith(1);
    const { token } = createToken(api.store, 'acme', new Date(api.clock.now()).toISOString(), 'read');
    const cookie = await signIn(token);
    const page = await get(`/queues/${id}/prs/1`, cookie);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toMatch(/action="[^"]*\/prs\/1\//);
    expect(page.body).toContain('may only read');
    const queuePage = await get(`/queues/${id}`, cookie);
    expect(queuePage.body).not.toContain(`action="/queues/${id}/state"`);
    expect(queuePage.body).not.toContain(`action="/queues/${id}/settings"`);
    const csrf = await csrfOf(cookie);
    for (const action of ['cancel', 'retest'])
      expect((await post(`/queues/${id}/prs/1/${action}`, `_csrf=${csrf}`, cookie)).statusCode).toBe(403);
    expect((await post(`/queues/${id}/prs/1/priority`, `_csrf=${csrf}&priority=high`, cookie)).statusCode).toBe(403);
    expect(state(1).priorityName).toBe('medium');
    expect(state(1).state).not.toBe('CANCELLED');
  });
});

describe('the PR, run and history pages', () => {
  test('the PR page leads with its state, position, time and links; the run page with its outcome and checks', async () => {
    const id = await queueWith(1, 2);
    const cookie = await signIn(TOKENS.acme);
    api.clock.advanceBy(90_000);
    const page = (await get(`/queues/${id}/prs/2`, cookie)).body;
    expect(page).toContain('data-field="position">2 of 2');
    expect(page).toMatch(/data-field="in-queue"><span data-since="[^"]+">1 min 30 s<\/span>/);
    expect(page).toContain('data-field="waits-for"');
    expect(page).toContain('id="pr-path"');
    expect(page).toMatch(
      /<time datetime="[^"]+" data-relative title="2026-11-22 12:00:00 UTC">1 minute ago<\/time> <strong>Submitted<\/strong>/,
    );
    // The run: its PRs, base, outcome and duration; the PR page links to it.
    const run = api.engine.getQueue(KEY).queue.runtime.activeRuns[0]!;
    expect(page).not.toContain(`/runs/${run}"`);
    const first = (await get(`/queues/${id}/prs/1`, cookie)).body;
    expect(first).toContain(`href="/queues/${id}/runs/${run}"`);
    const runPage = (await get(`/queues/${id}/runs/${run}`, cookie)).body;
    expect(runPage).toContain('data-field="run-status">in progress');
    expect(runPage).toMatch(/data-field="run-duration"><span data-since="[^"]+">1 min 30 s<\/span> so far/);
    expect(runPage).toContain(`href="/queues/${id}/prs/1"`);
  });

  test('the history lists ended PRs with reasons, durations and runs; it searches and pages', async () => {
    const id = await queueWith(1, 2, 3, 4);
    for (const number of [2, 3, 4]) await api.post('cancelPullRequest', queueBody({ pr: { number } }));
    const cookie = await signIn(TOKENS.acme);
    const page = await get(`/queues/${id}/history`, cookie);
    expect(page.statusCode).toBe(200);
    const rows = [...page.body.matchAll(/<tr data-pr="(\d+)">/g)].map((match) => Number(match[1]));
    expect(rows).toEqual([4, 3, 2]);
    expect(page.body).toContain('cancelled by token');
    expect((await get(`/queues/${id}/history?q=%233`, cookie)).body).toMatch(/<tr data-pr="3">/);
    expect((await get(`/queues/${id}/history?q=nobody-by-that-name`, cookie)).body).toContain('No ended PR matches');
    const bad = await get(`/queues/${id}/history?after=zzz`, cookie);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('is not a page of this history');
  });
});

describe('flaky tests', () => {
  test("the landing page shows the first repository's failing tests on arrival, not an empty form", async () => {
    const cookie = await signIn(TOKENS.acme);
    expect((await get('/flaky', cookie)).body).not.toContain('table class="tests"');
    const cases = [
      { name: 'shaky_login', outcome: 'failed' as const, message: 'timeout after 30s' },
      { name: 'steady' },
    ];
    const uploaded = await api.post('flaky-tests/upload', {
      repo: queueBody().repo,
      org_url_slug: 'acme',
      commit_sha: 'b'.repeat(40),
      branch: 'main',
      reports: [{ file: 'junit.xml', xml: junitXml(cases) }],
    });
    expect(uploaded.statusCode).toBe(200);
    const page = (await get('/flaky', cookie)).body;
    expect(page).toContain('shaky_login');
    expect(page).toMatch(/<option value="github.com\/acme\/widgets" selected>/);
  });
});

describe('links to the host', () => {
  test("the PR page links to the PR on a host with pages (GitHub's html_url) and to its checks", async () => {
    await api.close();
    // The simulated host, with GitHub's PR addresses (GitHubHost.pullRequestUrl: no request made).
    class HostWithPages extends SimGitHost {
      pullRequestUrl = GitHubHost.prototype.pullRequestUrl;
    }
    api = await makeApi(undefined, { gitHost: new HostWithPages() });
    const id = await queueWith(1);
    const run = api.engine.getQueue(KEY).queue.runtime.activeRuns[0]!;
    const sha = api.engine.getTestRun(KEY, run).run.testBranchSha;
    await api.post('setCommitStatus', {
      repo: queueBody().repo,
      sha,
      context: 'ci/build',
      state: 'pending',
      url: 'https://ci.example/build/7',
    });
    const cookie = await signIn(TOKENS.acme);
    const page = (await get(`/queues/${id}/prs/1`, cookie)).body;
    expect(page).toContain('<a href="https://github.com/acme/widgets/pull/1" rel="noreferrer">#1 on github.com</a>');
    expect(page).toContain('<a href="https://ci.example/build/7" rel="noreferrer">CI: ci/build (pending)</a>');
  });
});
