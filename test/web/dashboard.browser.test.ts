/**
 * The dashboard in a real browser (headless Chromium), against the real `greenline serve` on the simulated host
 * with the synthetic CI: sign-in, a queue moving live, pause and resume, a PR's timeline and highlighted chart,
 * quarantining a test, a restart the page reconnects after (sign-out: dashboardSessions.browser.test.ts); every page
 * screenshotted, checked by axe-core (no violation of any impact) and at 390 px wide (no horizontal scroll, no word
 * broken mid-word).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { junitXml } from '../flaky/helpers.js';
import { call, startServer, stop, type Running } from '../e2e/process.js';
import { axeViolations, chromiumPath, SKIP_MESSAGE, type Browser, type PageErrors } from './browser.js';
import {
  ACME,
  closeDashboard,
  computedStyle,
  computedStyles,
  ENV,
  GLOBEX,
  openDashboard,
  QUEUE,
  REPO,
} from './dashboardFixture.js';
import { brokenWords } from './words.js';

const CHROMIUM = chromiumPath();
if (CHROMIUM === undefined) console.warn(SKIP_MESSAGE);

describe.skipIf(CHROMIUM === undefined)('the dashboard in Chromium', () => {
  let dataDir = '';
  let shots = '';
  let server: Running;
  let browser: Browser;
  let page: Page;
  let queuePath = '';
  const pages: string[] = [];
  /** What the browser logged as errors and the answers of 400 or more it was given: none may be, signed in or not, */
  let errors: PageErrors;
  /** but those to the bad input this test sends on purpose (its path, and the status it must get). */
  const provoked: { path: string; status: number }[] = [];

  const api = async (path: string, body: unknown, token = ACME) => {
    const response = await call(server, `/v1/${path}`, token, body);
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    return response.json();
  };
  const submit = (number: number) => api('submitPullRequest', { ...QUEUE, pr: { number } });

  async function check(name: string): Promise<void> {
    pages.push(page.url());
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
  }

  beforeAll(async () => {
    ({ dataDir, shots, server, browser, page, errors } = await openDashboard(CHROMIUM!));
  });

  afterAll(async () => {
    await closeDashboard({ dataDir, shots, server, browser });
  });

  test('a request without a session gets the sign-in page; a wrong token is refused; a right one signs in', async () => {
    const anonymous = await fetch(`${server.url}/queues/anything`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain('action="/signin"');

    await page.goto(`${server.url}/`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
    await check('signin');
    provoked.push({ path: '/signin', status: 401 });
    await page.getByLabel('API token').fill('not-a-token-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That API token is not valid.').waitFor();

    await page.getByLabel('API token').fill(ACME);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('h1', { hasText: 'Queues' }).waitFor();
    expect(await page.locator('.org strong').textContent()).toBe('acme');
    const cookies = await browser.context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'greenline_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(session!.value).not.toContain(ACME);
    expect(page.url()).not.toContain(ACME);
    expect(
      await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })'),
    ).not.toContain(ACME);
  });

  test('the organization page shows a new queue live, and the queue page moves PRs live until they merge', async () => {
    await page.evaluate('window.marker = 1');
    await api('createQueue', { ...QUEUE, concurrency: 2 });
    const card = page.locator('.card', { hasText: 'acme/widgets' });
    await card.waitFor();
    await check('organization');

    await card.getByRole('link').click();
    await page.locator('h1', { hasText: 'acme/widgets' }).waitFor();
    // htmx puts the address in the history after the swap: wait for it, not only for the heading.
    await page.waitForURL(/\/queues\/[^/]+$/);
    queuePath = new URL(page.url()).pathname;
    await page.evaluate('window.marker = 2');
    for (const number of [1, 2, 3]) await submit(number);
    // The rows appear without a reload...
    await page.locator('tr[data-pr="3"]').waitFor();
    await page.locator('.run').first().waitFor();
    await check('queue');
    // ...and leave the line-up as the PRs merge.
    await page.locator('tr[data-pr]').first().waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('tr[data-pr]').count()).toBe(0);
    expect(await page.evaluate<number>('window.marker')).toBe(2);
  });

  test('pause holds the queue and resume lets it go on', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.locator('[data-field="queue-state"]').textContent()).toBe('paused');
    await submit(4);
    const row = page.locator('tr[data-pr="4"]');
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('the queue to be resumed');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await row.locator('.state').textContent()).toBe('PENDING');

    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.locator('[data-field="queue-state"]').textContent()).toBe('running');
    await row.waitFor({ state: 'detached' });
  });

  test('the settings form saves valid settings and says which field is wrong', async () => {
    await page.locator('summary', { hasText: 'Settings' }).click();
    provoked.push({ path: queuePath, status: 400 }, { path: `${queuePath}/settings`, status: 400 });
    await page.getByLabel('Concurrency', { exact: true }).fill('0');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('.error', { hasText: 'concurrency' }).waitFor();
    await page.locator('summary', { hasText: 'Settings' }).click();
    await page.getByLabel('Concurrency', { exact: true }).fill('3');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('#live').textContent()).toContain('concurrency 3');
    const queue = (await api('getQueue', QUEUE)) as { concurrency: number };
    expect(queue.concurrency).toBe(3);
  });

  test("a PR's page shows its timeline and its state chart with the path taken and the current state", async () => {
    await page.goto(`${server.url}${queuePath}/prs/1`);
    await expect.poll(() => page.locator('[data-field="pr-state"]').getAttribute('data-state')).toBe('MERGED');
    const path = await page.locator('[data-field="path"]').textContent();
    expect(path).toBe('Not ready → Waiting in line → Testing → Tests passed → Merged');
    expect(await page.locator('ol.timeline li', { hasText: 'Merged into main' }).count()).toBe(1);
    const fill = (state: string) => computedStyle(page.locator(`#pr-chart [data-id="${state}"] rect`), 'fill');
    expect(await fill('MERGED')).toBe('rgb(255, 211, 61)');
    expect(await fill('FAILED')).not.toBe('rgb(255, 211, 61)');
    const edge = (from: string, to: string) => page.locator(`#pr-chart polyline[data-from="${from}"][data-to="${to}"]`);
    expect(await computedStyle(edge('TESTING', 'TESTS_PASSED'), 'strokeWidth')).toBe('3px');
    // Every edge not taken is thin (TESTING has two to PENDING_FAILURE: its own failure, and a conflict).
    const notTaken = await computedStyles(edge('TESTING', 'PENDING_FAILURE'), 'strokeWidth');
    expect(notTaken.length).toBeGreaterThan(0);
    expect(notTaken.every((width) => width === '1px')).toBe(true);
    expect(await page.locator('table.runs .state').first().textContent()).toBe('passed');
    await check('pull-request');
  });

  test('the state charts page draws the four machines with the counts of now', async () => {
    await page.goto(`${server.url}/charts`);
    expect(await page.locator('.chart svg').count()).toBe(4);
    const count = (machine: string, state: string) =>
      page.locator(`table[data-machine="${machine}"] tr[data-state="${state}"] td`).nth(1).textContent();
    expect(await count('pullRequest', 'MERGED')).toBe('4');
    expect(await count('queue', 'running')).toBe('1');
    expect(Number(await count('testRun', 'succeeded'))).toBeGreaterThan(0);
    await check('state-charts');
  });

  test('a failing test can be found in the listings and quarantined from its page', async () => {
    const cases = [
      { name: 'shaky_login', outcome: 'failed' as const, message: 'timeout after 30s' },
      { name: 'steady' },
    ];
    await api('flaky-tests/upload', {
      repo: REPO,
      org_url_slug: 'acme',
      commit_sha: 'b'.repeat(40),
      branch: 'main',
      reports: [{ file: 'junit.xml', xml: junitXml(cases) }],
    });
    await page.goto(`${server.url}/flaky`);
    await page.getByLabel('Repository').selectOption('github.com/acme/widgets');
    await page.getByLabel('Listing').selectOption('failing');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('table.tests').waitFor();
    await check('flaky-failing');
    await page.getByRole('link', { name: 'shaky_login' }).click();
    await page.locator('h1', { hasText: 'shaky_login' }).waitFor();
    expect(await page.locator('[data-field="quarantine"]').textContent()).toBe('no');
    await page.getByRole('button', { name: 'Quarantine', exact: true }).click();
    await expect.poll(() => page.locator('[data-field="quarantine"]').textContent()).toBe('yes (ALWAYS_QUARANTINE)');
    await check('flaky-test');
    await page.goto(`${server.url}/flaky?repo=github.com/acme/widgets&list=quarantined`);
    expect(await page.locator('table.tests tr[data-test]').count()).toBe(1);
    provoked.push({ path: '/flaky?repo=github.com/acme/widgets&list=bogus', status: 400 });
    await page.goto(`${server.url}/flaky?repo=github.com/acme/widgets&list=bogus`);
    await page.locator('.error', { hasText: 'list must be one of' }).waitFor();
  });

  test('an admin adds a webhook endpoint from the navigation, sees its secret once, then its deliveries', async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(/\/webhooks$/);
    await page.fill('input[name="url"]', 'http://127.0.0.1:9/greenline');
    await page.fill('input[name="description"]', 'build bot');
    await page.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => page.locator('.notice code').textContent()).toMatch(/^whsec_/);
    await check('webhooks');
    await page.goto(`${server.url}/webhooks`);
    expect(await page.locator('.notice code').count()).toBe(0);
    await page.getByRole('link', { name: 'build bot' }).click();
    await page.waitForURL(/\/webhooks\/[^/]+$/);
    await check('webhook-deliveries');
  });

  test("another organization's queue is not found", async () => {
    const signin = await fetch(`${server.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${GLOBEX}`,
    });
    expect(signin.status).toBe(303);
    const cookie = signin.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${server.url}${queuePath}`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(`${server.url}${queuePath}/prs/1`, { headers: { cookie } })).status).toBe(404);
    const home = await (await fetch(`${server.url}/`, { headers: { cookie } })).text();
    expect(home).toContain('globex');
    expect(home).not.toContain('acme/widgets');
  });

  test('every page works 390 px wide, axe included', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [index, url] of [...new Set(pages)].entries()) {
      await page.goto(url);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(width, url).toBeLessThanOrEqual(390);
      expect(await brokenWords(page), url).toEqual([]);
      // axe at this width too: what a narrow layout hides, overlaps or shrinks.
      expect(await axeViolations(page), url).toEqual([]);
      await page.screenshot({ path: join(shots, `narrow-${index}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('an open page reconnects after a restart and goes on updating live', async () => {
    await page.goto(`${server.url}${queuePath}`);
    await page.evaluate('window.marker = 3');
    await expect
      .poll(() => page.evaluate<string | undefined>('document.documentElement.dataset.live'))
      .toBe('connected');
    const port = new URL(server.url).port;
    const before = errors.console.length;
    await stop(server);
    await expect
      .poll(() => page.evaluate<string | undefined>('document.documentElement.dataset.live'))
      .toBe('reconnecting');
    server = await startServer({ ...ENV, GREENLINE_DATA: dataDir, PORT: port });
    await expect
      .poll(() => page.evaluate<string | undefined>('document.documentElement.dataset.live'))
      .toBe('connected');
    // While the service was down, the browser said it could not reach it: that, and only that, is expected.
    const whileDown = errors.console.splice(before);
    expect(whileDown.filter((line) => !line.includes('ERR_CONNECTION_REFUSED'))).toEqual([]);
    await api('updateQueue', { ...QUEUE, state: 'paused' });
    await submit(5);
    await page.locator('tr[data-pr="5"]').waitFor();
    expect(await page.evaluate<number>('window.marker')).toBe(3);
  });

  test('every page was screenshotted', async () => {
    const files = await readdir(shots);
    for (const name of [
      'signin',
      'organization',
      'queue',
      'pull-request',
      'state-charts',
      'flaky-failing',
      'flaky-test',
      'webhooks',
      'webhook-deliveries',
    ]) {
      expect(files).toContain(`${name}.png`);
      expect((await stat(join(shots, `${name}.png`))).size).toBeGreaterThan(1000);
    }
    expect(files.filter((name) => name.startsWith('narrow-')).length).toBe(new Set(pages).size);
    // Nothing the pages did logged an error or got an answer of 400 or more but what was provoked, or left loopback.
    expect(errors.unexpected(provoked)).toEqual([]);
    expect(browser.offLoopback).toEqual([]);
  });
});
