/** API request cost through Fastify's inject (no sockets), on an LMDB store, against GET /healthz. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer } from '../api/server.js';
import { Engine } from '../engine/engine.js';
import { openLmdbStore } from '../engine/store/index.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { measure, report } from './measure.js';

const TOKEN = 'bench-token-0123456789abcdef';
const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };

export async function benchApi(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-'));
  const store = openLmdbStore({ dir });
  try {
    syncConfiguredTokens(store, [{ org: 'acme', token: TOKEN }], new Date().toISOString());
    const app = await buildServer({ engine: new Engine(store) });
    const post = (path: string, body: unknown) =>
      app.inject({
        method: 'POST',
        url: `/v1/${path}`,
        headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
    await post('createQueue', QUEUE);
    const targets = JSON.stringify({
      ...QUEUE,
      pr: { number: 1, sha: 'ab'.repeat(20) },
      impactedTargets: Array.from({ length: 100_000 }, (_, i) => `//services/component-${i}:target_${i}`),
    });

    const baseline = await measure('GET /healthz', 5_000, () => app.inject({ method: 'GET', url: '/healthz' }));
    const figures = [
      await measure('POST getQueue (auth, validate, read)', 5_000, () => post('getQueue', QUEUE)),
      await measure('POST updateQueue (auth, validate, durable write)', 1_000, (i) =>
        post('updateQueue', { ...QUEUE, concurrency: (i % 8) + 1 }),
      ),
      await measure('GET getMergeQueueMetrics (one queue)', 2_000, () =>
        app.inject({ method: 'GET', url: '/v1/getMergeQueueMetrics', headers: { 'x-api-token': TOKEN } }),
      ),
      await measure(
        `POST setImpactedTargets, 100k targets, ${(targets.length / 2 ** 20).toFixed(1)} MiB (parse, validate)`,
        10,
        () => post('setImpactedTargets', targets),
      ),
    ];
    report('API requests (Fastify inject)', baseline, figures);
    await app.close();
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
