/**
 * What the hosted service's clients need beyond the seed spec: the queue fields its Terraform provider manages,
 * listPullRequests, `priority: null`, and the bearer token Prometheus sends.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, queueBody, TOKENS, type Api } from './harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const INTEGRATION_DEFAULTS = {
  extensionEnabled: false,
  enqueueingLabel: 'greenline-merge',
  labelCommandsEnabled: false,
  stateLabelsEnabled: false,
};

describe('integration settings (extension, labels)', () => {
  test('createQueue and updateQueue store them; getQueue and updateQueue return them', async () => {
    expect(
      (await api.post('createQueue', queueBody({ labelCommandsEnabled: true, enqueueingLabel: 'ready-to-merge' })))
        .statusCode,
    ).toBe(200);
    expect((await api.post('getQueue', queueBody())).json()).toMatchObject({
      ...INTEGRATION_DEFAULTS,
      labelCommandsEnabled: true,
      enqueueingLabel: 'ready-to-merge',
    });
    const updated = await api.post(
      'updateQueue',
      queueBody({ extensionEnabled: true, stateLabelsEnabled: true, enqueueingLabel: '' }),
    );
    expect(updated.statusCode).toBe(200);
    const expected = {
      extensionEnabled: true,
      enqueueingLabel: '',
      labelCommandsEnabled: true,
      stateLabelsEnabled: true,
    };
    expect(updated.json()).toMatchObject(expected);
    // Only the fields sent change.
    const again = await api.post('updateQueue', queueBody({ concurrency: 2 }));
    expect(again.json()).toMatchObject({ ...expected, concurrency: 2 });
  });

  test('a queue stored before these settings existed reads the defaults', async () => {
    await api.post('createQueue', queueBody({ stateLabelsEnabled: true }));
    const [queue] = api.engine.listQueues('acme');
    api.store.write((tx) => {
      const stored = tx.get('queues', [queue!.id])!;
      const settings: Record<string, unknown> = { ...stored.settings };
      for (const name of Object.keys(INTEGRATION_DEFAULTS)) delete settings[name];
      tx.put('queues', [queue!.id], { ...stored, settings: settings as unknown as typeof stored.settings });
    });
    // The server starts again over that data: a running engine sees the store change by commits (the event log), and
    // this write, standing in for an older build's record, is none.
    const before = api;
    before.engine.stop();
    api = await makeApi(before.store);
    expect((await api.post('getQueue', queueBody())).json()).toMatchObject(INTEGRATION_DEFAULTS);
    expect((await api.post('updateQueue', queueBody({ extensionEnabled: true }))).json()).toMatchObject({
      ...INTEGRATION_DEFAULTS,
      extensionEnabled: true,
    });
  });

  test('bad values are a 400 naming the field', async () => {
    await api.post('createQueue', queueBody());
    const long = expectErrorBody(await api.post('updateQueue', queueBody({ enqueueingLabel: 'x'.repeat(51) })), 400);
    expect(long.details?.map((detail) => detail.field)).toEqual(['enqueueingLabel']);
    const notBoolean = expectErrorBody(await api.post('updateQueue', queueBody({ labelCommandsEnabled: 'yes' })), 400);
    expect(notBoolean.details?.map((detail) => detail.field)).toEqual(['labelCommandsEnabled']);
  });
});

describe('submitPullRequest priority', () => {
  test('null is the default priority', async () => {
    await api.post('createQueue', queueBody({ state: 'paused' }));
    expect((await api.post('submitPullRequest', queueBody({ pr: { number: 1 }, priority: null }))).statusCode).toBe(
      200,
    );
    const pr = (await api.post('getSubmittedPullRequest', queueBody({ pr: { number: 1 } }))).json();
    expect(pr).toMatchObject({ priorityValue: 100, priorityName: 'medium', usedDefaultPriorityName: 'medium' });
  });
});

describe('listPullRequests', () => {
  beforeEach(async () => {
    await api.post('createQueue', queueBody({ state: 'paused' }));
    for (const number of [1, 2, 3, 4, 5]) await api.post('submitPullRequest', queueBody({ pr: { number } }));
    await api.engine.settle();
    await api.post('cancelPullRequest', queueBody({ pr: { number: 2 } }));
  });

  test('lists every PR submitted, newest first, a page at a time', async () => {
    const first = await api.post('listPullRequests', queueBody({ take: 2 }));
    expect(first.statusCode).toBe(200);
    const page1 = first.json() as { pullRequests: { prNumber: number; state: string }[]; nextCursor?: string };
    expect(page1.pullRequests.map((pr) => pr.prNumber)).toEqual([5, 4]);
    expect(page1.nextCursor).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const page2 = (await api.post('listPullRequests', queueBody({ take: 2, cursor: page1.nextCursor }))).json();
    expect(page2.pullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([3, 2]);
    const page3 = (await api.post('listPullRequests', queueBody({ take: 2, cursor: page2.nextCursor }))).json();
    expect(page3).toEqual({ pullRequests: [expect.objectContaining({ prNumber: 1 })] });
  });

  test('filters by state (either case, one or several) and by when PRs concluded', async () => {
    const cancelled = (await api.post('listPullRequests', queueBody({ state: 'cancelled' }))).json();
    expect(cancelled.pullRequests.map((pr: { prNumber: number; state: string }) => [pr.prNumber, pr.state])).toEqual([
      [2, 'CANCELLED'],
    ]);
    const both = (await api.post('listPullRequests', queueBody({ state: ['PENDING', 'CANCELLED'] }))).json();
    expect(both.pullRequests).toHaveLength(5);
    const later = (await api.post('listPullRequests', queueBody({ since: '2026-11-22T12:00:00.001Z' }))).json();
    expect(later.pullRequests).toEqual([]);
    // since/until keep the PRs that concluded then (here the cancelled one), as the hosted service's `since` does.
    const window = (
      await api.post('listPullRequests', queueBody({ since: '2026-11-22T00:00:00Z', until: '2026-11-22T12:00:00Z' }))
    ).json();
    expect(window.pullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([2]);
  });

  test('bad input is a 400; an unknown queue a 404', async () => {
    expectErrorBody(await api.post('listPullRequests', queueBody({ take: 0 })), 400);
    expectErrorBody(await api.post('listPullRequests', queueBody({ state: 'SLEEPING' })), 400);
    expectErrorBody(await api.post('listPullRequests', queueBody({ cursor: 'nope' })), 400);
    expectErrorBody(
      await api.post('listPullRequests', queueBody({ since: '2026-11-23T00:00:00Z', until: '2026-11-22T00:00:00Z' })),
      400,
    );
    expectErrorBody(await api.post('listPullRequests', queueBody({}, 'other')), 404, 'not_found');
  });
});

describe('Authorization: Bearer', () => {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  test('is accepted wherever x-api-token is, and identifies the organization', async () => {
    await api.post('createQueue', queueBody({ concurrency: 3 }));
    const got = await api.app.inject({
      method: 'POST',
      url: '/v1/getQueue',
      headers: { ...bearer(TOKENS.acme), 'content-type': 'application/json' },
      payload: JSON.stringify(queueBody()),
    });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ concurrency: 3 });
    const other = await api.app.inject({
      method: 'POST',
      url: '/v1/getQueue',
      headers: { ...bearer(TOKENS.globex), 'content-type': 'application/json' },
      payload: JSON.stringify(queueBody()),
    });
    expectErrorBody(other, 404, 'not_found');
    const metrics = await api.app.inject({
      method: 'GET',
      url: '/v1/getMergeQueueMetrics',
      headers: bearer(TOKENS.acme),
    });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('mq_depth_current{');
  });

  test('a wrong, malformed or other-scheme Authorization is a 401', async () => {
    for (const authorization of [
      `Bearer ${TOKENS.acme}x`,
      'Bearer',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      TOKENS.acme,
    ]) {
      const response = await api.app.inject({
        method: 'GET',
        url: '/v1/getMergeQueueMetrics',
        headers: { authorization },
      });
      expectErrorBody(response, 401, 'unauthorized');
    }
  });

  test('x-api-token wins when both are sent', async () => {
    const response = await api.app.inject({
      method: 'GET',
      url: '/v1/getMergeQueueMetrics',
      headers: { 'x-api-token': `${TOKENS.acme}x`, ...bearer(TOKENS.acme) },
    });
    expectErrorBody(response, 401, 'unauthorized');
  });
});
