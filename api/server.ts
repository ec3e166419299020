/**
 * The REST facade: a Fastify app (built here, listened on by the CLI) whose routes parse, call the tRPC router
 * through a caller, and shape the spec's body. No business logic lives here.
 */
import helmet from '@fastify/helmet';
import type { z } from 'zod';
import { waitForBusyQueues } from './queueBusy.js';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { Engine } from '../engine/engine.js';
import { scopeAllows, type TokenScope } from '../engine/tokens.js';
import type { InboundRoute } from '../hosts/hostPlugin.js';
import type { CiLogSource } from '../engine/providers/types.js';
import { accessHook, identify, recordRoutes } from './access.js';
import { rewriteUrl } from './canonicalPath.js';
import {
  clientErrorHandler,
  continueBeforeBody,
  guardConnections,
  noIdleTimeoutWhileWorking,
  requireHost,
} from './connections.js';
import { registerDashboard } from './dashboard.js';
import type { WhatIfRunner } from './dashboardWhatIf.js';
import { errorReply, fieldsReply, toErrorReply, type ErrorReply } from './errors.js';
import { registerHostRoutes } from './hostRoutes.js';
import { METRICS_PATH, OPENAPI_PATH, POST_ENDPOINTS } from './endpoints.js';
import { createCaller } from './router.js';
import { MAX_BODY_BYTES, type MetricsQueryInput } from './schemas.js';
import { openApiDocument } from './openapi.js';
import { registerServiceRoutes, SERVICE_PATHS } from './serviceRoutes.js';
import { registerRateLimits, type RateLimitOptions } from './rateLimits.js';
import { endAnswersWithNewline } from './textLines.js';
import { findMalformedText } from './wellFormed.js';
import { countCasesWhileReading, UPLOAD_PATH } from './uploadStream.js';

export interface ServerOptions {
  engine: Engine;
  /** Where people reach this service (GREENLINE_PUBLIC_URL), for links in responses; default http://localhost:8080. */
  publicUrl?: string | (() => string);
  logger?: FastifyServerOptions['logger'];
  /** The built-in CI's logs, served at GET /ci-logs/<runId>/<status> to the organization owning the run. */
  ciLogs?: CiLogSource;
  /** The service's version, for the OpenAPI document. */
  version?: string;
  /** The git host's inbound routes (webhooks: engine/providers/hostPlugin.ts), e.g. a GitHub App's deliveries. */
  routes?: readonly InboundRoute[];
  /**
   * Milliseconds a client has to send a whole request (408 after), a connection may stay silent, and an idle
   * keep-alive connection is kept. Defaults 60 s, 120 s, 5 s: a stalled client never holds a socket for good.
   */
  timeouts?: { requestMs?: number; idleMs?: number; keepAliveMs?: number };
  /** Requests per token per window (see rateLimits.ts); absent: no limit (the service always sets one). */
  rateLimit?: RateLimitOptions;
  /** The dashboard's "what if" comparisons (cli/whatIf.ts); absent: the queue page has no such panel. */
  whatIf?: WhatIfRunner;
}

/** A call beyond the token's scope: 403, with a code of its own. */
function scopeReply(scope: TokenScope, needed: TokenScope, what: string): ErrorReply {
  return errorReply('insufficient_scope', { scope, what, needed });
}

/** A 503 is the service restarting or a dependency away for a while: a client may try again after this many seconds. */
export const RETRY_AFTER_SECONDS = 5;

function send(reply: FastifyReply, error: ErrorReply): FastifyReply {
  const retryAfter = error.retryAfterSeconds ?? (error.status === 503 ? RETRY_AFTER_SECONDS : undefined);
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.body);
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const { engine } = options;
  // A function when the address is known only once listening (PORT=0).
  const publicUrlOf = () => {
    const given = typeof options.publicUrl === 'function' ? options.publicUrl() : options.publicUrl;
    return (given ?? 'http://localhost:8080').replace(/\/+$/, '');
  };
  const requestMs = options.timeouts?.requestMs ?? 60_000;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: MAX_BODY_BYTES,
    requestTimeout: requestMs,
    // Node checks the request and header timeouts only this often (30 s by default): often enough for short ones.
    http: {
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, requestMs / 4)),
      headersTimeout: Math.min(60_000, requestMs),
      // Checked by a hook instead, so that the 400 comes in the error shape (connections.ts).
      requireHostHeader: false,
    },
    connectionTimeout: options.timeouts?.idleMs ?? 120_000,
    keepAliveTimeout: options.timeouts?.keepAliveMs ?? 5_000,
    // We answer 503 ourselves while closing, in the one error shape.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    // One canonical target (canonicalPath.ts) for the router, and so for the access check of the matched route.
    rewriteUrl,
    // What Node's parser refuses, in the one error shape (connections.ts).
    clientErrorHandler,
  });
  // 413 before any `100 Continue`, and a final answer that always reaches the client (connections.ts).
  guardConnections(app.server, MAX_BODY_BYTES, '20 MiB');
  recordRoutes(app);
  // Every route that writes waits for a busy queue (another transaction holds its lock) before a 503 (queueBusy.ts).
  waitForBusyQueues(app);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Requests that were in flight when closing began end their connection, so close() need not wait for keep-alive.
  app.addHook('onSend', async (request, reply) => {
    if (closing) reply.header('connection', 'close');
    // Group commit: no answer before what was committed for it (and before it) is on disk; the health checks show
    // nothing stored, and answer even while the disk is slow.
    if (request.routeOptions.url === '/healthz' || request.routeOptions.url === '/readyz') return;
    await engine.durable().catch((error: unknown) => {
      if (reply.statusCode < 400) throw error;
    });
  });

  // Every JSON or plain-text answer ends with a newline (textLines.ts).
  endAnswersWithNewline(app);

  // Security headers on every answer (the dashboard's pages send their own, stricter content security policy).
  await app.register(helmet, { contentSecurityPolicy: false, global: true });

  // Before the access check: a request with a junk token, or none, is counted (per address) too.
  if (options.rateLimit !== undefined) {
    await registerRateLimits(app, options.rateLimit, (request) => {
      const identity = identify(engine, request);
      return 'status' in identity ? undefined : identity.tokenId;
    });
  }

  // Only JSON bodies: drop Fastify's text/plain parser so every other type is a 415.
  app.removeContentTypeParser('text/plain');

  app.decorateRequest('org', '');
  app.decorateRequest('tokenId', '');
  app.decorateRequest('scope', 'read');
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      return send(reply, errorReply('unavailable', { state: 'shuttingDown' }));
    }
  });
  app.addHook('onRequest', requireHost);
  // Who may call a route is the matched route's config (access.ts): a route without one needs a token.
  app.addHook('onRequest', accessHook(engine));
  // `100 Continue` only for a request let through to its body (connections.ts).
  app.addHook('preParsing', continueBeforeBody);
  // Read whole: the server's work on a request (a large upload, a slow sync) is not the client idling (connections.ts).
  app.addHook('preHandler', noIdleTimeoutWhileWorking);

  app.setErrorHandler((error, request, reply) => {
    const mapped = toErrorReply(error);
    if (mapped.unexpected) request.log.error({ err: error }, 'unexpected error');
    return send(reply, mapped);
  });

  // Device sign-ins live in the store: a restart or another process on the same store answers the terminal.
  const devices = engine.deviceCodes;
  const callerFor = (request: FastifyRequest) =>
    createCaller({ org: request.org, tokenId: request.tokenId, engine, publicUrl: publicUrlOf() });

  for (const endpoint of POST_ENDPOINTS) {
    // An upload's test cases are counted as its body arrives: over the limit, refused before the rest is read.
    const routeOptions = endpoint.path === UPLOAD_PATH ? { preParsing: countCasesWhileReading } : {};
    app.post(`/v1/${endpoint.path}`, routeOptions, async (request, reply) => {
      if (!scopeAllows(request.scope, endpoint.scope))
        return send(reply, scopeReply(request.scope, endpoint.scope, endpoint.path));
      const malformed = findMalformedText(request.body);
      if (malformed !== undefined) {
        const field = malformed.length === 0 ? '(body)' : malformed.join('.');
        return send(reply, fieldsReply([{ field, message: 'must be valid Unicode (no unpaired surrogate)' }]));
      }
      return endpoint.call(callerFor(request), request.body ?? {});
    });
  }

  // The query string as the procedure's schema takes it (which checks it); Fastify parses it into strings.
  app.get<{ Querystring: z.input<typeof MetricsQueryInput> }>(
    `/v1/${METRICS_PATH}`,
    { config: { budget: 'scrape' } },
    async (request, reply) => {
      const metrics = await callerFor(request).getMergeQueueMetrics(request.query);
      return reply.type(metrics.contentType).send(metrics.text);
    },
  );

  // The document of the API holds nothing of anyone's: it needs no token.
  let openapi: string | undefined;
  app.get(`/v1/${OPENAPI_PATH}`, { config: { access: 'public' } }, async (_request, reply) => {
    openapi ??= JSON.stringify(openApiDocument({ publicUrl: publicUrlOf(), version: options.version ?? '0.0.0' }));
    return reply.type('application/json; charset=utf-8').send(openapi);
  });

  // The web dashboard (web/): its pages, including /tests/<id> where every test's html_url points.
  await registerDashboard(app, {
    engine,
    publicUrl: publicUrlOf,
    devices,
    ...(options.whatIf === undefined ? {} : { whatIf: options.whatIf }),
  });

  // The hosted service's newer paths: status, device sign-in, create-ci-run (serviceRoutes.ts).
  await registerServiceRoutes(app, { engine, devices, publicUrl: publicUrlOf, version: options.version ?? '0.0.0' });

  // CI output may hold anything a build prints, so it takes the same token as the API: a link opens with
  // `curl -H "x-api-token: ..."`, and another organization's run is not found.
  const ciLogs = options.ciLogs;
  if (ciLogs !== undefined) {
    app.get<{ Params: { runId: string; status: string } }>('/ci-logs/:runId/:status', async (request, reply) => {
      const log = await ciLogs.openLog(request.org, request.params.runId, request.params.status);
      if (log === undefined)
        return send(reply, errorReply('log_not_found', { status: request.params.status, runId: request.params.runId }));
      return reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(log);
    });
  }

  await registerHostRoutes(app, options.routes ?? []);

  // Health: no token, nothing revealed. /healthz: the process answers. /readyz: the store is open and the engine runs;
  // a full store is ready for reads only, which it says (200, so that reads keep being routed to it).
  const health = { config: { access: 'public', budget: 'scrape' } } as const;
  app.get('/healthz', health, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );
  app.get('/readyz', health, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    if (closing || !engine.running()) return send(reply, errorReply('unavailable', { state: 'notReady' }));
    const full = engine.storeFull();
    if (full !== undefined) {
      return reply.send({
        status: 'read-only',
        reason: `${full}; writes are answered 507 storage_full until there is room, reads are served`,
      });
    }
    return reply.send({ status: 'ready' });
  });

  const known = new Map<string, string>([
    ...POST_ENDPOINTS.map((endpoint) => [`/v1/${endpoint.path}`, 'POST'] as const),
    [`/v1/${METRICS_PATH}`, 'GET'],
    [`/v1/${OPENAPI_PATH}`, 'GET'],
    ...SERVICE_PATHS,
    ['/healthz', 'GET'],
    ...(options.routes ?? []).map((route) => [route.path, route.method] as const),
    ['/readyz', 'GET'],
  ]);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const method = known.get(path);
    if (method !== undefined) {
      reply.header('allow', method);
      return send(reply, errorReply('method_not_allowed', { method: request.method, path, allowed: method }));
    }
    return send(reply, errorReply('endpoint_not_found', { method: request.method, path }));
  });

  return app;
}
