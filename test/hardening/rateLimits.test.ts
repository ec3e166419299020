/**
 * Rate limits: 429 rate_limited with retry-after. A valid token has its budget; everything else (no token, a junk
 * token, the dashboard, sign-in, unknown paths) counts per address. The scrape and health checks have their own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.js';
import { Engine } from '../../engine/engine.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { syncConfiguredTokens } from '../../engine/tokens.js';
import { expectErrorBody, REPO, START, TOKENS } from '../api/harness.js';

let app: FastifyInstance;
let engine: Engine;
beforeEach(async () => {
  const store = createMemoryStore();
  syncConfiguredTokens(
    store,
    Object.entries(TOKENS).map(([org, token]) => ({ org, token })),
    new Date(START).toISOString(),
  );
  engine = new Engine(store, { scheduler: new VirtualScheduler(START) });
  engine.start();
  app = await buildServer({ engine, rateLimit: { perToken: 3, scrapePerToken: 2 } });
});
afterEach(async () => {
  engine.stop();
  await app.close();
});

const getQueue = (token: string) =>
  app.inject({
    method: 'POST',
    url: '/v1/getQueue',
    headers: { 'x-api-token': token, 'content-type': 'application/json' },
    payload: JSON.stringify({ repo: REPO, targetBranch: 'main' }),
  });
const scrape = (token: string) =>
  app.inject({ method: 'GET', url: '/v1/getMergeQueueMetrics', headers: { 'x-api-token': token } });

describe('rate limits', () => {
  it('answer 429 rate_limited with retry-after once a token spent its budget; another token is not affected', async () => {
    for (let i = 0; i < 3; i++) expect((await getQueue(TOKENS.acme)).statusCode).toBe(404);
    const limited = await getQueue(TOKENS.acme);
    const body = expectErrorBody(limited, 429, 'rate_limited');
    expect(body.message).toContain('at most 3');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await getQueue(TOKENS.globex)).statusCode).toBe(404);
  });

  it('give the scrape and the health checks a budget of their own', async () => {
    for (let i = 0; i < 4; i++) await getQueue(TOKENS.acme);
    expect((await scrape(TOKENS.acme)).statusCode).toBe(200);
    expect((await scrape(TOKENS.acme)).statusCode).toBe(200);
    expectErrorBody(await scrape(TOKENS.acme), 429, 'rate_limited');
    // Health checks without a token count per address, apart from the API.
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expectErrorBody(await app.inject({ method: 'GET', url: '/healthz' }), 429, 'rate_limited');
  });
});

const statuses = async (count: number, send: (i: number) => Promise<{ statusCode: number }>) => {
  const seen: Record<number, number> = {};
  for (let i = 0; i < count; i++) {
    const { statusCode } = await send(i);
    seen[statusCode] = (seen[statusCode] ?? 0) + 1;
  }
  return seen;
};

describe('rate limits without a valid token (issue 27)', () => {
  it('count junk tokens per address, each a new one or the same: 401 until the budget is spent, then 429', async () => {
    expect(await statuses(5, (i) => getQueue(`junk-token-${i}`))).toEqual({ 401: 3, 429: 2 });
    // The address's budget is not a valid token's: that one still has all of its own.
    expect((await getQueue(TOKENS.acme)).statusCode).toBe(404);
  });

  it('limit sign-in posts per address: 150 against a budget of 50 are 100 429s', async () => {
    await app.close();
    app = await buildServer({ engine, rateLimit: { perToken: 50, scrapePerToken: 50 } });
    const signin = () =>
      app.inject({
        method: 'POST',
        url: '/signin',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'token=not-a-token',
      });
    expect(await statuses(150, signin)).toEqual({ 401: 50, 429: 100 });
  });

  it('limit the dashboard, unknown paths, refused targets and other spellings of a path alike, per address', async () => {
    expect(await statuses(2, () => app.inject({ method: 'GET', url: '/' }))).toEqual({ 401: 2 });
    expect(await statuses(2, () => app.inject({ method: 'GET', url: '/no/such/path' }))).toEqual({ 404: 1, 429: 1 });
    expectErrorBody(await app.inject({ method: 'GET', url: '/v1/getQueue%00' }), 429, 'rate_limited');
    expectErrorBody(await app.inject({ method: 'POST', url: '/%76%31/getQueue', payload: {} }), 429, 'rate_limited');
  });
});
