/**
 * Webhook deliveries: each accepted one is recorded by id and by arrival time, so that a redelivery (same
 * `X-GitHub-Delivery`) is applied once, and kept with its body in the inbox until it is applied (by the git host's
 * runner, with retries: engine/providers/github/deliveryRunner.ts). Ids older than `DELIVERY_RETENTION_MS` are
 * pruned in bounded batches (GitHub redelivers within 3 days), in store writes of their own that touch no queue.
 */
import type { Store } from './store/store.js';

/** How long a delivery id is remembered: a week (GitHub lets a delivery be redelivered for 3 days). */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** The most delivery ids one pruning write removes. */
export const DELIVERY_PRUNE_BATCH = 100;

/** Removes at most `batch` deliveries that arrived before `now - retentionMs`, oldest first; how many it removed. */
export function pruneDeliveries(
  store: Store,
  now: number,
  retentionMs = DELIVERY_RETENTION_MS,
  batch = DELIVERY_PRUNE_BATCH,
): number {
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

/**
 * A delivery accepted and waiting to be applied: what GitHub sent (its body as received), when, how many times
 * applying it failed, when to try next, and which process is at it until when (several processes share a PostgreSQL
 * store: each takes a delivery for `CLAIM_MS` before applying it, so it is applied by one).
 */
export interface InboxEntry {
  name: string;
  body: string;
  receivedAt: number;
  attempts: number;
  dueAt: number;
  claimedBy: string;
  claimedUntil: number;
}

export interface ReceivedDelivery {
  id: string;
  name: string;
  body: string;
}

/** How long a process keeps a delivery it took, should it crash while applying it (another then takes it). */
export const CLAIM_MS = 5 * 60_000;

/**
 * Records a new delivery and puts it in the inbox, in one write; false for a redelivery (same id): it was accepted
 * before and is applied once.
 */
export function acceptDelivery(store: Store, delivery: ReceivedDelivery, now: number): boolean {
  return store.write((tx) => {
    if (tx.get('webhookDeliveries', [delivery.id]) !== undefined) return false;
    tx.put('webhookDeliveries', [delivery.id], new Date(now).toISOString());
    tx.put('webhookDeliveryTimes', [now, delivery.id], true);
    tx.put('webhookInbox', [delivery.id], {
      name: delivery.name,
      body: delivery.body,
      receivedAt: now,
      attempts: 0,
      dueAt: now,
      claimedBy: '',
      claimedUntil: 0,
    });
    return true;
  });
}

/** Takes up to `limit` deliveries due now that no other process holds, oldest first, for `by` until now + CLAIM_MS. */
export function claimDueDeliveries(
  store: Store,
  by: string,
  now: number,
  limit: number,
): (ReceivedDelivery & { attempts: number })[] {
  const due = (entry: InboxEntry) => entry.dueAt <= now && (entry.claimedBy === by || entry.claimedUntil <= now);
  // Most rounds find nothing due: a read, without a durable write.
  if (!store.read((tx) => [...tx.scan('webhookInbox')].some(({ value }) => due(value)))) return [];
  return store.write((tx) => {
    const taken = [...tx.scan('webhookInbox')]
      .filter(({ value }) => due(value))
      .sort((a, b) => a.value.receivedAt - b.value.receivedAt)
      .slice(0, limit);
    for (const { key, value } of taken)
      tx.put('webhookInbox', key, { ...value, claimedBy: by, claimedUntil: now + CLAIM_MS });
    return taken.map(({ key, value }) => ({
      id: String(key[0]),
      name: value.name,
      body: value.body,
      attempts: value.attempts,
    }));
  });
}

/** The delivery was applied (or given up): it leaves the inbox; its id stays recorded, so a redelivery is not applied. */
export function finishDelivery(store: Store, deliveryId: string): void {
  store.write((tx) => void tx.remove('webhookInbox', [deliveryId]));
}

/** Applying failed: tried again at `dueAt`, by any process. */
export function deferDelivery(store: Store, deliveryId: string, attempts: number, dueAt: number): void {
  store.write((tx) => {
    const entry = tx.get('webhookInbox', [deliveryId]);
    if (entry !== undefined)
      tx.put('webhookInbox', [deliveryId], { ...entry, attempts, dueAt, claimedBy: '', claimedUntil: 0 });
  });
}

/** When the next delivery in the inbox is due (or its claim runs out), if any is waiting. */
export function nextDeliveryDue(store: Store): number | undefined {
  return store.read((tx) => {
    let next: number | undefined;
    for (const { value } of tx.scan('webhookInbox')) {
      const at = Math.max(value.dueAt, value.claimedUntil);
      next = next === undefined ? at : Math.min(next, at);
    }
    return next;
  });
}

/** The inbox over one store and clock, as the engine hands it to a webhook receiver. */
export interface WebhookInbox {
  accept(delivery: ReceivedDelivery): boolean;
  claimDue(by: string, limit: number): (ReceivedDelivery & { attempts: number })[];
  finish(deliveryId: string): void;
  defer(deliveryId: string, attempts: number, dueAt: number): void;
  nextDue(): number | undefined;
}

export function webhookInbox(store: Store, clock: { now(): number }): WebhookInbox {
  return {
    accept: (delivery) => acceptDelivery(store, delivery, clock.now()),
    claimDue: (by, limit) => claimDueDeliveries(store, by, clock.now(), limit),
    finish: (deliveryId) => finishDelivery(store, deliveryId),
    defer: (deliveryId, attempts, dueAt) => deferDelivery(store, deliveryId, attempts, dueAt),
    nextDue: () => nextDeliveryDue(store),
  };
}
