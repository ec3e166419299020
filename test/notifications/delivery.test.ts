/**
 * Outgoing webhooks delivered to a receiver on loopback that verifies every signature with the Standard Webhooks
 * library, on LMDB and on a real PostgreSQL store: every event of a PR's life arrives once and in order; a receiver
 * down for five (virtual) minutes gets everything once it is back; a message given up is redelivered by hand.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MAX_ATTEMPTS } from '../../engine/notifications/backoff.js';
import { exportEventLog, replayEventLog } from '../../engine/runtime/eventLog.js';
import { startPostgres, type PgCluster } from '../postgres/cluster.js';
import { KEY, lmdbStore, postgresStore, WebhookHarness, type OpenedStore } from './harness.js';
import { Receiver } from './receiver.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: webhooks on PostgreSQL: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const STORES: [string, () => Promise<OpenedStore>][] = [['lmdb', async () => lmdbStore()]];
if (cluster !== undefined) STORES.push(['postgres', () => postgresStore(cluster)]);

describe.each(STORES)('webhooks on %s', (_kind, open) => {
  let opened: OpenedStore;
  let h: WebhookHarness;
  let receiver: Receiver;

  beforeEach(async () => {
    opened = await open();
    h = new WebhookHarness(opened.store);
    receiver = new Receiver();
    await receiver.up();
  });
  afterEach(async () => {
    await h.close();
    await receiver.down();
    await opened.cleanup();
  });

  function register(eventTypes?: 'pull_request.submitted'[]): string {
    const { endpoint, secret } = h.engine.webhooks.create(KEY.org, {
      url: receiver.url,
      ...(eventTypes === undefined ? {} : { eventTypes }),
    });
    receiver.secret = secret;
    return endpoint.id;
  }

  test('every event of a PR’s life arrives once, signed, in order per PR', async () => {
    register();
    await h.create();
    await h.submit(1);
    await h.report(1, 'success');
    await h.submit(2);
    await h.report(2, 'failure');
    await h.submit(3);
    h.engine.cancelPullRequest(KEY, 3);
    await h.engine.settle();
    h.engine.updateQueue(KEY, { state: 'paused' });
    h.engine.updateQueue(KEY, { state: 'running' });
    await h.engine.settle();

    expect(receiver.arrivals.every((arrival) => arrival.verified)).toBe(true);
    expect(receiver.duplicates).toBe(0);
    expect(Object.fromEntries(receiver.byPr())).toEqual({
      1: ['submitted', 'testing', 'passed', 'merged'],
      2: ['submitted', 'testing', 'failed'],
      3: ['submitted', 'testing', 'cancelled'],
    });
    const failed = receiver.events.find((event) => event.type === 'pull_request.failed');
    expect(failed?.data.pr?.reason).toMatch(/\S/);
    expect(
      receiver.events.filter((event) => event.type === 'queue.state_changed').map((event) => event.data.state),
    ).toEqual(['paused', 'running']);
    expect(h.pending()).toBe(0);
    // The queue's log replays without the organization's endpoints: the webhook effects are not the queue's state.
    expect(replayEventLog(exportEventLog(opened.store, KEY, 'test')).divergence).toBeNull();
  });

  test('the receiver down for five minutes, then up: everything arrives, once, in order', async () => {
    const endpointId = register();
    await receiver.down();
    await h.create();
    await h.submit(1);
    await h.report(1, 'success');
    await h.submit(2);

    await h.advance(5 * 60_000);
    expect(receiver.arrivals).toEqual([]);
    const waiting = h.engine.webhooks.messages(KEY.org, endpointId).messages;
    expect(waiting.every((message) => message.status === 'pending')).toBe(true);
    // The first message was tried again and again, with growing delays; those behind it wait their turn.
    const first = waiting.at(-1);
    expect(first?.attempts).toBeGreaterThan(3);
    expect(first?.log.at(-1)?.excerpt).toMatch(/ECONNREFUSED/);

    await receiver.up();
    await h.deliverAll();
    expect(h.pending()).toBe(0);
    expect(receiver.duplicates).toBe(0);
    expect(Object.fromEntries(receiver.byPr())).toEqual({
      1: ['submitted', 'testing', 'passed', 'merged'],
      2: ['submitted', 'testing'],
    });
    const delivered = h.engine.webhooks.messages(KEY.org, endpointId).messages;
    expect(delivered.every((message) => message.status === 'delivered' && message.log.at(-1)?.status === 200)).toBe(
      true,
    );
    expect(h.engine.webhooks.stats(KEY.org).outcomes.delivered).toBe(delivered.length);
  });

  test(`a message refused ${MAX_ATTEMPTS} times is given up; redelivered by hand, it arrives with the same webhook-id`, async () => {
    // Only submissions: one message.
    const endpointId = register(['pull_request.submitted']);
    receiver.status = 500;
    await h.create();
    await h.submit(1);
    await h.deliverAll(4 * MAX_ATTEMPTS);
    const messages = h.engine.webhooks.messages(KEY.org, endpointId).messages;
    expect(messages).toHaveLength(1);
    const [message] = messages;
    expect(message).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
    expect(message?.log.at(-1)).toMatchObject({ status: 500, excerpt: 'receiver says no' });
    expect(receiver.events).toEqual([]);

    receiver.status = 200;
    h.engine.webhooks.redeliver(KEY.org, message?.id ?? '');
    await h.engine.settle();
    const again = h.engine.webhooks.message(KEY.org, message?.id ?? '');
    expect(again).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(again.log.at(-1)).toMatchObject({ status: 200, manual: true });
    expect(receiver.events.map((event) => event.id)).toEqual([message?.messageId]);
    expect(h.engine.webhooks.stats(KEY.org).outcomes).toEqual({ delivered: 1, retried: MAX_ATTEMPTS - 1, failed: 1 });
    // The scrape shows the outcomes (metrics/ families, kept in the store).
    const { text } = await h.engine.metrics(KEY.org);
    expect(text).toContain('greenline_webhook_deliveries_total{outcome="delivered"} 1');
    expect(text).toContain(`greenline_webhook_deliveries_total{outcome="retried"} ${MAX_ATTEMPTS - 1}`);
    expect(text).toContain('greenline_webhook_deliveries_total{outcome="failed"} 1');
    expect(text).toContain('greenline_webhook_messages_pending 0');
  });
});

describe('endpoints go at their own pace', () => {
  test('an endpoint that never answers holds back only its own messages', async () => {
    const opened = lmdbStore();
    const h = new WebhookHarness(opened.store);
    const silent = new Receiver();
    const healthy = new Receiver();
    await silent.up();
    await healthy.up();
    try {
      silent.hold = true;
      let held = 0;
      silent.onHeld = () => void held++;
      silent.secret = h.engine.webhooks.create(KEY.org, { url: silent.url }).secret;
      healthy.secret = h.engine.webhooks.create(KEY.org, { url: healthy.url }).secret;
      h.engine.createQueue(KEY, { requiredStatuses: ['ci'] });
      h.engine.submitPullRequest(KEY, 1);
      h.engine.submitPullRequest(KEY, 2);
      // Not settle(): the silent endpoint's delivery is under way until its deadline. Wait for the healthy one's.
      while (healthy.events.length < 3 || held === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(Object.fromEntries(healthy.byPr())).toEqual({ 1: ['submitted', 'testing'], 2: ['submitted'] });
      // …while the silent one's first request is still open: nothing waited for it to end.
      expect(held).toBe(1);
      expect(silent.waiting).toBe(1);
    } finally {
      await silent.down();
      await h.close();
      await healthy.down();
      await opened.cleanup();
    }
  });
});
