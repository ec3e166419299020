/**
 * The web dashboard's routes (pages in web/): sign-in and sign-out, the organization, queue, PR, run and state-chart
 * pages, the queue actions (state, settings) and the live event stream. Every page needs a session; another
 * organization's queue is not found. Actions go through the same router as the API, so they validate alike.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { loadAssets } from '../web/assets.js';
import { chartsBody } from '../web/chartsPage.js';
import { page, type PageOptions } from '../web/layout.js';
import { orgPage } from '../web/orgPage.js';
import { readQueue } from '../web/queuePage.js';
import { clearedCookie, csrfMatches, csrfToken, openSession, sessionCookie, type Session } from '../web/session.js';
import { safeNext, signinBody } from '../web/signinPage.js';
import { DashboardEvents } from './dashboardEvents.js';
import {
  withoutSession,
  csrfOf,
  errorBlock,
  errorPage,
  formOf,
  sameOrigin,
  sendPage,
  sessionOf,
  signinPage,
  type Handler,
} from './dashboardHttp.js';
import { errorReply, httpError } from './errors.js';
import { registerDevicePages } from './dashboardDevice.js';
import { registerFlakyPages } from './dashboardFlaky.js';
import type { DeviceCodes } from '../engine/deviceCodes.js';
import { canAdmin, registerPrPages } from './dashboardPr.js';
import { registerWebhookPages } from './webhookPages.js';
import { registerQueuePages } from './dashboardQueue.js';
import { createCaller } from './router.js';
import { WhatIfs, type WhatIfRunner } from './dashboardWhatIf.js';
import type { QueueRecord } from '../engine/model/queues.js';

export interface DashboardOptions {
  engine: Engine;
  /** Where people reach this service (known once it listens, when its port is picked at start). */
  publicUrl: () => string;
  /** Terminals waiting for a person to approve their sign-in at /device. */
  devices: DeviceCodes;
  /** Compares a queue's settings with the recommender's pick on its fitted workload (the queue page's "what if"). */
  whatIf?: WhatIfRunner;
}

const FORM_LIMIT = 64 * 1024;

export async function registerDashboard(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { engine, publicUrl } = options;
  const secure = () => publicUrl().startsWith('https:');
  const assets = loadAssets();
  const events = new DashboardEvents(engine);
  const whatIfs =
    options.whatIf === undefined
      ? undefined
      : new WhatIfs(
          options.whatIf,
          () => engine.clock.now(),
          (queueId) => events.touch(queueId),
        );
  app.addHook('preClose', async () => {
    whatIfs?.close();
    events.close();
  });
  /** The queue page's view: with the "what if" panel when this service can simulate. */
  const queueView = (queue: QueueRecord, admin: boolean) => ({
    ...readQueue(engine, queue, admin),
    ...(whatIfs === undefined ? {} : { whatIf: { state: whatIfs.stateOf(queue.id) } }),
  });

  /** A page or action that needs a session: without one, the sign-in page (for a post, 401 as well). */
  const signedIn =
    (handler: Handler) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const session = sessionOf(engine, request);
      if (session === undefined) return withoutSession(request, reply);
      if (request.method === 'POST' && !sameOrigin(request)) {
        return errorPage(reply, request, httpError('cross_origin', { post: 'crossOrigin' }), session.org);
      }
      if (request.method === 'POST' && !csrfMatches(engine, session, csrfOf(request))) {
        return errorPage(reply, request, httpError('cross_origin', { post: 'withoutCsrf' }), session.org);
      }
      try {
        return await handler(request, reply, session);
      } catch (error) {
        return errorPage(reply, request, error, session.org);
      }
    };
  const show = (reply: FastifyReply, session: Session, options: Omit<PageOptions, 'org'>, status = 200) =>
    sendPage(
      reply,
      status,
      page({
        now: engine.clock.now(),
        ...options,
        org: session.org,
        admin: canAdmin(engine, session),
        version: events.version,
        csrf: csrfToken(engine, session),
      }),
    );

  await app.register(async (scope) => {
    // Every page and action here needs a session unless it says otherwise (access.ts checks it before the route).
    scope.addHook('onRoute', (route) => {
      route.config = { access: 'session', ...route.config };
    });
    const open = { config: { access: 'public' } } as const;
    // Forms post URL-encoded bodies; only in this scope (the API keeps answering 415 to anything but JSON).
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_request, body, done) => {
        done(null, new URLSearchParams(String(body)));
      },
    );

    scope.get<{ Params: { name: string } }>('/assets/:name', open, async (request, reply) => {
      const asset = assets.get(request.params.name);
      if (asset === undefined)
        return reply.code(404).type('text/plain; charset=utf-8').send(`no asset ${request.params.name}`);
      return reply
        .type(asset.type)
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .send(asset.body);
    });

    // The icon, for every page (named in their head) and for a browser that asks /favicon.ico of its own accord.
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      scope.get(path, open, async (_request, reply) => {
        const icon = assets.get('favicon.svg')!;
        return reply
          .type(icon.type)
          .header('cache-control', 'public, max-age=86400')
          .header('x-content-type-options', 'nosniff')
          .send(icon.body);
      });
    }

    scope.get<{ Querystring: { next?: string } }>('/signin', open, async (request, reply) => {
      if (sessionOf(engine, request) !== undefined) return reply.redirect(safeNext(request.query.next), 303);
      return sendPage(
        reply,
        200,
        page({ title: 'Sign in', body: signinBody(undefined, safeNext(request.query.next)) }),
      );
    });

    scope.post('/signin', open, async (request, reply) => {
      if (!sameOrigin(request))
        return sendPage(
          reply,
          403,
          page({ title: 'Sign in', body: errorBlock(errorReply('cross_origin', { action: 'sign-in' })) }),
        );
      const form = formOf(request);
      const next = safeNext(form.get('next') ?? undefined);
      const token = form.get('token') ?? '';
      if (token === '') return signinPage(reply, next, 'Enter an API token.', 400);
      const opened = openSession(engine, token, Date.now());
      if (opened === undefined) return signinPage(reply, next, 'That API token is not valid.');
      return reply.header('set-cookie', sessionCookie(opened.cookie, secure())).redirect(next, 303);
    });

    scope.post('/signout', open, async (request, reply) => {
      if (!sameOrigin(request))
        return sendPage(
          reply,
          403,
          page({ title: 'Sign out', body: errorBlock(errorReply('cross_origin', { action: 'sign-out' })) }),
        );
      return reply.header('set-cookie', clearedCookie(secure())).redirect('/signin', 303);
    });

    // Open: without a session the stream is answered and told `signed-out` (dashboardEvents.ts), not refused.
    scope.get('/events', open, async (request, reply) => {
      const session = sessionOf(engine, request);
      // HEAD: a script asking whether a session stands (no stream).
      if (request.method === 'HEAD') return session === undefined ? reply.code(401).send() : reply.code(204).send();
      reply.hijack();
      if (session === undefined) events.signedOut(reply.raw);
      else events.open(session, reply.raw);
      return reply;
    });

    scope.get(
      '/',
      signedIn(async (_request, reply, session) =>
        show(reply, session, { title: 'Queues', live: 'all', body: await orgPage(engine, session.org) }),
      ),
    );

    scope.get(
      '/charts',
      signedIn((_request, reply, session) =>
        show(reply, session, { title: 'State charts', live: 'all', body: chartsBody(engine, session.org) }),
      ),
    );

    const caller = (session: Session) =>
      createCaller({
        org: session.org,
        tokenId: session.tokenId,
        actor: `token ${session.tokenId} (dashboard)`,
        engine,
        publicUrl: publicUrl(),
      });
    registerQueuePages(scope, { engine, signedIn, show, caller, whatIfs, queueView });
    registerPrPages(scope, { engine, signedIn, show, caller });
    registerFlakyPages(scope, { engine, signedIn, show });
    registerWebhookPages(scope, { engine, publicUrl, signedIn, show });
    registerDevicePages(scope, { engine, devices: options.devices, signedIn, show });
  });
}
