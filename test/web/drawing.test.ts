/**
 * What the queue and organization pages draw from real engine states (memory store, virtual clock, the simulated
 * git host, statuses set through the API): batches, bisections after a failed batch, lanes of parallel mode, and the
 * last hour's merges and median time in queue; the flaky-test listings' paging and filters.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectOk, makeApi, queueBody, TOKENS, type Api } from '../api/harness.js';
import { uploadBody } from '../flaky/helpers.js';

let api: Api;
let cookie = '';
beforeEach(async () => {
  api = await makeApi();
  const signin = await api.app.inject({
    method: 'POST',
    url: '/signin',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${TOKENS.acme}`,
  });
  cookie = String(signin.headers['set-cookie']).split(';')[0]!;
});
afterEach(async () => {
  await api.close();
});

const ok = (path: string, body: unknown) => expectOk(api, path, body);

async function page(url: string): Promise<string> {
  const response = await api.app.inject({ method: 'GET', url, headers: { cookie } });
  expect(response.statusCode, url).toBe(200);
  return response.body;
}

const queueId = () => api.engine.listQueues('acme')[0]!.id;
const activeRuns = () => api.engine.listQueues('acme')[0]!.runtime.activeRuns;

async function setStatus(runId: string, state: 'success' | 'failure') {
  const run = await ok('getMergeQueueTestingDetails', queueBody({ testRunId: runId }));
  await ok('setCommitStatus', { repo: queueBody().repo, sha: run.testBranchSha, context: 'ci', state });
  await api.engine.settle();
}

/** The article of a run on a page, by id. */
const runCard = (html: string, runId: string) =>
  /<article class="run[^"]*" data-run="([^"]+)">[\s\S]*?<\/article>/g.exec(
    html.slice(html.indexOf(`data-run="${runId}"`) - 40),
  )?.[0] ?? '';

describe('the queue page', () => {
  test('a batch is one card with its PRs; after it fails, its bisection and groups are drawn as such', async () => {
    await ok('createQueue', queueBody({ batch: true, batchingMinSize: 4, requiredStatuses: ['ci'] }));
    for (const number of [1, 2, 3, 4]) await ok('submitPullRequest', queueBody({ pr: { number } }));
    await api.engine.settle();
    const [batch] = activeRuns();
    let html = await page(`/queues/${queueId()}`);
    const card = runCard(html, batch!);
    expect(card).toContain('batch of 4');
    for (const number of [1, 2, 3, 4]) expect(card).toContain(`/prs/${number}"`);

    await setStatus(batch!, 'failure');
    html = await page(`/queues/${queueId()}`);
    expect(html).toContain('<h2>Bisections</h2>');
    // The tree: the batch that failed together at the root, the groups being tested under it.
    const tree = html.slice(html.indexOf('data-bisection-tree='));
    expect(tree).toMatch(
      /<ul class="tree"><li class="failed"><span class="state state-FAILED">failed together<\/span> (<a href="[^"]+\/prs\/\d">#\d<\/a>(, )?){4}<ul>/,
    );
    expect([...tree.matchAll(/<li class="group"><span class="group-name">Group /g)].length).toBeGreaterThanOrEqual(2);
    expect(html).toMatch(/<section class="bisection" data-bisection="[^"]+"><h3>Bisection /);
    expect(html.match(/class="run bisection"/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
  });

  test('parallel mode: independent PRs in lanes of their own, a dependent one in the lane of what it depends on', async () => {
    await ok('createQueue', queueBody({ mode: 'parallel', concurrency: 5, requiredStatuses: ['ci'] }));
    const targets: Record<number, string[]> = { 1: ['//frontend:app'], 2: ['//backend:api'], 3: ['//frontend:app'] };
    for (const number of [1, 2, 3]) {
      await ok('submitPullRequest', queueBody({ pr: { number } }));
      await api.engine.settle();
      const sha = (await ok('getSubmittedPullRequest', queueBody({ pr: { number } }))).prSha as string;
      await ok('setImpactedTargets', queueBody({ pr: { number, sha }, impactedTargets: targets[number] }));
      await api.engine.settle();
    }
    const html = await page(`/queues/${queueId()}`);
    const lanes = html.split('<section class="lane"').slice(1);
    expect(lanes).toHaveLength(2);
    const laneOf = (number: number) =>
      lanes.findIndex((lane) => new RegExp(`PRs: <a href="[^"]+/prs/${number}"`).test(lane));
    expect(laneOf(1)).toBe(laneOf(3));
    expect(laneOf(2)).not.toBe(laneOf(1));
    expect(lanes[laneOf(3)]).toMatch(/dependentPrs: <a href="[^"]+\/prs\/1">#1<\/a>/);
  });

  test('what each PR waits for, by state', async () => {
    await ok('createQueue', queueBody({ requiredStatuses: ['ci'] }));
    for (const number of [1, 2]) await ok('submitPullRequest', queueBody({ pr: { number } }));
    await api.engine.settle();
    let html = await page(`/queues/${queueId()}`);
    expect(html).toMatch(/<tr data-pr="1">[\s\S]*?TESTING[\s\S]*?run tr_[^ ]+ to finish/);
    expect(html).toMatch(/<tr data-pr="2">[\s\S]*?PENDING[\s\S]*?a free run slot \(concurrency 1\)/);
    await ok('updateQueue', queueBody({ state: 'paused' }));
    html = await page(`/queues/${queueId()}`);
    expect(html).toMatch(/<tr data-pr="2">[\s\S]*?the queue to be resumed/);
  });
});

describe('the organization page', () => {
  test("counts the last hour's merges and their median time in queue", async () => {
    await ok('createQueue', queueBody({ requiredStatuses: ['ci'] }));
    for (const number of [1, 2, 3]) await ok('submitPullRequest', queueBody({ pr: { number } }));
    await api.engine.settle();
    const before = await page('/');
    expect(before).toContain('<dd data-field="depth">3</dd>');
    expect(before).toContain('<dd data-field="not-ready">0</dd>');
    expect(before).toContain('<dd data-field="runs">1</dd>');
    // Each PR tests for 2, 3 and 4 minutes after the one before it merged: in queue 2, 5 and 9 minutes.
    for (const minutes of [2, 3, 4]) {
      await api.clock.advanceBy(minutes * 60_000);
      await setStatus(activeRuns()[0]!, 'success');
    }
    let html = await page('/');
    expect(html).toContain('<dd data-field="merges">3</dd>');
    expect(html).toContain('<dd data-field="p50">5 min 0 s</dd>');
    // Merged 7, 4 and 0 minutes ago: one in the 5-minute bucket before last, two in the last.
    expect(html).toContain('aria-label="merges per 5 minutes over the last hour: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2"');
    await api.clock.advanceBy(3_600_000);
    html = await page('/');
    expect(html).toContain('<dd data-field="merges">0</dd>');
    expect(html).toContain('<dd data-field="p50">—</dd>');
  });
});

describe('the flaky-test pages', () => {
  test('listings page through every row with Next and Previous, and refuse bad filters by name', async () => {
    const cases = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name: `test_${name}`, outcome: 'failed' as const }));
    await ok('flaky-tests/upload', uploadBody(cases));
    const seen: string[] = [];
    let url = '/flaky?repo=github.com/acme/widgets&list=failing&pageSize=2&hours=24';
    for (let pageIndex = 1; pageIndex <= 3; pageIndex++) {
      const html = await page(url);
      expect(html).toContain(`Page ${pageIndex} of 3 (5 tests)`);
      seen.push(...[...html.matchAll(/<tr data-test="([^"]+)">/g)].map((match) => match[1]!));
      const next = /<a href="([^"]+)">Next<\/a>/.exec(html)?.[1];
      if (pageIndex < 3) url = next!.replace(/&amp;/g, '&');
      else expect(next).toBeUndefined();
    }
    expect(new Set(seen).size).toBe(5);
    const last = await page(url);
    expect(last).toMatch(/<a href="[^"]+">Previous<\/a>/);
    for (const [query, message] of [
      ['list=all', 'list must be one of'],
      ['pageSize=0', 'pageSize must be'],
      ['pageSize=101', 'pageSize must be'],
      ['hours=5', 'hours must be one of'],
    ] as const) {
      const response = await api.app.inject({
        method: 'GET',
        url: `/flaky?repo=github.com/acme/widgets&${query}`,
        headers: { cookie },
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.body, query).toContain(message);
    }
  });
});
