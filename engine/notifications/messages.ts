/**
 * Events become messages: one per endpoint of the organization that subscribes to the event's type and queue,
 * written with its place in the endpoint's order (`webhookPending`), in the write that consumes the event (the
 * queue's `notify` effect leaving the outbox, or the flaky-test transaction itself). The sender (sender.ts) takes them
 * from there.
 */
import { createHash } from 'node:crypto';
import type { WriteTx } from '../store/store.js';
import { prOf, queueFilterKey, queueOf, type WebhookEvent } from './events.js';
import type { EndpointRecord, MessageRecord } from './records.js';
import { slackBody } from './slack.js';

/** The `webhook-id` of an event: stable, so that every attempt and every process sends the same one. */
export function messageIdOf(eventId: string): string {
  return `msg_${createHash('sha256').update(eventId).digest('base64url').slice(0, 27)}`;
}

export function wants(endpoint: EndpointRecord, event: WebhookEvent): boolean {
  if (!endpoint.enabled) return false;
  if (endpoint.eventTypes.length > 0 && !endpoint.eventTypes.includes(event.type)) return false;
  if (endpoint.queues.length === 0) return true;
  const queue = queueOf(event);
  if (queue === undefined) return false;
  const key = queueFilterKey(queue);
  return endpoint.queues.some((wanted) => queueFilterKey(wanted) === key);
}

/** The body an endpoint of this kind is sent for the event. */
export function bodyFor(endpoint: EndpointRecord, event: WebhookEvent): string {
  if (endpoint.kind === 'slack') return slackBody(event);
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
}

/** Whether the organization has any endpoint (a read that takes no lock: queue transactions ask it). */
export function hasEndpoints(tx: { get: WriteTx['get'] }, org: string): boolean {
  return (tx.get('webhookOrgs', [org])?.endpoints ?? 0) > 0;
}

/** Writes the messages of `events` for the organization's endpoints that want them; how many it wrote. */
export function writeMessages(tx: WriteTx, org: string, events: readonly WebhookEvent[], now: number): number {
  if (events.length === 0 || !hasEndpoints(tx, org)) return 0;
  let written = 0;
  for (const { key, value } of [...tx.scan('webhookEndpoints', { prefix: [org] })]) {
    const endpoint = { ...value };
    for (const event of events) {
      if (!wants(endpoint, event)) continue;
      const seq = endpoint.nextSeq++;
      const pr = prOf(event);
      const message: MessageRecord = {
        id: `${endpoint.id}.${seq}`,
        messageId: messageIdOf(event.id),
        type: event.type,
        body: bodyFor(endpoint, event),
        ...(pr === undefined ? {} : { pr }),
        status: 'pending',
        attempts: 0,
        dueAt: now,
        createdAt: new Date(now).toISOString(),
        log: [],
        claimedBy: '',
        claimedUntil: 0,
      };
      tx.put('webhookMessages', [org, endpoint.id, seq], message);
      tx.put('webhookPending', [endpoint.id, seq], org);
      written++;
    }
    if (endpoint.nextSeq !== value.nextSeq) tx.put('webhookEndpoints', key, endpoint);
  }
  return written;
}
