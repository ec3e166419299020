/**
 * The dashboard's queue page and the actions on a queue: its state (running, paused, draining), its settings (a refused
 * form shows the queue page again with what was refused above it) and the "what if" comparison with the recommended
 * settings. Each action checks the token's scope as the API does (admin) and calls the same procedure through the router.
 */
import type { FastifyInstance } from 'fastify';
import type { QueueRecord } from '../engine/model/queues.js';
import { html, type Html } from '../web/html.js';
import { queueById, queueName, queuePath } from '../web/queueAccess.js';
import { queueBody, type QueueView } from '../web/queuePage.js';
import { settingsForm, settingsFromForm } from '../web/settingsForm.js';
import { errorBlock, formOf, replyFor, requireScope } from './dashboardHttp.js';
import { canAdmin, type PrPagesOptions } from './dashboardPr.js';
import type { WhatIfs } from './dashboardWhatIf.js';
import { httpError } from './errors.js';

export interface QueuePagesOptions extends PrPagesOptions {
  /** The "what if" comparisons, when this service can simulate. */
  whatIfs: WhatIfs | undefined;
  /** The queue page's view of a queue, for a reader who may or may not change it. */
  queueView: (queue: QueueRecord, admin: boolean) => QueueView;
}

export function registerQueuePages(scope: FastifyInstance, options: QueuePagesOptions): void {
  const { engine, signedIn, show, caller, whatIfs, queueView } = options;
  scope.get<{ Params: { queueId: string } }>(
    '/queues/:queueId',
    signedIn((request, reply, session) => {
      const queue = queueById(engine, session.org, (request.params as { queueId: string }).queueId);
      const admin = canAdmin(engine, session);
      return show(reply, session, {
        title: queueName(queue),
        live: queue.id,
        ...(admin ? { aside: settingsForm(queue) } : {}),
        body: queueBody(queueView(queue, admin)),
      });
    }),
  );

  const identity = (queueId: string, org: string) => {
    const queue = queueById(engine, org, queueId);
    return { queue, body: { repo: queue.repo, targetBranch: queue.branch } };
  };

  scope.post(
    '/queues/:queueId/state',
    signedIn(async (request, reply, session) => {
      requireScope(engine, session, 'admin', 'changing a queue');
      const { queue, body } = identity((request.params as { queueId: string }).queueId, session.org);
      const state = formOf(request).get('state');
      if (state === null)
        throw httpError('invalid_field', { missing: 'state', oneOf: ['running', 'paused', 'draining'] });
      await caller(session).updateQueue({ ...body, state });
      return reply.redirect(queuePath(queue), 303);
    }),
  );

  scope.post(
    '/queues/:queueId/settings',
    signedIn(async (request, reply, session) => {
      requireScope(engine, session, 'admin', 'changing a queue');
      const { queue, body } = identity((request.params as { queueId: string }).queueId, session.org);
      try {
        await caller(session).updateQueue({ ...body, ...settingsFromForm(formOf(request), queue) });
      } catch (error) {
        const mapped = replyFor(error);
        if (mapped.status !== 400 && mapped.status !== 409) throw error;
        // The queue page again, with what was refused above the form.
        const fresh = queueById(engine, session.org, queue.id);
        const aside: Html = html`${errorBlock(mapped)}${settingsForm(fresh)}`;
        // htmx shows the queue's own address, not the form's.
        reply.header('hx-replace-url', queuePath(fresh));
        return show(
          reply,
          session,
          { title: queueName(fresh), live: fresh.id, aside, body: queueBody(queueView(fresh, true)) },
          mapped.status,
        );
      }
      return reply.redirect(queuePath(queue), 303);
    }),
  );

  if (whatIfs !== undefined) {
    scope.post(
      '/queues/:queueId/what-if',
      signedIn(async (request, reply, session) => {
        requireScope(engine, session, 'admin', 'comparing the settings with the recommended ones');
        const queue = queueById(engine, session.org, (request.params as { queueId: string }).queueId);
        whatIfs.ask(queue);
        return reply.redirect(queuePath(queue), 303);
      }),
    );
  }

  // The actions' addresses, opened (a reload after a refused form), lead back to the queue.
  for (const action of whatIfs === undefined ? ['state', 'settings'] : ['state', 'settings', 'what-if']) {
    scope.get(
      `/queues/:queueId/${action}`,
      signedIn((request, reply, session) =>
        reply.redirect(queuePath(queueById(engine, session.org, (request.params as { queueId: string }).queueId)), 303),
      ),
    );
  }
}
