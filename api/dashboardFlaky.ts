/** The flaky-test pages' routes: listings, a test's page (where every listing's html_url points) and its quarantine toggle. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { httpError } from './errors.js';
import type { QuarantineOverride } from '../engine/flaky/index.js';
import { flakyBody, listingQuery, testBody } from '../web/flakyPages.js';
import type { PageOptions } from '../web/layout.js';
import type { Session } from '../web/session.js';
import { formOf, requireScope, type Handler } from './dashboardHttp.js';

export interface FlakyPagesOptions {
  engine: Engine;
  signedIn: (handler: Handler) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  show: (reply: FastifyReply, session: Session, options: Omit<PageOptions, 'org'>, status?: number) => FastifyReply;
}

const SETTINGS: Record<string, QuarantineOverride | null> = {
  ALWAYS_QUARANTINE: 'ALWAYS_QUARANTINE',
  NEVER_QUARANTINE: 'NEVER_QUARANTINE',
  clear: null,
};

export function registerFlakyPages(scope: FastifyInstance, options: FlakyPagesOptions): void {
  const { engine, signedIn, show } = options;

  scope.get(
    '/flaky',
    signedIn((request, reply, session) => {
      const query = listingQuery(engine, session.org, request.query as Record<string, string | undefined>);
      return show(reply, session, { title: 'Flaky tests', body: flakyBody(engine, session.org, query) });
    }),
  );

  scope.get(
    '/tests/:id',
    signedIn(async (request, reply, session) => {
      const id = (request.params as { id: string }).id;
      const { name, body } = await testBody(engine, session.org, id);
      return show(reply, session, { title: `Test ${name}`, body });
    }),
  );

  scope.post(
    '/tests/:id/quarantine',
    signedIn((request, reply, session) => {
      requireScope(engine, session, 'write', 'quarantining a test');
      const id = (request.params as { id: string }).id;
      const setting = formOf(request).get('setting') ?? '';
      if (!(setting in SETTINGS))
        throw httpError('invalid_field', {
          field: 'setting',
          oneOf: ['ALWAYS_QUARANTINE', 'NEVER_QUARANTINE', 'clear'],
        });
      const service = engine.flakyTests;
      const { repo } = service.testDetail(session.org, session.org, id);
      service.setQuarantine(session.org, session.org, repo, id, SETTINGS[setting] ?? null);
      return reply.redirect(`/tests/${encodeURIComponent(id)}`, 303);
    }),
  );
}
