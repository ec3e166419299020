/** Rate limits per token: 429 rate_limited with retry-after; the scrape and health checks have their own budget. */
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
const scrape = (token: string) => app.inject({ method: 'GET', url: '/v1/getMergeQueueMetrics', headers: { 'x-api-token': token } });

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
