/** Retention of webhook messages (GREENLINE_RETAIN_DELIVERIES_DAYS): delivered and given-up ones go after the cutoff, pending ones stay. */
import { afterEach, expect, test } from 'vitest';
import { RetentionSweep } from '../../engine/retention/sweep.js';
import { KEY, lmdbStore, WebhookHarness, type OpenedStore } from './harness.js';
import { Receiver } from './receiver.js';

let opened: OpenedStore | undefined;
const receiver = new Receiver();
afterEach(async () => {
  await receiver.down();
  await opened?.cleanup();
});

test('the sweep deletes webhook messages ended before the cutoff and keeps pending ones', async () => {
  opened = lmdbStore();
  const h = new WebhookHarness(opened.store);
  await receiver.up();
  const { endpoint, secret } = h.engine.webhooks.create(KEY.org, { url: receiver.url });
  receiver.secret = secret;
  await h.create();
  await h.submit(1);
  // Ten days on (PR 1's run timed out meanwhile: more messages, delivered then), the receiver down: PR 2's messages
  // wait; PR 1's are past a week's retention.
  await h.advance(10 * 86_400_000, 3_600_000);
  const delivered = h.engine.webhooks.messages(KEY.org, endpoint.id).messages;
  expect(delivered.length).toBeGreaterThan(2);
  expect(delivered.every((message) => message.status === 'delivered')).toBe(true);
  await receiver.down();
  await h.submit(2);
  const sweep = new RetentionSweep({
    engine: h.engine,
    store: opened.store,
    clock: h.scheduler,
    settings: { deliveriesDays: 7, prsDays: 0, eventsDays: 0, testResultsDays: 0, batch: 2 },
  });
  const report = await sweep.sweep();
  expect(report.webhookMessages).toBe(delivered.length);
  const left = h.engine.webhooks.messages(KEY.org, endpoint.id).messages;
  expect(left.length).toBeGreaterThan(0);
  expect(left.every((message) => message.status === 'pending' && message.pr === 2)).toBe(true);
  await h.close();
});
