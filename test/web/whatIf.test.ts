/**
 * The queue page's "what if" (issue 35 on the dashboard): the comparisons run one at a time, on demand, and a stop
 * cancels what runs (api/dashboardWhatIf.ts); the runner (cli/whatIf.ts) runs the real `greenline sim --from-queue
 * --recommend` on a data folder a simulated queue was run into, and says why when a history cannot be fitted; the
 * panel draws each state (web/whatIfPanel.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WhatIfs, type WhatIfRunner } from '../../api/dashboardWhatIf.js';
import { whatIfRunner } from '../../cli/whatIf.js';
import type { QueueRecord } from '../../engine/model/queues.js';
import { SIM_KEY } from '../../sim/queueRun.js';
import { simulatedHistory } from './whatIfHistory.js';
import { whatIfPanel, type WhatIfResult } from '../../web/whatIfPanel.js';
import { buildServer } from '../../api/server.js';
import { Engine } from '../../engine/engine.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { createToken, syncConfiguredTokens } from '../../engine/tokens.js';

const queueOf = (id: string) =>
  ({
    id,
    org: 'acme',
    repo: { host: 'github.com', owner: 'acme', name: id },
    branch: 'main',
  }) as unknown as QueueRecord;

const RESULT: WhatIfResult = {
  current: {
    submitted: 40,
    merged: 36,
    mergedPerHour: 4.5,
    p50Minutes: 42,
    p90Minutes: 80,
    ciRunsPerMerged: 1.2,
    ciMinutes: 900,
  },
  pick: {
    submitted: 40,
    merged: 37,
    mergedPerHour: 4.6,
    p50Minutes: 21,
    p90Minutes: 40,
    ciRunsPerMerged: 1.5,
    ciMinutes: 1100,
  },
  pickDescription: 'single, concurrency 4, no batching',
  pickSettings: { concurrency: 4 },
  fitted: [{ name: 'arrivals per hour', unit: '/h', value: 5.7, low: 4.2, high: 7.5 }],
  simulatedHours: 8,
};

describe('what-if comparisons', () => {
  test('one runs at a time, in the order asked; asking again while waiting or running adds nothing; each end redraws', async () => {
    const started: string[] = [];
    const finish = new Map<string, (result: WhatIfResult) => void>();
    const runner: WhatIfRunner = (key) =>
      new Promise((resolve) => {
        started.push(key.repo.name);
        finish.set(key.repo.name, resolve);
      });
    const changed: string[] = [];
    const whatIfs = new WhatIfs(
      runner,
      () => 1_000,
      (queueId) => changed.push(queueId),
    );
    whatIfs.ask(queueOf('a'));
    whatIfs.ask(queueOf('b'));
    whatIfs.ask(queueOf('a'));
    whatIfs.ask(queueOf('b'));
    expect(started).toEqual(['a']);
    expect(whatIfs.stateOf('a')?.status).toBe('running');
    expect(whatIfs.stateOf('b')?.status).toBe('waiting');
    expect(whatIfs.stateOf('c')).toBeUndefined();
    finish.get('a')!(RESULT);
    await expect.poll(() => started).toEqual(['a', 'b']);
    expect(whatIfs.stateOf('a')).toEqual({ status: 'done', at: 1_000, result: RESULT });
    expect(changed).toEqual(['a', 'a', 'b']);
    whatIfs.close();
  });

  test('a stop of the service cancels the comparison that runs and drops those waiting', async () => {
    const signals: AbortSignal[] = [];
    const runner: WhatIfRunner = (_key, signal) =>
      new Promise((_resolve, reject) => {
        signals.push(signal);
        signal.addEventListener('abort', () => reject(new Error('stopped')));
      });
    const whatIfs = new WhatIfs(
      runner,
      () => 0,
      () => {},
    );
    whatIfs.ask(queueOf('a'));
    whatIfs.ask(queueOf('b'));
    whatIfs.close();
    expect(signals[0]!.aborted).toBe(true);
    await expect.poll(() => whatIfs.stateOf('a')?.status).toBe('failed');
    expect(signals).toHaveLength(1);
  });

  test('the panel: a button for an admin only; waiting, running, the figures side by side with their ratio, a failure said', () => {
    const queue = queueOf('a');
    expect(whatIfPanel(queue, undefined, 0, true).text).toContain('Compare with the recommended settings');
    expect(whatIfPanel(queue, undefined, 0, false).text).not.toContain('<button');
    expect(whatIfPanel(queue, { status: 'running', since: 0 }, 5_000, true).text).toContain('Fitting and simulating');
    const done = whatIfPanel(queue, { status: 'done', at: 0, result: RESULT }, 60_000, true).text;
    expect(done).toContain('single, concurrency 4, no batching');
    expect(done).toMatch(/P50 time to merge \(min\)<\/th><td>42\.0<\/td><td>21\.0<\/td><td>0\.50×/);
    expect(done).toContain('concurrency=4');
    expect(done).toContain('data-relative');
    const failed = whatIfPanel(queue, { status: 'failed', at: 0, message: 'too few PRs <b>' }, 0, true).text;
    expect(failed).toContain('role="alert"');
    expect(failed).toContain('too few PRs &lt;b&gt;');
  });
});

describe('the route: POST /queues/<id>/what-if', () => {
  test('an admin asks (303 back to the queue), a read token is refused 403 and a post without the CSRF token too; the page shows the result', async () => {
    const store = createMemoryStore();
    const clock = new VirtualScheduler(Date.parse('2026-11-22T12:00:00Z'));
    syncConfiguredTokens(
      store,
      [{ org: 'acme', token: 'acme-what-if-token-0123456789' }],
      new Date(clock.now()).toISOString(),
    );
    const reader = createToken(store, 'acme', new Date(clock.now()).toISOString(), 'read').token;
    const engine = new Engine(store, { scheduler: clock });
    engine.start();
    const asked: string[] = [];
    const app = await buildServer({
      engine,
      whatIf: async (key) => {
        asked.push(`${key.org} ${key.repo.name}@${key.branch}`);
        return RESULT;
      },
    });
    try {
      const queue = engine.createQueue(
        { org: 'acme', repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, branch: 'main' },
        {},
      );
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const signIn = async (token: string) => {
        const response = await app.inject({ method: 'POST', url: '/signin', headers: form, payload: `token=${token}` });
        return String(response.headers['set-cookie']).split(';')[0]!;
      };
      const page = async (cookie: string) =>
        (await app.inject({ method: 'GET', url: `/queues/${queue.id}`, headers: { accept: 'text/html', cookie } }))
          .body;
      const csrf = (body: string) => /name="_csrf" value="([^"]+)"/.exec(body)![1]!;
      const ask = (cookie: string, payload: string) =>
        app.inject({ method: 'POST', url: `/queues/${queue.id}/what-if`, headers: { ...form, cookie }, payload });

      const readCookie = await signIn(reader);
      const readPage = await page(readCookie);
      expect(readPage).toContain('What if');
      expect(readPage).not.toContain('Compare with the recommended settings');
      expect((await ask(readCookie, `_csrf=${csrf(readPage)}`)).statusCode).toBe(403);

      const admin = await signIn('acme-what-if-token-0123456789');
      const adminPage = await page(admin);
      expect(adminPage).toContain('Compare with the recommended settings');
      expect((await ask(admin, '')).statusCode).toBe(403);
      expect(asked).toEqual([]);
      const asking = await ask(admin, `_csrf=${csrf(adminPage)}`);
      expect(asking.statusCode).toBe(303);
      expect(asking.headers.location).toBe(`/queues/${queue.id}`);
      await expect.poll(async () => page(admin)).toContain('single, concurrency 4, no batching');
      expect(asked).toEqual(['acme widgets@main']);
      // Its address opened (a reload after the post) leads back to the queue.
      expect(
        (
          await app.inject({
            method: 'GET',
            url: `/queues/${queue.id}/what-if`,
            headers: { accept: 'text/html', cookie: admin },
          })
        ).statusCode,
      ).toBe(303);
    } finally {
      engine.stop();
      await app.close();
      await store.close();
    }
  });
});

describe('the runner: greenline sim --from-queue --recommend on a data folder', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'greenline-what-if-'));
    await simulatedHistory(dir, 3);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('compares the current settings with the pick on the fitted workload', async () => {
    const result = await whatIfRunner({ dataDir: dir })(SIM_KEY, new AbortController().signal);
    expect(result.current.submitted).toBeGreaterThan(10);
    expect(result.pick.submitted).toBe(result.current.submitted);
    expect(result.current.p50Minutes).toBeGreaterThan(0);
    expect(result.pickDescription).toMatch(/concurrency \d+/);
    expect(result.fitted.map((figure) => figure.name)).toContain('arrivals per hour');
  });

  test('a queue it cannot fit, or that is not there, is said; a cancelled run ends its child', async () => {
    const runner = whatIfRunner({ dataDir: dir });
    await expect(runner({ ...SIM_KEY, branch: 'nope' }, new AbortController().signal)).rejects.toThrow(
      /no queue for sim\.invalid\/sim\/repo branch nope/,
    );
    const controller = new AbortController();
    const running = runner(SIM_KEY, controller.signal);
    controller.abort();
    await expect(running).rejects.toThrow('the service stopped before the simulation ended');
  });
});
