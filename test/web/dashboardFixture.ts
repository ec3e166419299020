/**
 * The dashboard browser test's set-up (dashboard.browser.test.ts): the real `greenline serve` on the simulated host
 * with the synthetic CI, headless Chromium with one page whose errors are watched, a folder for screenshots; and the
 * checks it makes of each page (axe-core, computed styles).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { startServer, stop, type Running } from '../e2e/process.js';
import { launch, watchErrors, type Browser, type PageErrors } from './browser.js';

export const ACME = 'acme-dashboard-token-0123456789';
export const GLOBEX = 'globex-dashboard-token-0123456789';
export const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const QUEUE = { repo: REPO, targetBranch: 'main' };
export const ENV = {
  GREENLINE_PROVIDER: 'sim',
  // Every run passes, in about two seconds.
  GREENLINE_SIM_CI: 'pass=1,median=0.03,p90=0.04,seed=7',
  GREENLINE_API_TOKENS: `acme:${ACME},globex:${GLOBEX}`,
  // The webhook endpoint below is on loopback (nothing listens there: its deliveries are retried, never sent away).
  GREENLINE_WEBHOOKS_ALLOW_PRIVATE: '1',
};

export interface Dashboard {
  dataDir: string;
  shots: string;
  server: Running;
  browser: Browser;
  page: Page;
  errors: PageErrors;
}

export async function openDashboard(chromium: string): Promise<Dashboard> {
  const dataDir = await mkdtemp(join(tmpdir(), 'greenline-dashboard-'));
  // GREENLINE_SCREENSHOTS keeps them in a folder of one's choice; otherwise a temporary one, removed at the end.
  const shots = process.env.GREENLINE_SCREENSHOTS ?? (await mkdtemp(join(tmpdir(), 'greenline-screenshots-')));
  await mkdir(shots, { recursive: true });
  console.log(`dashboard screenshots in ${shots}`);
  const server = await startServer({ ...ENV, GREENLINE_DATA: dataDir });
  const browser = await launch(chromium);
  const page = await browser.context.newPage();
  return { dataDir, shots, server, browser, page, errors: watchErrors(page) };
}

export async function closeDashboard(dashboard: Partial<Dashboard>): Promise<void> {
  await dashboard.browser?.close();
  if (dashboard.server !== undefined) await stop(dashboard.server);
  if (dashboard.dataDir !== undefined) await rm(dashboard.dataDir, { recursive: true, force: true });
  if (process.env.GREENLINE_SCREENSHOTS === undefined && dashboard.shots !== undefined) {
    await rm(dashboard.shots, { recursive: true, force: true });
  }
}

type Styles = { fill: string; strokeWidth: string };
const styleOf = (element: unknown, property: keyof Styles): string =>
  (globalThis as unknown as { getComputedStyle(e: unknown): Styles }).getComputedStyle(element)[property];

/** A computed style of the element, or of every element, the locator finds. */
export const computedStyle = (locator: Locator, property: keyof Styles): Promise<string> =>
  locator.evaluate(styleOf, property);
export const computedStyles = (locator: Locator, property: keyof Styles): Promise<string[]> =>
  // Run in the page: it names nothing of this module (styleOf is not there).
  locator.evaluateAll(
    (elements, name) =>
      elements.map(
        (element) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): Styles }).getComputedStyle(element)[name],
      ),
    property,
  );
