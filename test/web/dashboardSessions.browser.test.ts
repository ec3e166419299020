/**
 * The dashboard's sessions in a real browser (headless Chromium), against the real `greenline serve` on the simulated
 * host: signing out ends the session, and an open page whose token is revoked shows the sign-in form at the next
 * change, its live stream ended rather than refused. (The pages themselves: dashboard.browser.test.ts.)
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, runCli, type Running } from '../e2e/process.js';
import { chromiumPath, SKIP_MESSAGE, type Browser, type PageErrors } from './browser.js';
import { ACME, closeDashboard, openDashboard, QUEUE } from './dashboardFixture.js';

const CHROMIUM = chromiumPath();
if (CHROMIUM === undefined) console.warn(SKIP_MESSAGE);

describe.skipIf(CHROMIUM === undefined)('dashboard sessions in Chromium', () => {
  let dataDir = '';
  let shots = '';
  let server: Running;
  let browser: Browser;
  let page: Page;
  let errors: PageErrors;
  let queuePath = '';
  const provoked: { path: string; status: number }[] = [];

  const submit = async (number: number) => {
    const response = await call(server, '/v1/submitPullRequest', ACME, { ...QUEUE, pr: { number } });
    expect(response.status, await response.clone().text()).toBe(200);
  };

  beforeAll(async () => {
    ({ dataDir, shots, server, browser, page, errors } = await openDashboard(CHROMIUM!));
    expect((await call(server, '/v1/createQueue', ACME, { ...QUEUE, concurrency: 2, state: 'paused' })).status).toBe(
      200,
    );
    await page.goto(`${server.url}/`);
    await page.getByLabel('API token').fill(ACME);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.card', { hasText: 'acme/widgets' }).getByRole('link').click();
    await page.waitForURL(/\/queues\/[^/]+$/);
    queuePath = new URL(page.url()).pathname;
  });

  afterAll(async () => {
    await closeDashboard({ dataDir, shots, server, browser });
  });

  test('signing out ends the session', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('h1', { hasText: 'Sign in' }).waitFor();
    await page.goto(`${server.url}/charts`);
    await page.locator('h1', { hasText: 'Sign in' }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(browser.offLoopback).toEqual([]);
  });

  test('an open page whose token is revoked shows the sign-in form at the next change', async () => {
    const created = await runCli(['token', 'create', '--org', 'acme'], { GREENLINE_DATA: dataDir });
    expect(created.code).toBe(0);
    const token = /glt_[A-Za-z0-9_-]+/.exec(created.stdout)![0];
    await page.goto(`${server.url}/signin?next=${encodeURIComponent(queuePath)}`);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('h1', { hasText: 'acme/widgets' }).waitFor();
    await expect
      .poll(() => page.evaluate<string | undefined>('document.documentElement.dataset.live'))
      .toBe('connected');
    const listed = await runCli(['token', 'list'], { GREENLINE_DATA: dataDir });
    const id = listed.stdout
      .split('\n')
      .find((line) => line.includes('cli'))!
      .split(/\s+/)[0]!;
    expect((await runCli(['token', 'revoke', id], { GREENLINE_DATA: dataDir })).code).toBe(0);
    await submit(6);
    await expect
      .poll(() => page.evaluate<string | undefined>('document.documentElement.dataset.live'))
      .toBe('signed-out');
    await page.locator('#live form[action="/signin"]').waitFor();
    expect(await page.locator('tr[data-pr="6"]').count()).toBe(0);
    // The stream was ended and not refused (a 401 to the browser's reconnection is logged as an error), and the page
    // stopped listening: another change reaches no stream of that session and asks for nothing.
    await submit(7);
    await expect
      .poll(() => page.evaluate<string | undefined>('document.documentElement.dataset.live'))
      .toBe('signed-out');
    expect(errors.unexpected(provoked)).toEqual([]);
  });
});
