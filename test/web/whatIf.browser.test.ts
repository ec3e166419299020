/**
 * The queue page's "what if" panel in headless Chromium against the real `greenline serve`, on a data folder a
 * simulated queue was run into (the real engine on LMDB, sim/queueRun.ts): an admin asks for the comparison, the page
 * says it runs and then shows, without a reload, the current settings against the recommender's pick on the queue's
 * own fitted workload. axe finds no violation at 1280 and 390 px, nothing scrolls sideways at 390 px, and the browser
 * logs no error. Screenshots are kept in GREENLINE_SCREENSHOTS when set.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SIM_KEY } from '../../sim/queueRun.js';
import { simulatedHistory } from './whatIfHistory.js';
import { startServer, stop, type Running } from '../e2e/process.js';
import {
  axeViolations,
  chromiumPath,
  launch,
  SKIP_MESSAGE,
  watchErrors,
  type Browser,
  type PageErrors,
} from './browser.js';
import { brokenWords } from './words.js';

const CHROMIUM = chromiumPath();
if (CHROMIUM === undefined) console.warn(SKIP_MESSAGE);

const TOKEN = 'sim-what-if-token-0123456789';

describe.skipIf(CHROMIUM === undefined)('the what-if panel in Chromium', () => {
  let dir = '';
  let shots = '';
  let server: Running;
  let browser: Browser;
  let page: Page;
  let errors: PageErrors;

  async function axe(): Promise<void> {
    expect(await axeViolations(page)).toEqual([]);
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'greenline-what-if-browser-'));
    shots = process.env.GREENLINE_SCREENSHOTS ?? (await mkdtemp(join(tmpdir(), 'greenline-screenshots-')));
    await mkdir(shots, { recursive: true });
    await simulatedHistory(join(dir, 'data'), 5);
    server = await startServer({
      GREENLINE_DATA: join(dir, 'data'),
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_API_TOKENS: `${SIM_KEY.org}:${TOKEN}`,
    });
    browser = await launch(CHROMIUM!);
    page = await browser.context.newPage();
    errors = watchErrors(page);
  });

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined) await stop(server);
    await rm(dir, { recursive: true, force: true });
    if (process.env.GREENLINE_SCREENSHOTS === undefined) await rm(shots, { recursive: true, force: true });
  });

  test('an admin asks; the page shows it running, then the current settings against the pick, live', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.card a', { hasText: 'sim/repo' }).click();
    await page.locator('h2', { hasText: 'What if' }).waitFor();
    await axe();
    await page.evaluate('window.marker = 1');
    await page.getByRole('button', { name: 'Compare with the recommended settings' }).click();
    await expect
      .poll(() => page.locator('[data-field="what-if-status"]').textContent())
      .toMatch(/Fitting and simulating|Waiting|Simulated/);
    // The fit and the recommender's search run in a child process: waited for as long as the project's budget allows.
    await page.locator('table.what-if').waitFor();
    expect(await page.evaluate<number>('window.marker')).toBe(1);
    expect(await page.locator('[data-field="what-if-pick"]').textContent()).toMatch(/concurrency \d+/);
    const p50 = page.locator('table.what-if tr', { hasText: 'P50 time to merge' });
    expect(await p50.locator('td').allTextContents()).toEqual([
      expect.stringMatching(/^\d+\.\d$/),
      expect.stringMatching(/^\d+\.\d$/),
      expect.stringMatching(/^\d+\.\d\d×$/),
    ]);
    await page.locator('summary', { hasText: 'The workload fitted' }).click();
    expect(await page.locator('#what-if-fit li', { hasText: 'arrivals per hour' }).count()).toBe(1);
    await page.screenshot({ path: join(shots, 'what-if.png'), fullPage: true });
    await axe();

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await brokenWords(page)).toEqual([]);
    await axe();
    await page.screenshot({ path: join(shots, 'narrow-what-if.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(errors.unexpected([])).toEqual([]);
    expect(browser.offLoopback).toEqual([]);
  });
});
