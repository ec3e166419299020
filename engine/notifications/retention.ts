/**
 * Retention of outgoing webhook messages (the sweep's `deliveriesDays`, GREENLINE_RETAIN_DELIVERIES_DAYS): a message
 * delivered or given up before the cutoff is deleted, `batch` per write, yielding between writes; pending messages
 * are kept whatever their age (they are still to be sent).
 */
import type { Key, Store } from '../store/store.js';
import type { MessageRecord } from './records.js';

/** When the message ended: its last attempt, else when it was made. */
function endedAt(message: MessageRecord): number {
  return Date.parse(message.log.at(-1)?.at ?? message.createdAt);
}

export async function pruneWebhookMessages(
  store: Store,
  cutoffMs: number,
  batch: number,
  go: () => boolean = () => true,
): Promise<number> {
  let start: Key | undefined;
  let removed = 0;
  while (go()) {
    const step = store.write((tx) => {
      const entries = [...tx.scan('webhookMessages', { ...(start === undefined ? {} : { start }), limit: batch + 1 })];
      let count = 0;
      for (const { key, value } of entries.slice(0, batch)) {
        if (value.status !== 'pending' && endedAt(value) < cutoffMs) {
          tx.remove('webhookMessages', key);
          count++;
        }
      }
      return { count, next: entries[batch]?.key };
    });
    removed += step.count;
    if (step.next === undefined) break;
    start = step.next;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return removed;
}
