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

/** A stream of `events` opened for acme's token, written into a string: what it said, and whether it ended. */
function openStream(events: DashboardEvents) {
  const stream = { written: '', ended: false };
  const response = {
    writeHead: () => response,
    write: (chunk: string) => ((stream.written += chunk), true),
    end: (chunk?: string) => {
      stream.written += chunk ?? '';
      stream.ended = true;
    },
    on: () => response,
  };
  const token = listTokens(api.store).find((record) => record.org === 'acme')!;
  events.open({ org: 'acme', tokenId: token.id, expiresAt: Date.now() + 60_000 }, response as never);
  return { stream, token };
}

/** The data of each event of `name` the stream wrote, in order. */
function dataOf(written: string, name: string): unknown[] {
  return written
    .split('\n\n')
    .filter((block) => block.startsWith(`event: ${name}`))
    .map((block) => JSON.parse(block.split('data: ')[1]!));
}

describe('the live feed', () => {
  test("a stream says the feed's version when it opens, and each change its new one: a page made since sees no change", async () => {
    await makeQueue();
    const events = new DashboardEvents(api.engine);
    const before = events.version;
    const { stream } = openStream(events);
    expect(dataOf(stream.written, 'hello')).toEqual([{ version: before }]);
    await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }));
    // The feed's window closes on its own timer: wait for its event, however long a loaded machine takes.
    await expect.poll(() => dataOf(stream.written, 'changed').length).toBeGreaterThan(0);
    const after = (dataOf(stream.written, 'changed').at(-1) as { version: string }).version;
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
    const { stream } = openStream(events);
    for (const number of [1, 2, 3, 4, 5]) await api.post('submitPullRequest', queueBody({ pr: { number } }));
    await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }, 'release'));
    await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }), TOKENS.globex);
    expect(stream.written).not.toContain('event: changed');
    expect(windows).toHaveLength(1);
    windows[0]!();
    const changed = dataOf(stream.written, 'changed');
    expect(changed).toHaveLength(1);
    const ids = (changed[0] as { queues: string[] }).queues;
    expect(new Set(ids)).toEqual(new Set(api.engine.listQueues('acme').map((queue) => queue.id)));
    events.close();
  });

  test('a stream ends at its next event once its token is revoked; HEAD tells a page whether its session stands', async () => {
    await makeQueue();
    await api.post('createQueue', queueBody(), TOKENS.globex);
    const events = new DashboardEvents(api.engine);
    const { stream, token } = openStream(events);
    const cookie = await signIn(TOKENS.acme);
    expect((await api.app.inject({ method: 'HEAD', url: '/events', headers: { cookie } })).statusCode).toBe(204);
    revokeToken(api.store, token.id);
    expect((await api.post('submitPullRequest', queueBody({ pr: { number: 1 } }), TOKENS.globex)).statusCode).toBe(200);
    // Another organization's change: nothing for this stream, which neither hears of it nor ends.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.ended).toBe(false);
    expect((await api.app.inject({ method: 'HEAD', url: '/events', headers: { cookie } })).statusCode).toBe(401);
    // The next change of the organization ends the stream instead of telling it.
    api.engine.createQueue({ org: 'acme', repo: queueBody().repo, branch: 'next' }, {});
    await expect.poll(() => stream.ended).toBe(true);
    expect(stream.written).not.toContain('event: changed');
    expect(stream.written).toContain('event: signed-out');
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
