/** The outgoing-webhook procedures (ours): endpoints of the token's organization, their deliveries, redelivery. */
import type { EndpointInput, EndpointPatch } from '../engine/notifications/endpoints.js';
import { procedure, t } from './trpc.js';
import { deliveryView, endpointView } from './webhookViews.js';
import * as schemas from './webhookSchemas.js';

function inputOf(body: schemas.CreateWebhookBody): EndpointInput {
  return {
    url: body.url,
    ...(body.kind === undefined ? {} : { kind: body.kind }),
    ...(body.description === undefined ? {} : { description: body.description }),
    ...(body.eventTypes === undefined ? {} : { eventTypes: body.eventTypes }),
    ...(body.queues === undefined ? {} : { queues: body.queues }),
    ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
  };
}

function patchOf(body: schemas.UpdateWebhookBody): EndpointPatch {
  const { id: _id, ...rest } = body;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as EndpointPatch;
}

export const webhookRouter = t.router({
  createWebhook: procedure.input(schemas.CreateWebhookInput).mutation(({ ctx, input }) => {
    const { endpoint, secret } = ctx.engine.webhooks.create(ctx.org, inputOf(input));
    return { endpoint: endpointView(endpoint, ctx.engine.clock.now()), secret };
  }),
  listWebhooks: procedure.input(schemas.ListWebhooksInput).query(({ ctx }) => ({
    endpoints: ctx.engine.webhooks.list(ctx.org).map((endpoint) => endpointView(endpoint, ctx.engine.clock.now())),
  })),
  updateWebhook: procedure.input(schemas.UpdateWebhookInput).mutation(({ ctx, input }) => ({
    endpoint: endpointView(ctx.engine.webhooks.update(ctx.org, input.id, patchOf(input)), ctx.engine.clock.now()),
  })),
  rotateWebhookSecret: procedure.input(schemas.WebhookIdInput).mutation(({ ctx, input }) => {
    const { endpoint, secret } = ctx.engine.webhooks.rotateSecret(ctx.org, input.id);
    return { endpoint: endpointView(endpoint, ctx.engine.clock.now()), secret };
  }),
  deleteWebhook: procedure.input(schemas.WebhookIdInput).mutation(({ ctx, input }) => {
    ctx.engine.webhooks.delete(ctx.org, input.id);
    return {};
  }),
  listWebhookDeliveries: procedure.input(schemas.ListDeliveriesInput).query(({ ctx, input }) => {
    const page = ctx.engine.webhooks.messages(ctx.org, input.endpointId, {
      take: input.take,
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.before === undefined ? {} : { before: input.before }),
    });
    return { deliveries: page.messages.map(deliveryView), ...(page.next === undefined ? {} : { next: page.next }) };
  }),
  redeliverWebhook: procedure
    .input(schemas.DeliveryIdInput)
    .mutation(({ ctx, input }) => ({ delivery: deliveryView(ctx.engine.webhooks.redeliver(ctx.org, input.id)) })),
});
