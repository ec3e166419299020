/**
 * Outgoing webhooks as the engine offers them (Engine.webhooks): endpoints (endpoints.ts), their messages and
 * redelivery, the fan-out of a queue's `notify` effect into messages (messages.ts), and the sender (sender.ts).
 */
import { engineError } from '../model/errors.js';
import type { Scheduler } from '../runtime/scheduler.js';
import type { Key, Store, WriteTx } from '../store/store.js';
import * as endpoints from './endpoints.js';
import type { NotifyEffect, WebhookEvent } from './events.js';
import { writeMessages } from './messages.js';
import {
  NO_OUTCOMES,
  type EndpointRecord,
  type MessageRecord,
  type MessageStatus,
  type OrgWebhooks,
} from './records.js';
import { WebhookSender } from './sender.js';
import { httpTransport, type Transport } from './transport.js';
import type { UrlPolicy } from './urlPolicy.js';
import type { QueueOwnership } from '../runtime/ownership.js';
import { wallClock, type Clock } from '../runtime/clock.js';

export interface WebhookOptions {
  /** Private and loopback endpoint addresses allowed (GREENLINE_WEBHOOKS_ALLOW_PRIVATE; tests). */
  allowPrivate?: boolean;
  /** How messages are posted (an HTTP POST unless given). */
  transport?: Transport;
  /** The clock of signature timestamps (the wall clock unless given: receivers compare them with theirs). */
  signClock?: Clock;
  random?: () => number;
  /** How often the sender looks for messages it was not told of (flaky-test events, other processes); never unless given. */
  pollMs?: number;
}

export interface MessagePage {
  messages: MessageRecord[];
  /** The id to pass as `before` for the next (older) page, when there is one. */
  next?: string;
}

export const MAX_PAGE = 100;

export class Webhooks {
  readonly policy: UrlPolicy;
  readonly sender: WebhookSender;

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    options: WebhookOptions,
    onError: (message: string, error: unknown) => void,
  ) {
    this.policy = { allowPrivate: options.allowPrivate ?? false };
    this.sender = new WebhookSender({
      store,
      scheduler,
      signClock: options.signClock ?? wallClock,
      transport: options.transport ?? httpTransport(this.policy),
      onError,
      ...(options.random === undefined ? {} : { random: options.random }),
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    });
  }

  private get now(): number {
    return this.scheduler.now();
  }

  create(org: string, input: endpoints.EndpointInput): { endpoint: EndpointRecord; secret: string } {
    return endpoints.createEndpoint(this.store, org, input, this.now, this.policy);
  }

  list(org: string): EndpointRecord[] {
    return endpoints.listEndpoints(this.store, org);
  }

  get(org: string, id: string): EndpointRecord {
    return endpoints.getEndpoint(this.store, org, id);
  }

  update(org: string, id: string, patch: endpoints.EndpointPatch): EndpointRecord {
    const endpoint = endpoints.updateEndpoint(this.store, org, id, patch, this.now, this.policy);
    // Enabled again: what waited for it goes out.
    if (patch.enabled === true) this.sender.kick();
    return endpoint;
  }

  rotateSecret(org: string, id: string): { endpoint: EndpointRecord; secret: string } {
    return endpoints.rotateSecret(this.store, org, id, this.now);
  }

  delete(org: string, id: string): void {
    endpoints.deleteEndpoint(this.store, org, id);
  }

  /** An endpoint's messages, newest first, optionally of one status, `take` at a time from before `before`. */
  messages(
    org: string,
    endpointId: string,
    options: { status?: MessageStatus; take?: number; before?: string } = {},
  ): MessagePage {
    const take = Math.min(options.take ?? 50, MAX_PAGE);
    return this.store.read((tx) => {
      endpoints.requireEndpoint(tx, org, endpointId);
      const end = options.before === undefined ? undefined : [org, endpointId, this.seqOf(endpointId, options.before)];
      const page: MessageRecord[] = [];
      let next: string | undefined;
      for (const { value } of tx.scan('webhookMessages', {
        prefix: [org, endpointId],
        reverse: true,
        ...(end === undefined ? {} : { end }),
      })) {
        if (options.status !== undefined && value.status !== options.status) continue;
        if (page.length === take) {
          next = page.at(-1)?.id;
          break;
        }
        page.push(value);
      }
      return next === undefined ? { messages: page } : { messages: page, next };
    });
  }

  private seqOf(endpointId: string, deliveryId: string): number {
    const [id, seq] = deliveryId.split('.');
    const number = Number(seq);
    if (id !== endpointId || !Number.isSafeInteger(number) || number < 1) {
      throw engineError('webhook_delivery_not_found', { deliveryId, endpointId });
    }
    return number;
  }

  private messageKey(org: string, deliveryId: string): Key {
    const endpointId = deliveryId.split('.')[0] ?? '';
    return [org, endpointId, this.seqOf(endpointId, deliveryId)];
  }

  message(org: string, deliveryId: string): MessageRecord {
    const message = this.store.read((tx) => tx.get('webhookMessages', this.messageKey(org, deliveryId)));
    if (message === undefined) throw engineError('webhook_delivery_not_found', { deliveryId });
    return message;
  }

  /**
   * Sends the message again, with its `webhook-id` (a receiver that took it before dedupes it): it is pending again
   * with a fresh round of attempts, in its place in the endpoint's order.
   */
  redeliver(org: string, deliveryId: string): MessageRecord {
    const key = this.messageKey(org, deliveryId);
    const message = this.store.write((tx) => {
      const current = tx.get('webhookMessages', key);
      if (current === undefined) throw engineError('webhook_delivery_not_found', { deliveryId });
      const again: MessageRecord = {
        ...current,
        status: 'pending',
        attempts: 0,
        dueAt: this.now,
        claimedBy: '',
        claimedUntil: 0,
        redelivered: true,
      };
      tx.put('webhookMessages', key, again);
      tx.put('webhookPending', key.slice(1), org);
      return again;
    });
    this.sender.kick();
    return message;
  }

  /** The organization's endpoint count and delivery outcomes so far (the metrics). */
  stats(org: string): OrgWebhooks {
    return this.store.read((tx) => tx.get('webhookOrgs', [org])) ?? { endpoints: 0, outcomes: { ...NO_OUTCOMES } };
  }

  /** Messages for the events of a flaky-test transaction, written in it (the sender is kicked after it commits). */
  noteInTransaction(tx: WriteTx, org: string, events: readonly WebhookEvent[]): number {
    return writeMessages(tx, org, events, this.now);
  }

  /** A queue's `notify` effect done: its messages written in the write that removes it from the outbox (as the queue's driver). */
  perform(ownership: QueueOwnership, queueId: string, key: Key, effect: NotifyEffect): void {
    const written = ownership.asOwner(queueId, () =>
      this.store.write((tx) => {
        tx.remove('outbox', key);
        return writeMessages(tx, effect.org, effect.events, this.now);
      }),
    );
    if (written > 0) this.sender.kick();
  }

  start(exclusive: boolean): void {
    this.sender.start(exclusive);
  }

  stop(): void {
    this.sender.stop();
  }

  settle(): Promise<void> {
    return this.sender.settle();
  }
}
