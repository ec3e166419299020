/**
 * Which queues a scrape shows: every queue of the token's organization, one repository with `repo` + `repoHost`
 * (400 without repoHost), never another organization's queue, even one for the same repository and branch.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, TOKENS, type Api } from '../api/harness.js';
import { Driver, scrape } from './helpers.js';

let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

const GADGETS = { host: 'github.com', owner: 'acme', name: 'gadgets' };
const GITLAB_WIDGETS = { host: 'gitlab.example', owner: 'acme', name: 'widgets' };

const mq = (repo: string, branch: string, queueType = 'main') => ({ repo, branch, queue_type: queueType });
const conclusion = (repo: string, branch: string, outcome: string) => ({ ...mq(repo, branch), conclusion: outcome });

/** acme: widgets main (one merge) and release (one failure), gadgets main; globex: widgets main (two merges). */
async function fourQueues(): Promise<Api> {
  api = await makeApi();
  const widgets = new Driver(api);
  const release = new Driver(api, undefined, 'release');
  const gadgets = new Driver(api, GADGETS);
  const globex = new Driver(api, undefined, 'main', TOKENS.globex);
  for (const queue of [widgets, release, gadgets, globex]) await queue.create();
  await widgets.submit(1);
  await release.submit(7);
  await globex.submit(1, 2);
  await api.engine.settle();
  await widgets.advance(10);
  await widgets.pass(1);
  await release.fail(7);
  await globex.pass(1);
  await globex.pass(2);
  return api;
}

describe('what a scrape shows', () => {
  test("every queue of the token's organization, and only those", async () => {
    const a = await fourQueues();
    const acme = await scrape(a);
    expect(
      acme.series('greenline_queue_info').map((labels) => `${labels.repo_host}/${labels.repo}@${labels.branch}`),
    ).toEqual(['github.com/acme/gadgets@main', 'github.com/acme/widgets@main', 'github.com/acme/widgets@release']);
    expect(acme.value('mq_pr_conclusions_1h_total', conclusion('acme/widgets', 'main', 'merged'))).toBe(1);
    expect(acme.value('mq_pr_conclusions_1h_total', conclusion('acme/widgets', 'release', 'failed'))).toBe(1);
    expect(acme.value('mq_pr_conclusions_1h_total', conclusion('acme/gadgets', 'main', 'merged'))).toBe(0);
    // Every documented series of every queue, both queue types.
    expect(acme.series('mq_depth_current')).toHaveLength(6);

    // globex has a queue for the same repository and branch: its two merges are its own.
    const globex = await scrape(a, '', TOKENS.globex);
    expect(globex.series('greenline_queue_info')).toHaveLength(1);
    expect(globex.value('mq_pr_conclusions_1h_total', conclusion('acme/widgets', 'main', 'merged'))).toBe(2);
    expect(globex.series('mq_depth_current').map((labels) => labels.branch)).toEqual(['main', 'main']);
    expect(globex.text).not.toContain('release');
    expect(globex.text).not.toContain('gadgets');
  });

  test('repo and repoHost filter to one repository; repo without repoHost is 400', async () => {
    const a = await fourQueues();
    const widgets = await scrape(a, '?repo=acme/widgets&repoHost=github.com');
    expect(widgets.series('greenline_queue_info').map((labels) => labels.branch)).toEqual(['main', 'release']);
    expect(widgets.text).not.toContain('gadgets');
    // Hosts, owners and names are case-insensitive, as everywhere in the API.
    const shouted = await scrape(a, '?repo=ACME/Widgets&repoHost=GitHub.com');
    expect(shouted.series('greenline_queue_info')).toEqual(widgets.series('greenline_queue_info'));

    const gadgets = await scrape(a, '?repo=acme/gadgets&repoHost=github.com');
    expect(gadgets.series('mq_depth_current')).toEqual([
      mq('acme/gadgets', 'main'),
      mq('acme/gadgets', 'main', 'bisection'),
    ]);
    // globex's widgets queue never shows through acme's filter, nor acme's through globex's.
    expect(
      (await scrape(a, '?repo=acme/widgets&repoHost=github.com', TOKENS.globex)).series('greenline_queue_info'),
    ).toHaveLength(1);

    // A repository with no queue: the families, no queue series; the service-wide store size stays.
    const none = await scrape(a, '?repo=acme/nothing&repoHost=github.com');
    expect(none.series('mq_depth_current')).toEqual([]);
    expect(none.series('greenline_queue_info')).toEqual([]);
    expect(none.value('greenline_store_size_bytes')).toBeGreaterThan(0);
    // repoHost alone: that host's queues.
    expect((await scrape(a, '?repoHost=gitlab.example')).series('greenline_queue_info')).toEqual([]);

    const missingHost = expectErrorBody(await a.get('getMergeQueueMetrics?repo=acme/widgets'), 400, 'bad_request');
    expect(missingHost.details?.map((detail) => detail.field)).toEqual(['repoHost']);
    expectErrorBody(await a.get('getMergeQueueMetrics?repo=widgets&repoHost=github.com'), 400, 'bad_request');
    expectErrorBody(await a.get('getMergeQueueMetrics', null), 401, 'unauthorized');
  });

  test('label values are escaped, and read back as written', async () => {
    api = await makeApi();
    const q = new Driver(api, undefined, 'release/"v2"');
    await q.create();
    await q.submit(1);
    const scraped = await scrape(api);
    expect(scraped.value('mq_depth_current', mq('acme/widgets', 'release/"v2"'))).toBe(1);
  });

  test('a deleted queue leaves no series and no metrics data behind', async () => {
    api = await makeApi();
    const q = new Driver(api);
    await q.create();
    await q.submit(1);
    await q.advance(10);
    await q.pass(1);
    const queueId = api.engine.listQueues('acme')[0]?.id ?? '';
    await q.ok('deleteQueue');
    expect((await scrape(api)).series('mq_depth_current')).toEqual([]);
    const left = api.store.read((tx) =>
      (['metricsLog', 'metricsPrs', 'metricsTotals'] as const).map((collection) =>
        tx.count(collection, { prefix: [queueId] }),
      ),
    );
    expect(left).toEqual([0, 0, 0]);
  });

  test('one owner/name on two hosts: the documented series add up, ours keep the host apart', async () => {
    api = await makeApi();
    const github = new Driver(api);
    const gitlab = new Driver(api, GITLAB_WIDGETS);
    await github.create();
    await gitlab.create();
    await github.submit(1);
    await gitlab.submit(1, 2);
    const both = await scrape(api);
    expect(both.value('mq_depth_current', mq('acme/widgets', 'main'))).toBe(3);
    expect(both.value('mq_testing_slots_active', mq('acme/widgets', 'main'))).toBe(2);
    expect(both.histogram('mq_pr_wait_duration_1h_seconds', mq('acme/widgets', 'main'))?.count).toBe(2);
    expect(
      both.value('greenline_active_actors', {
        repo_host: 'github.com',
        repo: 'acme/widgets',
        branch: 'main',
        kind: 'pull_request',
      }),
    ).toBe(1);
    expect(
      both.value('greenline_active_actors', {
        repo_host: 'gitlab.example',
        repo: 'acme/widgets',
        branch: 'main',
        kind: 'pull_request',
      }),
    ).toBe(2);
    const one = await scrape(api, '?repo=acme/widgets&repoHost=gitlab.example');
    expect(one.value('mq_depth_current', mq('acme/widgets', 'main'))).toBe(2);
  });
});
