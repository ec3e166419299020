/**
 * Headless Chromium for the dashboard tests, driven by playwright-core: Debian's chromium (or GREENLINE_CHROMIUM),
 * with a fresh profile and the background services off, and every request to anything but loopback refused and
 * recorded. When no Chromium is installed, `chromiumPath()` is undefined and the tests say they are skipped and why.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const CANDIDATES = [process.env.GREENLINE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** GREENLINE_CHROMIUM names the binary; `none` turns the browser tests off (they then say they are skipped). */
export function chromiumPath(): string | undefined {
  if (process.env.GREENLINE_CHROMIUM === 'none') return undefined;
  return CANDIDATES.find((path): path is string => path !== undefined && path !== '' && existsSync(path));
}

export const SKIP_MESSAGE =
  process.env.GREENLINE_CHROMIUM === 'none'
    ? 'dashboard browser tests SKIPPED: GREENLINE_CHROMIUM=none'
    : "dashboard browser tests SKIPPED: no Chromium found (install Debian's chromium: apt-get install -y chromium, or set GREENLINE_CHROMIUM)";

export interface Browser {
  context: BrowserContext;
  /** Requests that tried to leave loopback (refused). */
  offLoopback: string[];
  close(): Promise<void>;
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launch(executablePath: string): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'greenline-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  // No clock of its own on a wait (Playwright's default is 30 s): a page waits as long as the test's budget allows, so
  // that a loaded machine is slow, not failing (vitest.config.ts).
  context.setDefaultTimeout(0);
  const offLoopback: string[] = [];
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
    offLoopback.push(url.href);
    return route.abort();
  });
  return {
    context,
    offLoopback,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * What went wrong in a page as the browser saw it, recorded as it happens: errors it logged (a script error, and any
 * answer of 400 or more, which Chromium logs as "Failed to load resource") and every answer of 400 or more it was
 * given (navigations, htmx's requests, the live stream), as `status path`. `unexpected` leaves out the bad input a test
 * sends on purpose (its path and the status it must get), which is the only error each may leave.
 */
export interface PageErrors {
  console: string[];
  refused: string[];
  unexpected(provoked: readonly { path: string; status: number }[]): string[];
}

export function watchErrors(page: Page): PageErrors {
  const errors: PageErrors = {
    console: [],
    refused: [],
    unexpected: (provoked) => [
      ...errors.console.filter(
        (line) =>
          !provoked.some(({ path, status }) =>
            line.includes(`${path}: Failed to load resource: the server responded with a status of ${status} `),
          ),
      ),
      ...errors.refused.filter((line) => !provoked.some(({ path, status }) => line === `${status} ${path}`)),
    ],
  };
  page.on('console', (message) => {
    if (message.type() === 'error') errors.console.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.console.push(`${page.url()}: ${error.message}`));
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() >= 400) errors.refused.push(`${response.status()} ${url.pathname}${url.search}`);
  });
  return errors;
}

/** axe-core's violations on the page as it is now, of any impact, each with the elements it names. */
export async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map(
    (violation) =>
      `${violation.impact}: ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join('; ')})`,
  );
}
