/**
 * What every dashboard route shares: the session check, the security headers of HTML answers, error pages, and
 * reading a posted form. Errors are pages here (the API answers JSON): each with the status the API would give.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { scopeAllows, scopeOf, type TokenScope } from '../engine/tokens.js';
import type { Engine } from '../engine/engine.js';
import { html, type Html } from '../web/html.js';
import { CSRF_FIELD, CSRF_HEADER, page } from '../web/layout.js';
import { cookieValue, readSession, SESSION_COOKIE, type Session } from '../web/session.js';
import { signinBody } from '../web/signinPage.js';
import { httpError, toErrorReply, type ErrorReply } from './errors.js';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // The state charts carry their own <style>, and the PR page highlights its chart with one.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** A dashboard route that runs only with a session (see `signedIn` in dashboard.ts). */
export type Handler = (
  request: FastifyRequest,
  reply: FastifyReply,
  session: Session,
) => Promise<FastifyReply> | FastifyReply;

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .send(body);
}

export function sessionOf(engine: Engine, request: FastifyRequest): Session | undefined {
  return readSession(engine, cookieValue(request.headers.cookie, SESSION_COOKIE), Date.now());
}

/**
 * A request without a valid session: a page opened (a browser's navigation or htmx's redraw asks for HTML) goes to the
 * sign-in page, to come back after (303: a 401 would be logged by the browser as an error); anything else (a post, the
 * live stream, a script's question) is answered 401 with the sign-in page.
 */
export function withoutSession(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const wantsPage = (request.headers.accept ?? '').includes('text/html') || request.headers['hx-request'] === 'true';
  if (request.method === 'GET' && wantsPage)
    return reply.redirect(`/signin?next=${encodeURIComponent(request.url)}`, 303);
  return signinPage(reply, request.method === 'GET' ? request.url : '/');
}

/** The sign-in page, answered to any page asked for without a valid session (401: it needs one). */
export function signinPage(reply: FastifyReply, next: string, message?: string, status = 401): FastifyReply {
  return sendPage(reply, status, page({ title: 'Sign in', body: signinBody(message, next) }));
}

/** An engine error, an HTTP error or a validation error as the status and message the API gives. */
export function replyFor(error: unknown): ErrorReply & { unexpected: boolean } {
  return toErrorReply(error);
}

export function errorBlock(error: ErrorReply): Html {
  return html`<div class="error" role="alert"><p>${error.body.message}</p>${
    error.body.details === undefined
      ? ''
      : html`<ul>${error.body.details.map((detail) => html`<li><strong>${detail.field}</strong>: ${detail.message}</li>`)}</ul>`
  }</div>`;
}

export function errorPage(
  reply: FastifyReply,
  request: FastifyRequest,
  error: unknown,
  org: string | undefined,
): FastifyReply {
  const mapped = replyFor(error);
  if (mapped.unexpected) request.log.error({ err: error }, 'unexpected error in the dashboard');
  if (mapped.retryAfterSeconds !== undefined) reply.header('retry-after', String(mapped.retryAfterSeconds));
  const title = mapped.status === 404 ? 'Not found' : mapped.status === 400 ? 'Bad request' : `Error ${mapped.status}`;
  return sendPage(
    reply,
    mapped.status,
    page({ title, ...(org === undefined ? {} : { org }), body: errorBlock(mapped) }),
  );
}

/** A form post (application/x-www-form-urlencoded, parsed by the dashboard's scope into URLSearchParams). */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

/** The CSRF token a post carries: its form field, or the header htmx sends (web/layout.ts). */
export function csrfOf(request: FastifyRequest): string | undefined {
  const header = request.headers[CSRF_HEADER];
  if (typeof header === 'string') return header;
  return formOf(request).get(CSRF_FIELD) ?? undefined;
}

/**
 * Posts must come from the dashboard's own pages: the session cookie is SameSite=Strict already, and a browser's
 * Origin header, when sent, must name this host.
 */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/** A PR number in a path: digits only, 1 to 2^31 - 1. */
export function prNumber(text: string): number | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const number = Number(text);
  return number >= 1 && number <= 2 ** 31 - 1 ? number : undefined;
}

/** Refuses (403) a dashboard action beyond the scope of the session's token: queue actions need admin, quarantine write. */
export function requireScope(engine: Engine, session: Session, needed: TokenScope, what: string): void {
  const token = engine.token(session.tokenId);
  const held = token === undefined ? 'read' : scopeOf(token);
  if (!scopeAllows(held, needed)) {
    throw httpError('insufficient_scope', { scope: held, what, needed });
  }
}
