/**
 * Rate limits (`@fastify/rate-limit`): one client cannot flood the service. Every request is counted, before its
 * token is even checked and whatever its path (a route, an unknown path, a refused target): a valid API token
 * counts against its own budget; anything else (no token, a junk token, a dashboard session, a sign-in) against its
 * address, so guessing tokens or hammering sign-in is limited too. The metrics scrape and the health checks
 * (`config.budget: 'scrape'`) have a budget of their own, so a busy CI never starves the scraper or the probes (nor
 * the other way). Over the budget a request is a 429 `rate_limited` with `retry-after` (seconds).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface RateLimitOptions {
  /** Requests per window per token (or address) to the API and the dashboard. */
  perToken: number;
  /** Requests per window per token (or address) to the metrics scrape and the health checks. */
  scrapePerToken: number;
  /** The window, in milliseconds (default a minute). */
  windowMs?: number;
}

/** Whom a request is counted against: the id of its valid token, or undefined (then its address). */
export type TokenIdOf = (request: FastifyRequest) => string | undefined;

function isScrape(request: FastifyRequest): boolean {
  return !request.is404 && request.routeOptions.config.budget === 'scrape';
}

/** Registers the limiter as the first request hook of `app` (call it before any other onRequest hook). */
export async function registerRateLimits(
  app: FastifyInstance,
  options: RateLimitOptions,
  tokenIdOf: TokenIdOf,
): Promise<void> {
  const windowMs = options.windowMs ?? 60_000;
  await app.register(rateLimit, {
    // Not per route: one hook for every request, unknown paths included (see below).
    global: false,
    timeWindow: windowMs,
    max: (request) => (isScrape(request) ? options.scrapePerToken : options.perToken),
    keyGenerator: (request) => {
      const tokenId = tokenIdOf(request);
      return `${isScrape(request) ? 'scrape' : 'api'}:${tokenId === undefined ? `address:${request.ip}` : `token:${tokenId}`}`;
    },
    errorResponseBuilder: (_request, context) =>
      Object.assign(
        new Error(
          `too many requests: at most ${context.max} in ${Math.round(windowMs / 1000)} s; retry after ${context.after}`,
        ),
        {
          statusCode: 429,
          code: 'rate_limited',
        },
      ),
  });
  app.addHook('onRequest', app.rateLimit());
}
