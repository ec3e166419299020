/**
 * The PR, run and history pages and the actions on a PR, in headless Chromium against the real `greenline serve` (simulated
 * host, synthetic CI): the PR page read at a glance (its path chart fits its box, the current state in view), acting
 * with a token of scope admin (cancel confirmed, retest, priority, skip-the-line: each in the timeline with who did
 * it), a read token seeing no action and its forged posts refused 403, the history searched. Every page: axe with no
 * violation of any impact, no console error signed in or out (the sign-in redirect, the favicon), and at 390 px no
 * horizontal scroll and no word broken mid-word. Screenshots are kept in GREENLINE_SCREENSHOTS when set.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, runCli, startServer, stop, type Running } from '../e2e/process.js';
import { axeViolations, chromiumPath, launch, SKIP_MESSAGE, type Browser } from './browser.js';
import { brokenWords } from './words.js';

const CHROMIUM = chromiumPath();
if (CHROMIUM === undefined) console.warn(SKIP_MESSAGE);

const ACME = 'acme-pr-pages-token-0123456789';
const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const ENV = {
  GREENLINE_PROVIDER: 'sim',
  GREENLINE_SIM_CI: 'pass=1,median=0.03,p90=0.04,seed=7',
  GREENLINE_API_TOKENS: `acme:${ACME}`,
};

describe.skipIf(CHROMIUM === undefined)('PR, run and history pages in Chromium', () => {
  let dataDir = '';
  let shots = '';
  let server: Running;
  let browser: Browser;
  let page: Page;
  let queuePath = '';
  const visited = new Set<string>();
  const consoleErrors: string[] = [];

  const api = async (path: string, body: unknown) => {
    const response = await call(server, `/v1/${path}`, ACME, body);
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    return response.json();
  };
  const field = (name: string) => page.locator(`[data-field="${name}"]`);

  /** A page as people get it: screenshot, axe without any violation, its address kept for the narrow pass. */
  async function check(name: string): Promise<void> {
    visited.add(page.url());
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'greenline-pr-pages-'));
    shots = process.env.GREENLINE_SCREENSHOTS ?? (await mkdtemp(join(tmpdir(), 'greenline-screenshots-')));
    await mkdir(shots, { recursive: true });
    server = await startServer({ ...ENV, GREENLINE_DATA: dataDir });
    browser = await launch(CHROMIUM!);
    page = await browser.context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined) await stop(server);
    await rm(dataDir, { recursive: true, force: true });
    if (process.env.GREENLINE_SCREENSHOTS === undefined) await rm(shots, { recursive: true, force: true });
  });

  test('signed out, / leads to the sign-in page without an error, with its icon', async () => {
    const icons: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/favicon')) icons.push(response.status());
    });
    const response = await page.goto(`${server.url}/`);
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await check('signed-out');
    await expect.poll(() => icons).toContain(200);
    await page.getByLabel('API token').fill(ACME);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('h1', { hasText: 'Queues' }).waitFor();
    expect(consoleErrors).toEqual([]);
  });

  test("a merged PR's page: its state, the path it took in a chart that fits, the timeline in words, its run", async () => {
    await api('createQueue', { ...QUEUE, concurrency: 1 });
    for (const number of [1, 2]) await api('submitPullRequest', { ...QUEUE, pr: { number } });
    await page.goto(`${server.url}/`);
    await page.locator('.card a', { hasText: 'acme/widgets' }).click();
    await page.locator('h1', { hasText: 'acme/widgets' }).waitFor();
    // htmx puts the address in the history after the swap: wait for it, not only for the heading.
    await page.waitForURL(/\/queues\/[^/]+$/);
    queuePath = new URL(page.url()).pathname;
    await expect.poll(() => page.locator('tr[data-pr]').count()).toBe(0);

    await page.goto(`${server.url}${queuePath}/prs/1`);
    expect(await field('pr-state').getAttribute('data-state')).toBe('MERGED');
    expect(await field('path').textContent()).toBe('Not ready → Waiting in line → Testing → Tests passed → Merged');
    // The chart fits its box: nothing to scroll, and the current state is inside the box as drawn.
    const box = await page.locator('#pr-path').boundingBox();
    expect(await page.locator('#pr-path').evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    const current = await page.locator('#pr-path [data-id="MERGED"] rect').boundingBox();
    expect(current!.x).toBeGreaterThanOrEqual(box!.x);
    expect(current!.x + current!.width).toBeLessThanOrEqual(box!.x + box!.width + 1);
    expect(current!.y + current!.height).toBeLessThanOrEqual(box!.y + box!.height + 1);
    // The full chart is there on demand.
    expect(await page.locator('#pr-chart').isVisible()).toBe(false);
    await page.locator('summary', { hasText: 'The full state chart' }).click();
    await page.locator('#pr-chart').waitFor();
    // The timeline in words, each time relative with the exact one on hover.
    const merged = page.locator('ol.timeline li[data-event="merged"]');
    expect(await merged.locator('strong').textContent()).toBe('Merged');
    expect(await merged.locator('time').getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // Relative times move on by themselves: the same element (no redraw replaced it) says another time later.
    await expect
      .poll(() => page.evaluate<string | undefined>('document.documentElement.dataset.live'))
      .toBe('connected');
    const said = await merged.locator('time').evaluate((element) => {
      (element as unknown as { dataset: Record<string, string> }).dataset.mark = 'kept';
      return element.textContent;
    });
    // Within a minute of now it changes each second; later, at the next minute (so the budget is over a minute).
    await expect.poll(() => page.locator('time[data-mark="kept"]').textContent()).not.toBe(said);
    // The likelihood's arithmetic is not in the sentence; it is behind a closed disclosure.
    const ready = page.locator('ol.timeline li[data-event="ready"]');
    expect(await ready.locator(':scope > span').textContent()).toMatch(/^PR #1 by .+\. Chance it fails: \d+%\.$/);
    expect(await ready.locator('details').getAttribute('open')).toBeNull();
    expect(await field('actions').textContent()).toContain('no longer in the queue');
    await check('pr-merged');

    await page.locator('table.runs a').first().click();
    await page.locator('h1', { hasText: 'Test run' }).waitFor();
    expect(await field('run-status').textContent()).toBe('passed');
    expect(await field('run-duration').textContent()).toMatch(/\d+ s|min/);
    expect(await page.locator('ul.prs a', { hasText: '#1' }).count()).toBe(1);
    await check('run');
  });

  test('acting on a PR: priority, skip-the-line, restart, and a confirmed cancel, each in its timeline with who did it', async () => {
    await api('updateQueue', { ...QUEUE, state: 'paused' });
    for (const number of [3, 4, 5]) await api('submitPullRequest', { ...QUEUE, pr: { number } });
    await page.goto(`${server.url}${queuePath}/prs/5`);
    await expect.poll(() => field('pr-state').getAttribute('data-state')).toBe('PENDING');
    await expect.poll(() => field('position').textContent()).toBe('3 of 3');
    await check('pr-waiting');
    // How long it has been in the queue counts on by itself (the same element: no redraw replaced it).
    const counted = await field('in-queue')
      .locator('[data-since]')
      .evaluate((element) => {
        (element as unknown as { dataset: Record<string, string> }).dataset.mark = 'counting';
        return element.textContent;
      });
    await expect.poll(() => page.locator('[data-mark="counting"]').textContent()).not.toBe(counted);

    await page.getByLabel('Priority').selectOption('high');
    await page.getByRole('button', { name: 'Set priority' }).click();
    await expect.poll(() => field('priority').textContent()).toBe('high');
    await expect.poll(() => field('position').textContent()).toBe('1 of 3');
    await page.getByRole('button', { name: 'Skip the line' }).click();
    await expect.poll(() => field('priority').textContent()).toBe('high, skipping the line');
    await page.getByRole('button', { name: 'Restart tests' }).click();
    await page.locator('ol.timeline li[data-event="restarted"]').waitFor();

    // Cancel asks first; nothing happens until it is confirmed.
    await page.locator('summary', { hasText: 'Cancel…' }).click();
    await check('pr-cancel-confirm');
    expect(await field('pr-state').getAttribute('data-state')).toBe('PENDING');
    await page.getByRole('button', { name: 'Yes, cancel #5' }).click();
    await expect.poll(() => field('pr-state').getAttribute('data-state')).toBe('CANCELLED');
    const lines = await page.locator('ol.timeline li').allTextContents();
    for (const what of ['submitted again by token', 'restart asked by token', 'cancelled by token']) {
      expect(
        lines.some((line) => line.toLowerCase().includes(what) && line.includes('(dashboard)')),
        what,
      ).toBe(true);
    }
    expect(consoleErrors).toEqual([]);
  });

  test('the history lists ended PRs with why, how long and their runs; search by number, title, author', async () => {
    await page.goto(`${server.url}${queuePath}`);
    await page.getByRole('link', { name: 'History of ended PRs' }).click();
    await page.locator('table.history').waitFor();
    expect(
      await page
        .locator('table.history tr[data-pr]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-pr'))),
    ).toEqual(['5', '2', '1']);
    expect(await page.locator('tr[data-pr="5"]').textContent()).toContain('cancelled by token');
    await check('history');
    await page.getByLabel('Number, title or author').fill('#2');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('table.history tr[data-pr]').count()).toBe(1);
    await page.getByLabel('Number, title or author').fill('no such words anywhere');
    await page.getByRole('button', { name: 'Search' }).click();
    await field('history-empty').waitFor();
    await check('history-no-match');
  });

  test('a read token sees no action and no control; its forged or out-of-scope posts are refused 403', async () => {
    const created = await runCli(['token', 'create', '--org', 'acme', '--scope', 'read'], { GREENLINE_DATA: dataDir });
    const token = /glt_[A-Za-z0-9_-]+/.exec(created.stdout)![0];
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('h1', { hasText: 'Queues' }).waitFor();
    await page.goto(`${server.url}${queuePath}/prs/4`);
    expect(await page.locator('main button').count()).toBe(0);
    expect(await field('actions').textContent()).toContain('may only read');
    await check('pr-read-only');
    await page.goto(`${server.url}${queuePath}`);
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(0);
    expect(await page.locator('summary', { hasText: 'Settings' }).count()).toBe(0);
    await check('queue-read-only');
    // Posts with the session's cookie: without its CSRF token, then with it but beyond the token's scope.
    const csrf = await page.locator('input[name="_csrf"]').first().getAttribute('value');
    const cancel = `${server.url}${queuePath}/prs/4/cancel`;
    expect((await page.request.post(cancel, { form: {}, maxRedirects: 0 })).status()).toBe(403);
    expect((await page.request.post(cancel, { form: { _csrf: 'forged' }, maxRedirects: 0 })).status()).toBe(403);
    const outOfScope = await page.request.post(cancel, { form: { _csrf: csrf! }, maxRedirects: 0 });
    expect(outOfScope.status()).toBe(403);
    expect(await outOfScope.text()).toContain('scope');
    const pr = (await api('getSubmittedPullRequest', { ...QUEUE, pr: { number: 4 } })) as { state: string };
    expect(pr.state).toBe('PENDING');
  });

  test('the device sign-in page and the flaky-test landing page', async () => {
    await page.goto(`${server.url}/device`);
    await page.locator('h1').waitFor();
    await check('device');
    await page.goto(`${server.url}/flaky`);
    await page.locator('h1').waitFor();
    await check('flaky-landing');
  });

  test('every page visited: no console error, and at 390 px no horizontal scroll, no word broken mid-word, no axe violation', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const url of visited) {
      await page.goto(url);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), url).toBeLessThanOrEqual(390);
      expect(await brokenWords(page), url).toEqual([]);
      expect(await axeViolations(page), url).toEqual([]);
      await page.screenshot({
        path: join(shots, `narrow-${new URL(url).pathname.replace(/\W+/g, '-')}.png`),
        fullPage: true,
      });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(consoleErrors).toEqual([]);
    expect(browser.offLoopback).toEqual([]);
  });
});
