/** An API under test: the real Fastify app and engine on an in-memory store, driven with Fastify's inject. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildServer } from '../../api/server.js';
import { Engine, type EngineOptions } from '../../engine/engine.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import { syncConfiguredTokens } from '../../engine/tokens.js';
import { attachRecorder } from '../openapi/recorder.js';

export const TOKENS = {
  acme: 'acme-token-0123456789abcdef',
  globex: 'globex-token-0123456789abcdef',
};

export const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };

export interface Api {
  app: FastifyInstance;
  store: Store;
  engine: Engine;
  /** The virtual clock: `advanceBy`/`advanceTo` fire due timers. */
  clock: VirtualScheduler;
  post(path: string, body: unknown, token?: string | null): Promise<LightMyRequestResponse>;
  get(path: string, token?: string | null): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export const START = Date.parse('2026-11-22T12:00:00.000Z');

export async function makeApi(
  store: Store = createMemoryStore(),
  options: Omit<EngineOptions, 'scheduler'> = {},
): Promise<Api> {
  const clock = new VirtualScheduler(START);
  syncConfiguredTokens(
    store,
    Object.entries(TOKENS).map(([org, token]) => ({ org, token })),
    new Date(clock.now()).toISOString(),
  );
  const engine = new Engine(store, { ...options, scheduler: clock });
  engine.start();
  const app = await buildServer({ engine });
  attachRecorder(app);
  const headers = (token: string | null | undefined) => (token === null ? {} : { 'x-api-token': token ?? TOKENS.acme });
  return {
    app,
    store,
    engine,
    clock,
    post: (path, body, token) =>
      app.inject({
        method: 'POST',
        url: `/v1/${path}`,
        headers: { ...headers(token), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      }),
    get: (path, token) => app.inject({ method: 'GET', url: `/v1/${path}`, headers: headers(token) }),
    close: async () => {
      engine.stop();
      await app.close();
      await store.close();
    },
  };
}

/** A queue request body for REPO on `branch`, plus extra fields. */
export function queueBody(extra: Record<string, unknown> = {}, branch = 'main') {
  return { repo: REPO, targetBranch: branch, ...extra };
}

/** The error body every failure carries. */
export function expectErrorBody(response: LightMyRequestResponse, status: number, code?: string) {
  const body = response.json() as { code: unknown; message: unknown; details?: unknown };
  const problems: string[] = [];
  if (response.statusCode !== status)
    problems.push(`status ${response.statusCode}, expected ${status}: ${response.body}`);
  if (typeof body.code !== 'string' || typeof body.message !== 'string')
    problems.push(`not an error body: ${response.body}`);
  if (code !== undefined && body.code !== code) problems.push(`code ${String(body.code)}, expected ${code}`);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return body as { code: string; message: string; details?: { field: string; message: string }[] };
}

/** Posts to the API and expects 200, naming the path and body on failure; the parsed answer. */
export async function expectOk(api: Api, path: string, body: unknown): Promise<Record<string, any>> {
  const response = await api.post(path, body);
  if (response.statusCode !== 200)
    throw new Error(`${path}: status ${response.statusCode}, expected 200: ${response.body}`);
  return response.json() as Record<string, any>;
}
