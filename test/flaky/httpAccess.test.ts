/** The flaky-test endpoints over HTTP, quarantine, settings and who sees what (organizations, page tokens, a test's page), on the memory store and the harness' virtual clock. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, TOKENS, type Api } from '../api/harness.js';
import { DAY, listBody, REPO } from './helpers.js';
import { flakyHttp, idOf, iso, NOW, sha } from './httpCalls.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const { post, upload, failing, unhealthy, quarantined } = flakyHttp(() => api);

describe('quarantine', () => {
  test('manual overrides: ALWAYS_QUARANTINE lists the test, null clears it, NEVER_QUARANTINE beats auto', async () => {
    await upload([
      { name: 'a', outcome: 'failed' },
      { name: 'b', flakyFailures: ['x'] },
    ]);
    const set = (name: string, setting: string | null) =>
      post('flaky-tests/set-quarantine', { repo: REPO, org_url_slug: 'acme', test_id: idOf(name), setting });

    expect((await set('a', 'always_quarantine')).body).toMatchObject({
      test_id: idOf('a'),
      setting: 'ALWAYS_QUARANTINE',
      quarantined: true,
    });
    let list = (await quarantined()).body;
    expect(list.quarantined_tests).toEqual([
      {
        name: 'a',
        parent: 'suite',
        file: '',
        classname: 'Suite',
        codeowners: [],
        quarantined_at: iso(NOW),
        status_last_updated_at: iso(NOW),
        test_case_id: idOf('a'),
        variant: '',
        status: 'HEALTHY',
        quarantine_setting: 'ALWAYS_QUARANTINE',
      },
    ]);
    expect((await failing()).body.tests.find((row: any) => row.name === 'a').quarantined).toBe(true);

    // Auto-quarantine (off by default) takes the flaky test in; NEVER_QUARANTINE keeps it out.
    const settings = await post('flaky-tests/update-settings', {
      repo: REPO,
      org_url_slug: 'acme',
      auto_quarantine: true,
    });
    expect(settings.body).toMatchObject({ auto_quarantine: true });
    list = (await quarantined()).body;
    expect(list.quarantined_tests.map((row: any) => [row.name, row.quarantine_setting, row.status]).sort()).toEqual([
      ['a', 'ALWAYS_QUARANTINE', 'HEALTHY'],
      ['b', 'AUTO_QUARANTINE', 'FLAKY'],
    ]);
    await set('b', 'NEVER_QUARANTINE');
    await set('a', null);
    expect((await quarantined()).body.quarantined_tests).toEqual([]);
  });

  test('broken tests are never auto-quarantined', async () => {
    await post('flaky-tests/update-settings', { repo: REPO, org_url_slug: 'acme', auto_quarantine: true });
    for (let i = 0; i < 6; i++) await upload([{ name: 'a', outcome: 'failed' }], { commit_sha: sha(i) });
    expect((await unhealthy('BROKEN')).body.tests.map((row: any) => row.name)).toEqual(['a']);
    expect((await quarantined()).body.quarantined_tests).toEqual([]);
  });

  test('an unknown test, or another organization’s, is 404', async () => {
    await upload([{ name: 'a' }]);
    const body = { repo: REPO, org_url_slug: 'acme', test_id: idOf('nope'), setting: 'ALWAYS_QUARANTINE' };
    expectErrorBody(await api.post('flaky-tests/set-quarantine', body), 404, 'not_found');
    const theirs = { ...body, test_id: idOf('a') };
    expectErrorBody(await api.post('flaky-tests/set-quarantine', theirs, TOKENS.globex), 404, 'not_found');
    expectErrorBody(
      await api.post('flaky-tests/set-quarantine', { ...theirs, org_url_slug: 'globex' }, TOKENS.globex),
      404,
    );
    expectErrorBody(await api.post('flaky-tests/set-quarantine', { ...theirs, setting: 'SOMETIMES' }), 400);
  });
});

describe('settings', () => {
  test('defaults, partial updates and validation', async () => {
    const defaults = (await post('flaky-tests/get-settings', { repo: REPO, org_url_slug: 'acme' })).body;
    expect(defaults).toEqual({
      auto_quarantine: false,
      stable_branches: ['main', 'master'],
      pass_on_retry: { enabled: true, resolution_days: 7 },
      failure_rate: {
        enabled: true,
        window_days: 7,
        activation_threshold: 0.2,
        resolution_threshold: 0.05,
        min_runs: 10,
        branches: 'all',
      },
      broken: { enabled: true, window_runs: 10, activation_threshold: 0.9, resolution_threshold: 0.5, min_runs: 5 },
      infrastructure_failure: { enabled: true, threshold: 0.8, min_tests: 5 },
    });
    const updated = await post('flaky-tests/update-settings', {
      repo: REPO,
      org_url_slug: 'acme',
      failure_rate: { activation_threshold: 0.3, branches: 'STABLE' },
    });
    expect(updated.body.failure_rate).toMatchObject({
      activation_threshold: 0.3,
      resolution_threshold: 0.05,
      branches: 'stable',
    });
    const bad = await api.post('flaky-tests/update-settings', {
      repo: REPO,
      org_url_slug: 'acme',
      broken: { resolution_threshold: 0.95 },
    });
    expect(expectErrorBody(bad, 400).message).toContain('resolution_threshold');
    expectErrorBody(
      await api.post('flaky-tests/update-settings', {
        repo: REPO,
        org_url_slug: 'acme',
        failure_rate: { window_days: 8 },
      }),
      400,
    );
  });
});

describe('organizations', () => {
  test('a token only ever sees its own organization’s tests', async () => {
    await upload([
      { name: 'secret', outcome: 'failed' },
      { name: 'retry', flakyFailures: ['x'] },
    ]);
    await post('flaky-tests/set-quarantine', {
      repo: REPO,
      org_url_slug: 'acme',
      test_id: idOf('secret'),
      setting: 'ALWAYS_QUARANTINE',
    });
    for (const slug of ['globex', 'acme', 'ACME']) {
      const asGlobex = (extra: Record<string, unknown>) => ({ ...extra, org_url_slug: slug });
      const failingAsGlobex = await post(
        'flaky-tests/list-failing-tests',
        asGlobex(listBody({ start_time: iso(NOW - DAY), end_time: iso(NOW + DAY) })),
        TOKENS.globex,
      );
      const unhealthyAsGlobex = await post(
        'flaky-tests/list-unhealthy-tests',
        asGlobex(listBody({ status: 'FLAKY' })),
        TOKENS.globex,
      );
      const quarantinedAsGlobex = await post('flaky-tests/list-quarantined-tests', asGlobex(listBody()), TOKENS.globex);
      expect([failingAsGlobex.status, unhealthyAsGlobex.status, quarantinedAsGlobex.status]).toEqual([200, 200, 200]);
      expect(failingAsGlobex.body.tests).toEqual([]);
      expect(unhealthyAsGlobex.body.tests).toEqual([]);
      expect(quarantinedAsGlobex.body.quarantined_tests).toEqual([]);
    }
    // And acme's own slug, in any case, sees them.
    expect((await unhealthy('FLAKY', 100, '', TOKENS.acme, { org_url_slug: 'ACME' })).body.tests).toHaveLength(1);
  });

  test('a page token of one organization is refused to another', async () => {
    await upload([
      { name: 'a', flakyFailures: ['x'] },
      { name: 'b', flakyFailures: ['x'] },
    ]);
    const token = (await unhealthy('FLAKY', 1)).body.page.next_page_token as string;
    expect(token).not.toBe('');
    expectErrorBody(
      await api.post('flaky-tests/list-unhealthy-tests', listBody({ status: 'FLAKY' }, 1, token), TOKENS.globex),
      400,
    );
    expectErrorBody(
      await api.post(
        'flaky-tests/list-unhealthy-tests',
        { ...listBody({ status: 'FLAKY' }, 1, token), org_url_slug: 'globex' },
        TOKENS.globex,
      ),
      400,
    );
  });
});

describe('page tokens', () => {
  test('are opaque, bound to their query, and rejected with 400 when forged', async () => {
    await upload(['a', 'b', 'c'].map((name) => ({ name, flakyFailures: ['x'] })));
    const first = (await unhealthy('FLAKY', 1)).body;
    const token = first.page.next_page_token as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect((await unhealthy('FLAKY', 1, token)).status).toBe(200);

    const [payload, signature] = token.split('.') as [string, string];
    const state = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...state, n: 0 })).toString('base64url')}.${signature}`;
    for (const bad of [forged, 'garbage', `${payload}.`, `${payload}.${signature}x`, `${token}.x`]) {
      expect(
        expectErrorBody(await api.post('flaky-tests/list-unhealthy-tests', listBody({ status: 'FLAKY' }, 1, bad)), 400)
          .message,
      ).toContain('page_token');
    }
    // The same token with another query: another status, page size, or listing.
    expectErrorBody(await api.post('flaky-tests/list-unhealthy-tests', listBody({ status: 'BROKEN' }, 1, token)), 400);
    expectErrorBody(await api.post('flaky-tests/list-unhealthy-tests', listBody({ status: 'FLAKY' }, 2, token)), 400);
    expectErrorBody(await api.post('flaky-tests/list-quarantined-tests', listBody({}, 1, token)), 400);
    expectErrorBody(
      await api.post('flaky-tests/list-unhealthy-tests', {
        ...listBody({ status: 'FLAKY' }, 1, token),
        repo: { ...REPO, name: 'other' },
      }),
      400,
    );
  });

  test('next, prev and last tokens walk the pages', async () => {
    await upload(['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, flakyFailures: ['x'] })));
    const first = (await unhealthy('FLAKY', 2)).body;
    expect(first.page).toMatchObject({ total_rows: 5, total_pages: 3, page_index: 0, prev_page_token: '' });
    const second = (await unhealthy('FLAKY', 2, first.page.next_page_token)).body;
    expect(second.page.page_index).toBe(1);
    const back = (await unhealthy('FLAKY', 2, second.page.prev_page_token)).body;
    expect(back.tests).toEqual(first.tests);
    expect(back.page.page_index).toBe(0);
    const last = (await unhealthy('FLAKY', 2, first.page.last_page_token)).body;
    expect(last.page).toMatchObject({ page_index: 2, next_page_token: '' });
    expect(last.tests).toHaveLength(1);
    const ids = [...first.tests, ...second.tests, ...last.tests].map((row: any) => row.id);
    expect(new Set(ids).size).toBe(5);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe("a test's page", () => {
  test('html_url serves the page, and get-test gives its data to the token of its organization only', async () => {
    await upload([{ name: 'shaky', outcome: 'failed', message: 'timeout after 30s' }, { name: 'fine' }]);
    await upload([{ name: 'shaky', outcome: 'failed', message: 'timeout after 31s' }], { commit_sha: sha(2) });
    const row = (await failing()).body.tests.find((test: any) => test.name === 'shaky');
    const url = new URL(row.html_url);
    // Without a dashboard session the page is the sign-in page, and shows nothing of the test.
    const anonymous = await api.app.inject({ method: 'GET', url: url.pathname });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['content-type']).toContain('text/html');
    expect(anonymous.body).not.toContain('shaky');
    expect(anonymous.body).toContain('action="/signin"');
    const sessionOf = async (token: string) => {
      const signin = await api.app.inject({
        method: 'POST',
        url: '/signin',
        payload: `token=${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(signin.statusCode).toBe(303);
      return String(signin.headers['set-cookie']).split(';')[0]!;
    };
    const page = await api.app.inject({
      method: 'GET',
      url: url.pathname,
      headers: { cookie: await sessionOf(TOKENS.acme) },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('shaky');
    expect(page.body).toContain('timeout after');
    const elsewhere = await api.app.inject({
      method: 'GET',
      url: url.pathname,
      headers: { cookie: await sessionOf(TOKENS.globex) },
    });
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.body).not.toContain('shaky');

    const detail = await post('flaky-tests/get-test', { test_id: row.id.toUpperCase() });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: row.id,
      name: 'shaky',
      html_url: row.html_url,
      repository: { html_url: 'https://github.com/acme/widgets', host: 'github.com', owner: 'acme', name: 'widgets' },
      most_common_failures: [{ summary: expect.stringContaining('timeout after'), occurrence_count: 2 }],
      quarantined: false,
      quarantine_setting: null,
    });
    expect((await post('flaky-tests/get-test', { test_id: row.id, org_url_slug: 'acme' })).status).toBe(200);
    expectErrorBody(await api.post('flaky-tests/get-test', { test_id: row.id }, TOKENS.globex), 404, 'not_found');
    expectErrorBody(
      await api.post('flaky-tests/get-test', { test_id: row.id, org_url_slug: 'globex' }),
      404,
      'not_found',
    );
    expectErrorBody(await api.post('flaky-tests/get-test', { test_id: 'not-a-uuid' }), 400);
  });
});
