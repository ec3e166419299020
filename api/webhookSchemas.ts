/** Request and response schemas of the outgoing-webhook endpoints (`/v1/webhooks/…`, ours; admin scope). */
import { z } from 'zod';
import { EVENT_TYPES } from '../engine/notifications/events.js';
import { ENDPOINT_KINDS, MESSAGE_STATUSES } from '../engine/notifications/records.js';
import { MAX_PAGE } from '../engine/notifications/service.js';
import { MAX_URL_LENGTH } from '../engine/notifications/urlPolicy.js';
import { BranchSchema, isWellFormed, RepoSchema } from './schemas.js';

const EndpointId = z.string().regex(/^whe_[0-9a-f]{16}$/, 'must be a webhook endpoint id (whe_…)');
const DeliveryId = z.string().regex(/^whe_[0-9a-f]{16}\.[1-9][0-9]{0,15}$/, 'must be a delivery id (whe_….N)');
const Url = z.string().min(1).max(MAX_URL_LENGTH);
const Description = z.string().max(500).refine(isWellFormed, 'must be valid Unicode (no unpaired surrogate)');
const QueueRef = z.object({ repo: RepoSchema, targetBranch: BranchSchema });

const EndpointFields = {
  kind: z
    .enum(ENDPOINT_KINDS)
    .meta({ description: '`webhook`: Standard Webhooks (signed JSON); `slack`: a Slack incoming webhook (Block Kit)' }),
  url: Url.meta({ description: 'http(s); a public address unless the service allows private ones' }),
  description: Description,
  eventTypes: z
    .array(z.enum(EVENT_TYPES))
    .max(EVENT_TYPES.length * 2)
    .meta({ description: 'The event types delivered; empty or absent: all' }),
  queues: z.array(QueueRef).max(100).meta({
    description: 'The queues whose events are delivered; empty or absent: every queue, and flaky-test events',
  }),
  enabled: z.boolean(),
};

export const CreateWebhookInput = z.object({
  ...EndpointFields,
  kind: EndpointFields.kind.optional(),
  description: Description.optional(),
  eventTypes: EndpointFields.eventTypes.optional(),
  queues: EndpointFields.queues.optional(),
  enabled: z.boolean().optional(),
});
export const UpdateWebhookInput = z.object({
  id: EndpointId,
  kind: EndpointFields.kind.optional(),
  url: Url.optional(),
  description: Description.optional(),
  eventTypes: EndpointFields.eventTypes.optional(),
  queues: EndpointFields.queues.optional(),
  enabled: z.boolean().optional(),
});
export const WebhookIdInput = z.object({ id: EndpointId });
export const ListWebhooksInput = z.object({});
export const ListDeliveriesInput = z.object({
  endpointId: EndpointId,
  status: z.enum(MESSAGE_STATUSES).optional(),
  take: z.number().int().min(1).max(MAX_PAGE).default(50),
  before: DeliveryId.optional().meta({ description: 'The `next` of the previous page' }),
});
export const DeliveryIdInput = z.object({ id: DeliveryId });

export type CreateWebhookBody = z.infer<typeof CreateWebhookInput>;
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookInput>;

const Timestamp = z.iso.datetime({ offset: true });

export const EndpointBody = z.object({
  id: z.string(),
  kind: z.enum(ENDPOINT_KINDS),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(z.enum(EVENT_TYPES)),
  queues: z.array(
    z.object({ repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }), targetBranch: z.string() }),
  ),
  enabled: z.boolean(),
  /** How many secrets sign now (2 for a day after a rotation). */
  signingSecrets: z.number().int().min(0),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const EndpointWithSecretBody = z.object({
  endpoint: EndpointBody,
  secret: z.string().meta({ description: 'The signing secret (whsec_…): shown this once' }),
});
export const EndpointOnlyBody = z.object({ endpoint: EndpointBody });
export const EndpointListBody = z.object({ endpoints: z.array(EndpointBody) });

export const AttemptBody = z.object({
  at: Timestamp,
  status: z
    .number()
    .int()
    .optional()
    .meta({ description: 'The HTTP status answered; absent when there was no answer' }),
  excerpt: z
    .string()
    .meta({ description: 'The start of the answer (at most 1,000 characters), or why there was none' }),
  durationMs: z.number().int().min(0),
  manual: z.boolean().optional(),
});
export const DeliveryBody = z.object({
  id: z.string(),
  webhookId: z.string().meta({ description: 'The `webhook-id` header: the same on every attempt and redelivery' }),
  type: z.enum(EVENT_TYPES),
  status: z.enum(MESSAGE_STATUSES),
  attempts: z.number().int().min(0),
  createdAt: Timestamp,
  nextAttemptAt: Timestamp.optional(),
  pr: z.number().int().optional(),
  body: z.string(),
  responses: z.array(AttemptBody),
});
export const DeliveryListBody = z.object({ deliveries: z.array(DeliveryBody), next: z.string().optional() });
export const DeliveryOnlyBody = z.object({ delivery: DeliveryBody });
