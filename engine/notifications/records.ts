/** What outgoing webhooks keep in the store: endpoints and messages (one event for one endpoint, with its attempts). */
import type { EventType, QueueRef } from './events.js';

export const ENDPOINT_KINDS = ['webhook', 'slack'] as const;
/** `webhook`: Standard Webhooks (signed JSON); `slack`: a Slack incoming webhook (Block Kit, unsigned: Slack's URL is the secret). */
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

export interface EndpointSecret {
  /** `whsec_` + base64 of 32 random bytes (the Standard Webhooks form). */
  secret: string;
  createdAt: string;
  /** A rotated-out secret still signs until then (deliveries carry both signatures), so receivers can switch over. */
  expiresAt?: string;
}

export interface EndpointRecord {
  id: string;
  org: string;
  kind: EndpointKind;
  url: string;
  description: string;
  /** The event types delivered; empty: every type. */
  eventTypes: EventType[];
  /** The queues whose events are delivered; empty: every queue's (and the flaky-test events). */
  queues: QueueRef[];
  enabled: boolean;
  /** The current secret first, then rotated-out ones still signing. */
  secrets: EndpointSecret[];
  /** The sequence number of its next message. */
  nextSeq: number;
  createdAt: string;
  updatedAt: string;
}

export const MESSAGE_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** One attempt at delivering a message: the receiver's answer (or why there was none) and how long it took. */
export interface AttemptRecord {
  at: string;
  /** The HTTP status answered; absent when the request failed (refused, timed out, address not allowed). */
  status?: number;
  /** The start of the answer's body (at most 1,000 characters), or the error. */
  excerpt: string;
  durationMs: number;
  /** A person asked for it again (redeliver). */
  manual?: boolean;
}

export interface MessageRecord {
  /** `<endpointId>.<seq>`: how the API names a delivery. */
  id: string;
  /** The `webhook-id`: the event's id, the same for every attempt and redelivery (receivers dedupe by it). */
  messageId: string;
  type: EventType;
  /** The body sent, as sent (JSON). */
  body: string;
  /** The pull request the event is about (its messages keep their order), when it is a PR's. */
  pr?: number;
  status: MessageStatus;
  attempts: number;
  /** When the next attempt is due (ms), while pending. */
  dueAt: number;
  createdAt: string;
  /** The latest attempts, newest last (at most 10). */
  log: AttemptRecord[];
  /** A process sending it now, until when (several processes share a PostgreSQL store). */
  claimedBy: string;
  claimedUntil: number;
  /** A person asked for it again: its next attempt is marked `manual`. */
  redelivered?: boolean;
}

export const KEPT_ATTEMPTS = 10;
export const EXCERPT_CHARS = 1000;

export const OUTCOMES = ['delivered', 'retried', 'failed'] as const;
/** What happened to an attempt: delivered (2xx), failed and to be tried again, failed for good (its last attempt). */
export type Outcome = (typeof OUTCOMES)[number];

/** An organization's webhooks at a glance: how many endpoints, and every attempt's outcome so far (metrics). */
export interface OrgWebhooks {
  endpoints: number;
  outcomes: Record<Outcome, number>;
}

export const NO_OUTCOMES: Readonly<Record<Outcome, number>> = Object.freeze({ delivered: 0, retried: 0, failed: 0 });
