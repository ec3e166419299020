/**
 * Who may call a route is the matched route's own config (`config.access`), read after routing on the canonical
 * target (canonicalPath.ts): never a second reading of the URL. A route that says nothing needs an API token, so a
 * route added without thinking is closed, not open. `session` routes (the dashboard) need a signed-in session;
 * `public` ones (health, sign-in, assets, the OpenAPI document, GitHub's webhooks, which check their signature)
 * need nothing. A refused target (400) and an unknown path (404) reach no route at all.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Engine } from '../engine/engine.js';
import type { TokenScope } from '../engine/tokens.js';
import { authenticate, type AuthResult } from './auth.js';
import { refusedTarget } from './canonicalPath.js';
import { sessionOf, withoutSession } from './dashboardHttp.js';
import { errorReply, type ErrorReply } from './errors.js';

export type Access = 'token' | 'session' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (default `token`). */
    access?: Access;
    /** The rate-limit budget it counts against (default the API's). */
    budget?: 'scrape';
  }
  interface FastifyInstance {
    /** Every route of the app, as registered (recordRoutes): what the path tests and the fuzzers aim at. */
    routeTable: RouteTable;
  }
  interface FastifyRequest {
    org: string;
    /** The request's token: its id (recorded with changes of queue settings) and scope. */
    tokenId: string;
    scope: TokenScope;
  }
}

export function accessOf(request: FastifyRequest): Access {
  return request.routeOptions.config.access ?? 'token';
}

const identities = new WeakMap<FastifyRequest, AuthResult>();

/** The request's token, checked once per request (the rate limit and the access check both ask). */
export function identify(engine: Engine, request: FastifyRequest): AuthResult {
  let identity = identities.get(request);
  if (identity === undefined) {
    identity = authenticate(engine, request.headers);
    identities.set(request, identity);
  }
  return identity;
}

function send(reply: FastifyReply, error: ErrorReply): FastifyReply {
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.body);
}

/**
 * The request hook that lets a request through to its route, or answers: 400 for a refused target, 401 without
 * the token or session the route needs. Sets `org`, `tokenId` and `scope` for token routes.
 */
export function accessHook(engine: Engine) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const refused = refusedTarget(request.raw);
    if (refused !== undefined) return send(reply, errorReply('bad_request', { target: refused }));
    if (request.is404) return;
    const access = accessOf(request);
    if (access === 'public') return;
    if (access === 'session') {
      if (sessionOf(engine, request) === undefined) return withoutSession(request, reply);
      return;
    }
    // Anything else needs a token.
    const auth = identify(engine, request);
    if ('status' in auth) return send(reply, auth);
    request.org = auth.org;
    request.tokenId = auth.tokenId;
    request.scope = auth.scope;
  };
}

export interface RouteEntry {
  method: string;
  url: string;
  access(): Access;
}

/** Told of every request that reaches a route's handler (the path tests and the fuzzers count them). */
export type HandlerWatcher = (request: FastifyRequest, route: RouteEntry) => void;

export interface RouteTable {
  routes: RouteEntry[];
  watchers: Set<HandlerWatcher>;
}

/** Keeps the table of `app`'s routes and lets handler entries be watched (call it before registering any route). */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteTable = { routes: [], watchers: new Set() };
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route: RouteOptions) => {
    // `access` is read late: a scope's own onRoute hook (the dashboard's) may set it after this one ran.
    const entries = [route.method]
      .flat()
      .map((method): RouteEntry => ({ method, url: route.url, access: () => route.config?.access ?? 'token' }));
    table.routes.push(...entries);
    const handler = route.handler;
    route.handler = function watched(this: FastifyInstance, request, reply) {
      const entry = entries.find(({ method }) => method === request.method) ?? entries[0]!;
      for (const watch of table.watchers) watch(request, entry);
      return handler.call(this, request, reply);
    };
  });
}
