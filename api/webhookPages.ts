/**
 * The dashboard's webhook routes (admin scope, posts from this origin only, as every dashboard form): the list and
 * its form, an endpoint's deliveries, and the actions, which go through the API's router so they validate alike.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { html } from '../web/html.js';
import type { PageOptions } from '../web/layout.js';
import { queueById } from '../web/queueAccess.js';
import type { Session } from '../web/session.js';
import { deliveriesBody, endpointPath, WEBHOOKS_PATH, webhooksBody } from '../web/webhooksPage.js';
import { errorBlock, formOf, replyFor, requireScope, type Handler } from './dashboardHttp.js';
import { httpError } from './errors.js';
import { createCaller } from './router.js';

export interface WebhookPagesOptions {
  engine: Engine;
  publicUrl: () => string;
  signedIn: (handler: Handler) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  show: (reply: FastifyReply, session: Session, options: Omit<PageOptions, 'org'>, status?: number) => FastifyReply;
}

export function registerWebhookPages(scope: FastifyInstance, options: WebhookPagesOptions): void {
  const { engine, signedIn, show } = options;
  const caller = (session: Session) =>
    createCaller({ org: session.org, tokenId: session.tokenId, engine, publicUrl: options.publicUrl() });
  const admin = (session: Session) => requireScope(engine, session, 'admin', 'managing webhooks');
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  scope.get(
    WEBHOOKS_PATH,
    signedIn((_request, reply, session) => {
      admin(session);
      return show(reply, session, { title: 'Webhooks', body: webhooksBody(engine, session.org) });
    }),
  );

  scope.post(
    WEBHOOKS_PATH,
    signedIn(async (request, reply, session) => {
      admin(session);
      const form = formOf(request);
      const queues = form.getAll('queues').map((id) => {
        const queue = queueById(engine, session.org, id);
        return { repo: queue.repo, targetBranch: queue.branch };
      });
      const body = {
        url: form.get('url') ?? '',
        kind: form.get('kind') ?? 'webhook',
        description: form.get('description') ?? '',
        eventTypes: form.getAll('eventTypes'),
        queues,
      };
      try {
        const { secret } = await caller(session).createWebhook(
          body as Parameters<ReturnType<typeof createCaller>['createWebhook']>[0],
        );
        return show(reply, session, { title: 'Webhooks', body: webhooksBody(engine, session.org, secret) });
      } catch (error) {
        const mapped = replyFor(error);
        if (mapped.status !== 400 && mapped.status !== 409) throw error;
        reply.header('hx-replace-url', WEBHOOKS_PATH);
        return show(
          reply,
          session,
          { title: 'Webhooks', body: html`${errorBlock(mapped)}${webhooksBody(engine, session.org)}` },
          mapped.status,
        );
      }
    }),
  );

  scope.get(
    `${WEBHOOKS_PATH}/:id`,
    signedIn((request, reply, session) => {
      admin(session);
      const before = (request.query as { before?: string }).before;
      return show(reply, session, {
        title: 'Webhook deliveries',
        body: deliveriesBody(engine, session.org, idOf(request), before),
      });
    }),
  );

  scope.post(
    `${WEBHOOKS_PATH}/:id/enabled`,
    signedIn(async (request, reply, session) => {
      admin(session);
      const enabled = formOf(request).get('enabled');
      if (enabled !== 'true' && enabled !== 'false')
        throw httpError('invalid_field', { field: 'enabled', oneOf: ['true', 'false'] });
      await caller(session).updateWebhook({ id: idOf(request), enabled: enabled === 'true' });
      return reply.redirect(WEBHOOKS_PATH, 303);
    }),
  );

  scope.post(
    `${WEBHOOKS_PATH}/:id/rotate`,
    signedIn(async (request, reply, session) => {
      admin(session);
      const { secret } = await caller(session).rotateWebhookSecret({ id: idOf(request) });
      return show(reply, session, { title: 'Webhooks', body: webhooksBody(engine, session.org, secret) });
    }),
  );

  scope.post(
    `${WEBHOOKS_PATH}/:id/delete`,
    signedIn(async (request, reply, session) => {
      admin(session);
      if (formOf(request).get('confirm') !== 'yes')
        throw httpError('invalid_field', { unconfirmed: 'delete an endpoint and its deliveries' });
      await caller(session).deleteWebhook({ id: idOf(request) });
      return reply.redirect(WEBHOOKS_PATH, 303);
    }),
  );

  scope.post(
    `${WEBHOOKS_PATH}/deliveries/:id/redeliver`,
    signedIn(async (request, reply, session) => {
      admin(session);
      const { delivery } = await caller(session).redeliverWebhook({ id: idOf(request) });
      return reply.redirect(endpointPath(delivery.id.split('.')[0] ?? ''), 303);
    }),
  );
}
