/** Endpoints and deliveries as the API answers them: never a secret but the one just made. */
import type { z } from 'zod';
import { signingSecrets } from '../engine/notifications/endpoints.js';
import type { EndpointRecord, MessageRecord } from '../engine/notifications/records.js';
import type { DeliveryBody, EndpointBody } from './webhookSchemas.js';

export function endpointView(endpoint: EndpointRecord, now: number): z.infer<typeof EndpointBody> {
  return {
    id: endpoint.id,
    kind: endpoint.kind,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    queues: endpoint.queues,
    enabled: endpoint.enabled,
    signingSecrets: signingSecrets(endpoint, now).length,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

export function deliveryView(message: MessageRecord): z.infer<typeof DeliveryBody> {
  return {
    id: message.id,
    webhookId: message.messageId,
    type: message.type,
    status: message.status,
    attempts: message.attempts,
    createdAt: message.createdAt,
    ...(message.status === 'pending' ? { nextAttemptAt: new Date(message.dueAt).toISOString() } : {}),
    ...(message.pr === undefined ? {} : { pr: message.pr }),
    body: message.body,
    responses: message.log,
  };
}
