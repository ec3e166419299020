import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DashboardEvents } from '../../api/dashboardEvents.js';
import { listTokens, revokeToken } from '../../engine/tokens.js';
import { makeApi, queueBody, TOKENS, type Api } from '../api/harness.js';
import { dashboardForms } from './dashboardForms.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const { signIn, makeQueue } = dashboardForms(() => api);

describe('the live feed', () => {
  test("a stream says the feed's version when it opens, and each change its new one: a page made since sees no change", async () => {
    await makeQueue();
    const events = new DashboardEvents(api.engine);
    let written = '';
    const response = {
      writeHead: () => response,
      write: (chunk: string) => ((written += chunk), true),
      end: () => undefined,
      on: () => response,
    };
    const token = listTokens(api.store).find((record) => record.org === 'acme')!;
    const before = events.version;
    events.open({ org: 'acme', tokenId: token.id, expiresAt: Date.now() + 60_000 }, response as never);
    const hello = written.split('\n\n').find((block) => block.startsWith('event: hello'));
    expect(JSON.parse(hello!.split('data: ')[1]!)).toEqual({ version: before });
    await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const changed = written.split('\n\n').filter((block) => block.startsWith('event: changed'));
    const after = (JSON.parse(changed.at(-1)!.split('data: ')[1]!) as { version: string }).version;
    expect(after).not.toBe(before);
    expect(after).toBe(events.version);
    // Another feed (a restart of the service) has another version even with as many commits.
    const restarted = new DashboardEvents(api.engine);
    expect(restarted.version).not.toBe(before);
    restarted.close();
    events.close();
  });

  test("coalesces a burst of commits into one event naming the organization's changed queues only", async () => {
    await makeQueue();
    await api.post('createQueue', queueBody({}, 'release'));
    await api.post('createQueue', queueBody(), TOKENS.globex);
    // The window closes when the test says, not after a fixed time: on a loaded machine the burst may outlast 200 ms.
    const windows: (() => void)[] = [];
    const events = new DashboardEvents(api.engine, { start: (flush) => windows.push(flush), stop: () => undefined });
    let written = '';
    const response = {
      writeHead: () => response,
      write: (chunk: string) => ((written += chunk), true),
      end: () => undefined,
      on: () => response,
    };
    const token = listTokens(api.store).find((record) => record.org === 'acme')!;
    events.open({ org: 'acme', tokenId: token.id, expiresAt: Date.now() + 60_000 }, response as never);
    for (const number of [1, 2, 3, 4, 5]) await api.post('submitPullRequest', queueBody({ pr: { number } }));
    await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }, 'release'));
    await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }), TOKENS.globex);
    expect(written).not.toContain('event: changed');
    expect(windows).toHaveLength(1);
    windows[0]!();
    const changed = written.split('\n\n').filter((block) => block.startsWith('event: changed'));
    expect(changed).toHaveLength(1);
    const ids = (JSON.parse(changed[0]!.split('data: ')[1]!) as { queues: string[] }).queues;
    expect(new Set(ids)).toEqual(new Set(api.engine.listQueues('acme').map((queue) => queue.id)));
    events.close();
  });

  test('a stream ends at its next event once its token is revoked; HEAD tells a page whether its session stands', async () => {
    await makeQueue();
    await api.post('createQueue', queueBody(), TOKENS.globex);
    const events = new DashboardEvents(api.engine);
    let written = '';
    let ended = false;
    const response = {
      writeHead: () => response,
      write: (chunk: string) => ((written += chunk), true),
      end: (chunk?: string) => {
        written += chunk ?? '';
        ended = true;
      },
      on: () => response,
    };
    const token = listTokens(api.store).find((record) => record.org === 'acme')!;
    events.open({ org: 'acme', tokenId: token.id, expiresAt: Date.now() + 60_000 }, response as never);
    const cookie = await signIn(TOKENS.acme);
    expect((await api.app.inject({ method: 'HEAD', url: '/events', headers: { cookie } })).statusCode).toBe(204);
    revokeToken(api.store, token.id);
    expect((await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }), TOKENS.globex)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ended).toBe(false);
    expect((await api.app.inject({ method: 'HEAD', url: '/events', headers: { cookie } })).statusCode).toBe(401);
    // The next change of the organization ends the stream instead of telling it.
    api.engine.createQueue({ org: 'acme', repo: queueBody().repo, branch: 'next' }, {});
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(ended).toBe(true);
    expect(written).not.toContain('event: changed');
    expect(written).toContain('event: signed-out');
    expect(events.size).toBe(0);
    events.close();
  });

  test('a stream asked for without a session is answered 200, told signed-out and ended: never refused (a browser logs that as an error)', async () => {
    for (const cookie of [undefined, 'greenline_session=forged.value']) {
      const response = await api.app.inject({
        method: 'GET',
        url: '/events',
        headers: { accept: 'text/event-stream', ...(cookie === undefined ? {} : { cookie }) },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('text/event-stream');
      expect(response.body).toContain('event: signed-out');
      expect(response.body).not.toContain('event: hello');
    }
  });
});
