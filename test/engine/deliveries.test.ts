/** Webhook delivery ids: accepted once, pruned past their retention in bounded batches. */
import { describe, expect, test } from 'vitest';
import { DELIVERY_RETENTION_MS } from '../../engine/deliveries.js';
import { KEY, QueueHarness } from './queueHarness.js';

const DAY = 24 * 60 * 60_000;
const accept = (h: QueueHarness, id: string) => h.engine.webhookInbox.accept({ id, name: 'ping', body: '{}' });

describe('webhook deliveries', () => {
  test('ids older than the retention are pruned oldest first, a batch at a time, without touching any queue', async () => {
    const h = new QueueHarness();
    await h.create();
    for (const id of ['a', 'b', 'c']) {
      expect(accept(h, id)).toBe(true);
      h.scheduler.advanceBy(60_000);
    }
    expect(accept(h, 'a')).toBe(false);
    h.scheduler.advanceBy(DELIVERY_RETENTION_MS - 2 * 60_000);
    expect(accept(h, 'd')).toBe(true);
    const queueBefore = h.engine.getQueue(KEY).queue;
    // Only 'a' is past the retention now.
    expect(h.engine.pruneDeliveries()).toBe(1);
    h.scheduler.advanceBy(2 * DAY);
    expect(h.engine.pruneDeliveries(undefined, 1)).toBe(1);
    expect(h.engine.pruneDeliveries(undefined, 1)).toBe(1);
    expect(h.engine.pruneDeliveries(undefined, 1)).toBe(0);
    expect(h.store.read((tx) => [...tx.scan('webhookDeliveries')].map((entry) => entry.key[0]))).toEqual(['d']);
    expect(h.store.read((tx) => tx.count('webhookDeliveryTimes'))).toBe(1);
    expect(h.engine.getQueue(KEY).queue).toEqual(queueBefore);
    // A pruned id is a new delivery again.
    expect(accept(h, 'a')).toBe(true);
    expect(h.store.read((tx) => tx.count('webhookDeliveryTimes'))).toBe(2);
  });
});
