/**
 * Rate limits (`@fastify/rate-limit`), counted per token: one client cannot flood the service. The API's budget is
 * per presented token (its hash; requests without one count per address), and the metrics scrape and the health
 * checks have a budget of their own, so a busy CI never starves the scraper or the probes (nor the other way).
 * Over the budget a request is a 429 `rate_limited` with `retry-after` (seconds).
 */
import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { presentedToken } from './auth.js';
import { METRICS_PATH } from './endpoints.js';

export interface RateLimitOptions {
  /** Requests per window per token to the API and the dashboard. */
  perToken: number;
  /** Requests per window per token (or address) to the metrics scrape and the health checks. */
  scrapePerToken: number;
  /** The window, in milliseconds (default a minute). */
  windowMs?: number;
}

const SCRAPE_PATHS = new Set([`/v1/${METRICS_PATH}`, '/healthz', '/readyz']);

function isScrape(request: FastifyRequest): boolean {
  return SCRAPE_PATHS.has(request.url.split('?')[0]?.replace(/\/+$/, '') ?? '');
}

function clientKey(request: FastifyRequest): string {
  const token = presentedToken(request.headers);
  const who = typeof token === 'string' ? `token:${createHash('sha256').update(token).digest('base64url')}` : `address:${request.ip}`;
  return `${isScrape(request) ? 'scrape' : 'api'}:${who}`;
}

export async function registerRateLimits(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    timeWindow: options.windowMs ?? 60_000,
    max: (request) => (isScrape(request) ? options.scrapePerToken : options.perToken),
    keyGenerator: clientKey,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`too many requests: at most ${context.max} in ${Math.round((options.windowMs ?? 60_000) / 1000)} s; retry after ${context.after}`), {
        statusCode: 429,
        code: 'rate_limited',
      }),
  });
}
