/** The flaky-test endpoints over HTTP, uploads and listings (Fastify inject), on the memory store and the harness' virtual clock. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, type Api } from '../api/harness.js';
import { DAY, HOUR, junitXml, listBody, uploadBody } from './helpers.js';
import { flakyHttp, idOf, iso, NOW, sha } from './httpCalls.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const { post, upload, failing, unhealthy, quarantined, flakyStored } = flakyHttp(() => api);

describe('POST /v1/flaky-tests/upload', () => {
  test('answers the counts of distinct tests', async () => {
    const { status, body } = await post('flaky-tests/upload', {
      ...uploadBody([]),
      reports: [
        {
          file: 'a.xml',
          xml: junitXml([{ name: 'p' }, { name: 'f', outcome: 'failed' }, { name: 's', outcome: 'skipped' }]),
        },
        { file: 'b.xml', xml: junitXml([{ name: 'e', outcome: 'error' }, { name: 'f' }]) },
      ],
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      upload_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tests: 4,
      passed: 1,
      failed: 2,
      skipped: 1,
      infrastructure_failure: false,
      already_stored: false,
    });
  });

  test('a report that is not JUnit XML makes the whole upload 400, naming the file, and stores nothing', async () => {
    const response = await api.post('flaky-tests/upload', {
      ...uploadBody([]),
      reports: [
        { file: 'good.xml', xml: junitXml([{ name: 'a', outcome: 'failed' }]) },
        { file: 'reports/broken-report.xml', xml: '<testsuites><testsuite name="x"><testcase name="a">' },
      ],
    });
    const error = expectErrorBody(response, 400, 'bad_request');
    expect(error.message).toContain('reports/broken-report.xml');
    expect(error.message).toContain('nothing of this upload was stored');
    expect(flakyStored()).toBe(0);
    expect((await failing()).body.tests).toEqual([]);
  });

  test('validates its body, accepting what CI sends', async () => {
    const ok = await upload([{ name: 'a' }], {
      pr_number: '42',
      branch: 'refs/heads/feature/x',
      commit_sha: 'ABCDEF1',
      timestamp: iso(NOW - HOUR),
      job_url: 'https://ci.example.com/job/1',
      variant: 'linux',
      unknown_field: true,
    });
    expect(ok.status).toBe(200);
    for (const [field, value] of [
      ['commit_sha', 'not-a-sha'],
      ['branch', ''],
      ['reports', []],
      ['reports', Array.from({ length: 1001 }, (_, i) => ({ file: `${i}.xml`, xml: '<testsuite/>' }))],
      ['timestamp', 'yesterday'],
      ['pr_number', -1],
      ['repo', { host: 'github.com', owner: 'acme' }],
    ] as const) {
      const response = await api.post('flaky-tests/upload', { ...uploadBody([{ name: 'a' }]), [field]: value });
      const error = expectErrorBody(response, 400, 'bad_request');
      expect(error.details?.[0]?.field, field).toMatch(new RegExp(`^${field}`));
    }
  });

  test('an organization slug other than the token’s is refused without saying whether it exists', async () => {
    expectErrorBody(await api.post('flaky-tests/upload', uploadBody([{ name: 'a' }], { org_url_slug: 'globex' })), 404);
    expectErrorBody(await api.post('flaky-tests/upload', uploadBody([{ name: 'a' }], { org_url_slug: 'nobody' })), 404);
    expect((await upload([{ name: 'a' }], { org_url_slug: undefined })).status).toBe(200);
  });
});

describe('the listings', () => {
  test('failing tests carry every field of the spec, and the page object', async () => {
    await upload([{ name: 'a', outcome: 'failed', file: 'src/a.test.ts' }], {
      codeowners: '* @acme/everyone\nsrc/ @acme/src\n',
    });
    const { status, body } = await failing();
    expect(status).toBe(200);
    expect(body.page).toEqual({
      total_rows: 1,
      total_pages: 1,
      next_page_token: '',
      prev_page_token: '',
      last_page_token: expect.any(String),
      page_index: 0,
    });
    const id = idOf('a', { file: 'src/a.test.ts' });
    expect(body.tests).toEqual([
      {
        id,
        repository: { html_url: 'https://github.com/acme/widgets' },
        html_url: `http://localhost:8080/tests/${id}`,
        name: 'a',
        variant: '',
        status: { value: 'healthy', reason: expect.any(String), timestamp: iso(NOW) },
        most_common_failures: [{ summary: 'assertion failed', occurrence_count: 1, last_occurrence: iso(NOW) }],
        failure_rate_last_7d: 1,
        failure_rate_last_24h: 1,
        codeowners: ['@acme/src'],
        pull_requests_impacted_last_7d: 0,
        quarantined: false,
        file_path: 'src/a.test.ts',
        parent: 'suite',
        classname: 'Suite',
      },
    ]);
  });

  test('unhealthy tests: the failing fields less failures and rates; status accepted in either case', async () => {
    await upload([{ name: 'a', flakyFailures: ['x'] }]);
    const { body } = await unhealthy('flaky');
    expect(Object.keys(body.tests[0]).sort()).toEqual(
      [
        'id',
        'repository',
        'html_url',
        'name',
        'variant',
        'status',
        'codeowners',
        'pull_requests_impacted_last_7d',
        'quarantined',
        'file_path',
        'parent',
        'classname',
      ].sort(),
    );
    expect(body.tests[0].status).toMatchObject({ value: 'flaky', reason: expect.stringMatching(/^pass_on_retry/) });
    expect((await unhealthy('BROKEN')).body.tests).toEqual([]);
    expectErrorBody(await api.post('flaky-tests/list-unhealthy-tests', listBody({ status: 'SICK' })), 400);
  });

  test('the failing window: start inclusive, end exclusive, at most 7 days', async () => {
    await upload([{ name: 'a', outcome: 'failed' }]);
    const count = async (start: number, end: number) => {
      const response = await failing({ start_time: iso(start), end_time: iso(end) });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.page.total_rows as number;
    };
    expect(await count(NOW, NOW + 1)).toBe(1);
    expect(await count(NOW - HOUR, NOW)).toBe(0);
    expect(await count(NOW + 1 - 7 * DAY, NOW + 1)).toBe(1);
    const tooLong = await api.post(
      'flaky-tests/list-failing-tests',
      listBody({ start_time: iso(NOW - 7 * DAY - 1), end_time: iso(NOW + 1) }),
    );
    expect(expectErrorBody(tooLong, 400).message).toContain('end_time');
    expectErrorBody(
      await api.post('flaky-tests/list-failing-tests', listBody({ start_time: iso(NOW), end_time: iso(NOW - 1) })),
      400,
    );
  });

  test('page_size is 1 to 100', async () => {
    for (const size of [0, 101, 1.5])
      expectErrorBody(await api.post('flaky-tests/list-quarantined-tests', listBody({}, size)), 400);
    expect((await quarantined(1)).status).toBe(200);
    expect((await quarantined(100)).status).toBe(200);
  });

  test('most common failures are normalised, counted and dated', async () => {
    await upload([{ name: 'a', outcome: 'failed', message: 'timeout after 31s at 2026-11-22T11:59:01Z' }], {
      commit_sha: sha(1),
    });
    api.clock.advanceTo(NOW + HOUR);
    await upload([{ name: 'a', outcome: 'failed', message: 'timeout after 45s at 2026-11-22T12:59:59Z' }], {
      commit_sha: sha(2),
    });
    await upload([{ name: 'a', outcome: 'failed', message: 'object 0x7ffe12 freed twice' }], { commit_sha: sha(3) });
    const [row] = (await failing()).body.tests;
    expect(row.most_common_failures).toEqual([
      { summary: 'timeout after <n>s at <timestamp>', occurrence_count: 2, last_occurrence: iso(NOW + HOUR) },
      { summary: 'object <address> freed twice', occurrence_count: 1, last_occurrence: iso(NOW + HOUR) },
    ]);
  });

  test('failure rates over the last 7 days and 24 hours; PRs impacted in the last 7 days', async () => {
    await upload([{ name: 'a', outcome: 'failed' }], {
      commit_sha: sha(1),
      pr_number: 1,
      timestamp: iso(NOW - 30 * HOUR),
    });
    await upload([{ name: 'a', outcome: 'failed' }], {
      commit_sha: sha(2),
      pr_number: 2,
      timestamp: iso(NOW - 2 * HOUR),
    });
    await upload([{ name: 'a', outcome: 'failed' }], { commit_sha: sha(3), pr_number: 2 });
    await upload([{ name: 'a' }], { commit_sha: sha(4), pr_number: 3 });
    const [row] = (await failing({ start_time: iso(NOW - 2 * DAY), end_time: iso(NOW + 1) })).body.tests;
    expect(row).toMatchObject({
      failure_rate_last_7d: 0.75,
      failure_rate_last_24h: 2 / 3,
      pull_requests_impacted_last_7d: 2,
    });
    api.clock.advanceTo(NOW + 8 * DAY);
    const [later] = (await failing({ start_time: iso(NOW - 2 * DAY), end_time: iso(NOW + 1) })).body.tests;
    expect(later).toMatchObject({
      failure_rate_last_7d: 0,
      failure_rate_last_24h: 0,
      pull_requests_impacted_last_7d: 0,
    });
  });

  test('codeowners follow GitHub’s rules: the last matching line wins', async () => {
    const codeowners = [
      '*       @org/all',
      '/src/   @org/src',
      '*.py    @org/python',
      'src/legacy/ ',
      '# src/ @nobody',
    ].join('\n');
    await upload(
      [
        { name: 'js', outcome: 'failed', file: 'src/a.test.js' },
        { name: 'py', outcome: 'failed', file: './src/b_test.py' },
        { name: 'legacy', outcome: 'failed', file: 'src/legacy/c.test.js' },
        { name: 'docs', outcome: 'failed', file: 'docs/d.test.js' },
      ],
      { codeowners },
    );
    const owners = Object.fromEntries((await failing()).body.tests.map((row: any) => [row.name, row.codeowners]));
    expect(owners).toEqual({ js: ['@org/src'], py: ['@org/python'], legacy: [], docs: ['@org/all'] });
  });
});
