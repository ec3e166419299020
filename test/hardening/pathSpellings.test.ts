/**
 * Issue 27: one canonical path decides both routing and access. Every route of the app (the API, the flaky-test
 * endpoints, the metrics scrape, the dashboard, CI logs, GitHub's webhooks, health), each spelled every way
 * (bench/spellings.ts), over a raw socket so the request line is exactly the one written, without a token:
 * a spelling of the same path answers what the route answers without credentials (401 for a token or session
 * route); another path is a 404 (or 405, or the route's own 401 when a parameter takes the change); a target that is
 * no path is a 400. No handler of a protected route is ever entered, and nothing answers 5xx.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../bench/rawHttp.js';
import { concretePath, SPELLINGS } from '../../bench/spellings.js';
import { buildServer } from '../../api/server.js';
import { Engine } from '../../engine/engine.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { syncConfiguredTokens } from '../../engine/tokens.js';
import { START, TOKENS } from '../api/harness.js';
import { gitHubWebhookRoute } from '../../hosts/github/webhookRoute.js';

let app: FastifyInstance;
let engine: Engine;
let port: number;
const entered: string[] = [];

beforeAll(async () => {
  const store = createMemoryStore();
  syncConfiguredTokens(store, [{ org: 'acme', token: TOKENS.acme }], new Date(START).toISOString());
  engine = new Engine(store, { scheduler: new VirtualScheduler(START) });
  engine.start();
  app = await buildServer({
    engine,
    ciLogs: { openLog: async () => Readable.from(['a log']) },
    // A receiver as GitHub's: a delivery without its signature is refused, 401.
    routes: [
      gitHubWebhookRoute({
        receive: async (delivery) =>
          delivery.signature === undefined
            ? { status: 401, message: 'no signature' }
            : { status: 202, message: 'applied' },
      }),
    ],
  });
  app.routeTable.watchers.add((request, route) => {
    if (route.access() !== 'public') entered.push(`${request.method} ${request.originalUrl} -> ${route.url}`);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  engine.stop();
  await app.close();
});

const ask = (method: string, target: string) =>
  rawRequest(
    port,
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close`,
    method === 'GET' ? '' : '{}',
  );

describe('every route, every spelling of its path, without a token', () => {
  it('covers the whole app', () => {
    const urls = app.routeTable.routes.map(({ url }) => url);
    for (const url of [
      '/v1/getQueue',
      '/v1/flaky-tests/upload',
      '/v1/getMergeQueueMetrics',
      '/',
      '/queues/:queueId',
      '/ci-logs/:runId/:status',
      '/github/webhooks',
      '/healthz',
    ]) {
      expect(urls).toContain(url);
    }
  });

  it('answers the route’s unauthenticated answer, a 404 or a 400: never a protected handler, never 5xx', async () => {
    const problems: string[] = [];
    let asked = 0;
    for (const route of app.routeTable.routes.filter(({ method }) => method === 'GET' || method === 'POST')) {
      const path = concretePath(route.url);
      const access = route.access();
      const canonical = await ask(route.method, path);
      if (access !== 'public' && canonical.status !== 401)
        problems.push(`${route.method} ${path} (${access}) answers ${canonical.status} without credentials`);
      for (const spelling of SPELLINGS) {
        const target = spelling.spell(path, port);
        const answer = await ask(route.method, target);
        asked++;
        const what = `${route.method} ${target} (${spelling.name}, ${access} route ${route.url}) answered ${answer.status}: ${answer.body.slice(0, 100)}`;
        const fine =
          answer.status < 500 &&
          (spelling.kind === 'same'
            ? answer.status === canonical.status
            : spelling.kind === 'refused'
              ? answer.status === 400 && JSON.parse(answer.body).code === 'bad_request'
              : access === 'public' || [401, 404, 405].includes(answer.status));
        if (!fine) problems.push(what);
      }
    }
    expect(asked).toBeGreaterThan(500);
    expect(problems).toEqual([]);
    expect(entered).toEqual([]);
  });

  it('the reported spellings: encoded /v1 and an absolute-form request line are 401, not a handler’s answer', async () => {
    for (const target of [
      '/%76%31/getQueue',
      `http://127.0.0.1:${port}/v1/getQueue`,
      '/v1/../v1/getQueue',
      '//v1//getQueue',
      '/v1/%67etQueue/',
    ]) {
      const answer = await ask('POST', target);
      expect([target, answer.status, JSON.parse(answer.body).code]).toEqual([target, 401, 'unauthorized']);
    }
    const metrics = await ask('GET', '/%76%31/getMergeQueueMetrics');
    expect(metrics.status).toBe(401);
    expect(entered).toEqual([]);
  });

  it('with a token, a spelling of the same path reaches the route', async () => {
    for (const target of [
      '/%76%31/getMergeQueueMetrics',
      `http://127.0.0.1:${port}/v1/getMergeQueueMetrics`,
      '/v1/./x/../getMergeQueueMetrics?',
    ]) {
      const answer = await rawRequest(
        port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-token: ${TOKENS.acme}\r\nConnection: close`,
      );
      expect([target, answer.status]).toEqual([target, 200]);
    }
  });
});
