/**
 * The dashboard with a queue of 500 PRs: the server's cost of each page (Fastify inject, LMDB store), and in
 * headless Chromium, when one is installed, the queue page's load, a live redraw, and the time from a commit to the
 * row on screen. Figures are printed; nothing is asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer } from '../api/server.js';
import { Engine } from '../engine/engine.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { openLmdbStore } from '../engine/store/index.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { chromiumPath, launch } from '../test/web/browser.js';
import { measure, report } from './measure.js';

const TOKEN = 'bench-token-0123456789abcdef';
const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const QUEUE_SIZE = 500;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

export async function benchDashboard(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-dashboard-'));
  const store = openLmdbStore({ dir });
  // A virtual clock and no CI: the runs stay in progress, so the page holds runs, batches and a full line-up.
  const engine = new Engine(store, { scheduler: new VirtualScheduler(Date.now()) });
  engine.start();
  syncConfiguredTokens(store, [{ org: 'acme', token: TOKEN }], new Date().toISOString());
  const app = await buildServer({ engine });
  try {
    const key = { org: 'acme', repo: REPO, branch: 'main' };
    engine.createQueue(key, { concurrency: 10, batch: true, batchingMinSize: 4 });
    for (let number = 1; number <= QUEUE_SIZE; number++)
      engine.submitPullRequest(key, number, { priority: number % 7 === 0 ? 'high' : 'medium' });
    await engine.settle();
    const queue = engine.listQueues('acme')[0]!;
    const signin = await app.inject({
      method: 'POST',
      url: '/signin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${TOKEN}`,
    });
    const cookie = String(signin.headers['set-cookie']).split(';')[0]!;
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie } });
    const queuePage = await get(`/queues/${queue.id}`);
    console.log(
      `\ndashboard: queue of ${queue.runtime.lineup.length + queue.runtime.waiting.length} PRs, ${queue.runtime.activeRuns.length} runs in progress; ` +
        `queue page ${(queuePage.body.length / 1024).toFixed(0)} KiB of HTML (status ${queuePage.statusCode})`,
    );
    const baseline = await measure('GET /healthz', 300, () => app.inject({ method: 'GET', url: '/healthz' }));
    report('dashboard pages, server side (inject, LMDB)', baseline, [
      await measure(`GET queue page (${QUEUE_SIZE} PRs)`, 60, () => get(`/queues/${queue.id}`)),
      await measure('GET organization page (vega-lite trend)', 60, () => get('/')),
      await measure('GET PR page (timeline, chart)', 60, () => get(`/queues/${queue.id}/prs/1`)),
      await measure('GET state charts page (counts of 500 PRs)', 60, () => get('/charts')),
      await measure('GET history page (first 50 ended PRs)', 60, () => get(`/queues/${queue.id}/history`)),
      await measure('GET run page', 60, () => get(`/queues/${queue.id}/runs/${queue.runtime.activeRuns[0]}`)),
      await measure(`engine.estimates (the ${QUEUE_SIZE} PRs' merge estimates: queue and PR pages)`, 60, () =>
        engine.estimates(key),
      ),
    ]);
    await browserFigures(app, engine, key, queue.id, cookie);
  } finally {
    engine.stop();
    await app.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function browserFigures(
  app: Awaited<ReturnType<typeof buildServer>>,
  engine: Engine,
  key: { org: string; repo: typeof REPO; branch: string },
  queueId: string,
  cookie: string,
): Promise<void> {
  const executable = chromiumPath();
  if (executable === undefined) {
    console.log('dashboard in the browser: skipped, no Chromium found (apt-get install -y chromium)');
    return;
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  const browser = await launch(executable);
  try {
    const [name, value] = cookie.split('=') as [string, string];
    await browser.context.addCookies([{ name, value, url }]);
    const page = await browser.context.newPage();
    const loads: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto(`${url}/queues/${queueId}`, { waitUntil: 'load' });
      loads.push(await page.evaluate<number>("performance.getEntriesByType('navigation')[0].loadEventEnd"));
    }
    const rows = await page.locator('tr[data-pr]').count();
    await page.evaluate(
      "document.documentElement.dataset.live === 'connected' || new Promise((resolve) => setTimeout(resolve, 1000))",
    );
    await page.evaluate(
      "window.longest = 0; new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.longest = Math.max(window.longest, entry.duration); }).observe({ type: 'longtask', buffered: false })",
    );
    const redraws: number[] = [];
    for (let i = 0; i < 10; i++) {
      redraws.push(
        await page.evaluate<number>(
          "(async () => { const t = performance.now(); await htmx.ajax('GET', location.pathname, { target: '#live', select: '#live', swap: 'outerHTML' }); return performance.now() - t; })()",
        ),
      );
    }
    const longest = await page.evaluate<number>('window.longest');
    const lives: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const number = QUEUE_SIZE + i;
      const start = performance.now();
      engine.submitPullRequest(key, number);
      await page.locator(`tr[data-pr="${number}"]`).waitFor({ timeout: 30_000 });
      lives.push(performance.now() - start);
    }
    const click = performance.now();
    await page.locator('summary', { hasText: 'Settings' }).click();
    await page.getByLabel('Concurrency', { exact: true }).waitFor();
    const clickMs = performance.now() - click;
    const ms = (values: number[]) =>
      `median ${quantile(values, 0.5).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`;
    console.log(`\ndashboard in headless Chromium, queue page with ${rows} rows in the line-up`);
    console.log(`  page load (navigation to load event): ${ms(loads)}`);
    console.log(
      `  live redraw (fetch + swap of the live region): ${ms(redraws)}; longest main-thread task ${longest.toFixed(0)} ms`,
    );
    console.log(`  commit to row on screen (includes the ${200} ms coalescing): ${ms(lives)}`);
    console.log(`  opening the settings form: ${clickMs.toFixed(0)} ms`);
    if (browser.offLoopback.length > 0)
      console.log(`  requests off loopback refused: ${browser.offLoopback.join(', ')}`);
  } finally {
    await browser.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchDashboard();
