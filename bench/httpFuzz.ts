/**
 * Fuzzing the HTTP edge (issue 27), over raw sockets so every byte of the request is the one generated:
 * - paths: every route's path spelled at random (bench/spellings.ts mixed with escapes, dot segments, slashes, case,
 *   absolute forms, suffixes), with any method and HTTP version, mostly without a token;
 * - headers: the auth headers (x-api-token, Authorization, both, duplicates, odd spacing and case), content-type,
 *   content-length (wrong, doubled, negative, over the limit), transfer-encoding, expect, host, cookie.
 * The server counts every entry into the handler of a route that needs a token or a session (access.ts's route
 * table); an entry by a request that did not carry a valid token (judged here, from what was sent, by the rule
 * auth.ts documents) is a breach. Also counted: 5xx, and requests left without any answer.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../api/server.js';
import { Engine } from '../engine/engine.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { createMemoryStore } from '../engine/store/index.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { rawRequest } from './rawHttp.js';
import { concretePath } from './spellings.js';
import { gitHubWebhookRoute } from '../hosts/github/webhookRoute.js';
import { carriesValidToken, type FuzzRequest, HTTP_TOKEN } from './httpFuzzRequests.js';

export { carriesValidToken, type FuzzRequest, headerRequests, HTTP_TOKEN, pathRequests } from './httpFuzzRequests.js';

export interface HttpFuzzServer {
  app: FastifyInstance;
  port: number;
  /** Route paths (with parameters given values) and their methods. */
  routes: { method: string; path: string }[];
  /** Fuzz ids (`x-fuzz-id`) of requests that entered a protected route's handler. */
  entered: Map<string, string>;
  close(): Promise<void>;
}

export async function httpFuzzServer(): Promise<HttpFuzzServer> {
  const store = createMemoryStore();
  const clock = new VirtualScheduler(Date.parse('2026-11-24T00:00:00Z'));
  syncConfiguredTokens(store, [{ org: 'fuzz', token: HTTP_TOKEN }], new Date(clock.now()).toISOString());
  const engine = new Engine(store, { scheduler: clock, onError: () => undefined });
  engine.start();
  engine.createQueue({ org: 'fuzz', repo: { host: 'github.com', owner: 'acme', name: 'a' }, branch: 'main' }, {});
  await engine.settle();
  const app = await buildServer({
    engine,
    // Short: a request that never completes (a content-length above its body) ends in a 408 soon.
    timeouts: { requestMs: 1_000 },
    ciLogs: { openLog: async () => undefined },
    routes: [
      gitHubWebhookRoute({
        receive: async (delivery) =>
          delivery.signature === undefined
            ? { status: 401, message: 'no signature' }
            : { status: 401, message: 'bad signature' },
      }),
    ],
  });
  const entered = new Map<string, string>();
  app.routeTable.watchers.add((request, route) => {
    if (route.access() === 'public') return;
    const id = request.headers['x-fuzz-id'];
    entered.set(typeof id === 'string' ? id : '(no id)', `${route.method} ${route.url}`);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const routes = app.routeTable.routes
    .filter(({ method }) => method !== 'HEAD')
    .map(({ method, url }) => ({ method, path: concretePath(url) }));
  return {
    app,
    port,
    routes,
    entered,
    async close() {
      engine.stop();
      await app.close();
      await store.close();
    },
  };
}

export interface HttpFuzzReport {
  requests: number;
  byStatus: Record<number, number>;
  /** Requests without a valid token that entered a protected handler: must be none. */
  breaches: string[];
  /** Answers of 500 or more: must be none. */
  serverErrors: string[];
  /** Requests that got no answer at all (the connection closed or timed out first). */
  unanswered: string[];
}

let sent = 0;

/** Sends `count` generated requests, one connection each, `parallel` at a time; `seed` makes them the same again. */
export async function fuzzHttp(
  server: HttpFuzzServer,
  requests: fc.Arbitrary<FuzzRequest>,
  count: number,
  seed: number,
  parallel = 8,
): Promise<HttpFuzzReport> {
  const report: HttpFuzzReport = { requests: 0, byStatus: {}, breaches: [], serverErrors: [], unanswered: [] };
  const samples = fc.sample(requests, { numRuns: count, seed });
  const send = async (request: FuzzRequest, id: string) => {
    const head = [
      request.line,
      `x-fuzz-id: ${id}`,
      ...request.headers.map(([name, value]) => `${name}: ${value}`),
      'Connection: close',
    ].join('\r\n');
    const answer = await rawRequest(server.port, head, request.body, 10_000);
    report.requests++;
    report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
    const what = `${JSON.stringify(head)} -> ${answer.status} ${answer.body.slice(0, 120)}`;
    const entered = server.entered.get(id);
    if (entered !== undefined && !carriesValidToken(request.headers)) report.breaches.push(`${entered}: ${what}`);
    if (answer.status >= 500) report.serverErrors.push(what);
    if (answer.status === 0) report.unanswered.push(`${what} (${answer.error ?? 'closed'})`);
  };
  let next = 0;
  const worker = async () => {
    // Ids unique in the process: the server's record of entered handlers outlives one call.
    for (let i = next++; i < samples.length; i = next++) await send(samples[i]!, `${seed}-${i}-${++sent}`);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return report;
}
