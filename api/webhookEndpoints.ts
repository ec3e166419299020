/** The outgoing-webhook endpoints of the REST facade (mounted under /v1/webhooks/; ours; admin scope). */
import { endpoint, type Endpoint } from './endpoint.js';
import { EmptyBody } from './responseSchemas.js';
import * as schemas from './webhookSchemas.js';

export const WEBHOOK_ENDPOINTS: Endpoint[] = [
  endpoint({
    path: 'webhooks/create',
    scope: 'admin',
    ours: true,
    summary:
      'Register a webhook endpoint (Standard Webhooks, or a Slack incoming webhook); its signing secret is answered once',
    input: schemas.CreateWebhookInput,
    output: schemas.EndpointWithSecretBody,
    call: (c, b) => c.createWebhook(b),
  }),
  endpoint({
    path: 'webhooks/list',
    scope: 'admin',
    ours: true,
    summary: "The organization's webhook endpoints (without their secrets)",
    input: schemas.ListWebhooksInput,
    output: schemas.EndpointListBody,
    call: (c, b) => c.listWebhooks(b),
  }),
  endpoint({
    path: 'webhooks/update',
    scope: 'admin',
    ours: true,
    summary: "Change a webhook endpoint's URL, kind, description, event types, queues or whether it is enabled",
    input: schemas.UpdateWebhookInput,
    output: schemas.EndpointOnlyBody,
    call: (c, b) => c.updateWebhook(b),
  }),
  endpoint({
    path: 'webhooks/rotate-secret',
    scope: 'admin',
    ours: true,
    summary: 'A new signing secret, answered once; the previous one keeps signing beside it for a day',
    input: schemas.WebhookIdInput,
    output: schemas.EndpointWithSecretBody,
    call: (c, b) => c.rotateWebhookSecret(b),
  }),
  endpoint({
    path: 'webhooks/delete',
    scope: 'admin',
    ours: true,
    summary: 'Delete a webhook endpoint and its deliveries',
    input: schemas.WebhookIdInput,
    output: EmptyBody,
    call: (c, b) => c.deleteWebhook(b),
  }),
  endpoint({
    path: 'webhooks/deliveries/list',
    scope: 'admin',
    ours: true,
    summary:
      "A webhook endpoint's deliveries, newest first, with each attempt's response status, body excerpt and duration",
    input: schemas.ListDeliveriesInput,
    output: schemas.DeliveryListBody,
    call: (c, b) => c.listWebhookDeliveries(b),
  }),
  endpoint({
    path: 'webhooks/deliveries/redeliver',
    scope: 'admin',
    ours: true,
    summary: 'Send a delivery again (same webhook-id), with a fresh round of attempts',
    input: schemas.DeliveryIdInput,
    output: schemas.DeliveryOnlyBody,
    call: (c, b) => c.redeliverWebhook(b),
  }),
];
