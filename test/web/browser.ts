/**
 * Headless Chromium for the dashboard tests, driven by playwright-core: Debian's chromium (or GREENLINE_CHROMIUM),
 * with a fresh profile and the background services off, and every request to anything but loopback refused and
 * recorded. When no Chromium is installed, `chromiumPath()` is undefined and the tests say they are skipped and why.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

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

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launch(executablePath: string): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'greenline-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
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
