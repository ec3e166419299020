/**
 * Webhook deliveries already applied, so that a redelivery (same `X-GitHub-Delivery`) is applied once. Each is kept
 * by id and by arrival time; those older than `DELIVERY_RETENTION_MS` are pruned in bounded batches (GitHub
 * redelivers within 3 days), in store writes of their own that touch no queue.
 */
import type { Store } from './store/store.js';

/** How long a delivery id is remembered: a week (GitHub lets a delivery be redelivered for 3 days). */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** The most delivery ids one pruning write removes. */
export const DELIVERY_PRUNE_BATCH = 100;

/** Records a delivery by its id; false when it was recorded before (a redelivery). */
export function recordDelivery(store: Store, deliveryId: string, now: number): boolean {
  return store.write((tx) => {
    if (tx.get('webhookDeliveries', [deliveryId]) !== undefined) return false;
    tx.put('webhookDeliveries', [deliveryId], new Date(now).toISOString());
    tx.put('webhookDeliveryTimes', [now, deliveryId], true);
    return true;
  });
}

export function forgetDelivery(store: Store, deliveryId: string): void {
  store.write((tx) => {
    const at = tx.get('webhookDeliveries', [deliveryId]);
    tx.remove('webhookDeliveries', [deliveryId]);
    if (at !== undefined) tx.remove('webhookDeliveryTimes', [Date.parse(at), deliveryId]);
  });
}

/** Removes at most `batch` deliveries that arrived before `now - retentionMs`, oldest first; how many it removed. */
export function pruneDeliveries(store: Store, now: number, retentionMs = DELIVERY_RETENTION_MS, batch = DELIVERY_PRUNE_BATCH): number {
  // Most deliveries find nothing to prune: a read, without a durable write.
  const due = store.read((tx) => [...tx.scan('webhookDeliveryTimes', { end: [now - retentionMs], limit: 1 })].length);
  if (due === 0) return 0;
  return store.write((tx) => {
    const old = [...tx.scan('webhookDeliveryTimes', { end: [now - retentionMs], limit: batch })];
    for (const { key } of old) {
      tx.remove('webhookDeliveryTimes', key);
      tx.remove('webhookDeliveries', [key[1] as string]);
    }
    return old.length;
  });
}
