/**
 * The service over real HTTP on loopback (issue 15): durable submits per second (each answered once its LMDB
 * transaction is committed and synced), and getQueue on a queue 500 PRs deep, beside a bare Fastify route answering
 * a constant body, measured in the same run. `npm run bench:http`; also part of `npm run bench`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { buildServer } from '../api/server.js';
import { Engine } from '../engine/engine.js';
import { SimGitHost } from '../engine/providers/sim/simGitHost.js';
import { openLmdbStore } from '../engine/store/index.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { measure, report } from './measure.js';

const TOKEN = 'bench-token-0123456789abcdef';
const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const DEPTH = 500;

export async function benchHttp(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-http-'));
  const store = openLmdbStore({ dir });
  const bare = Fastify();
  bare.get('/bare', async () => ({ ok: true }));
  try {
    syncConfiguredTokens(store, [{ org: 'acme', token: TOKEN }], new Date().toISOString());
    const engine = new Engine(store, { gitHost: new SimGitHost() });
    engine.start();
    const app = await buildServer({ engine });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const bareBase = await bare.listen({ host: '127.0.0.1', port: 0 });
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}/v1/${path}`, {
        method: 'POST',
        headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.text();
    };
    // Paused, so the PRs stay queued (the depth under test), and nothing but the submit is measured.
    await post('createQueue', { ...QUEUE, concurrency: 4, state: 'paused' });
    let number = 0;
    const submits = await measure(`POST submitPullRequest, durable on LMDB (up to ${DEPTH} queued)`, DEPTH - 50, () =>
      post('submitPullRequest', { ...QUEUE, pr: { number: ++number } }),
    );
    await engine.settle();
    const baseline = await measure('GET a bare Fastify route (constant body)', 3_000, () =>
      fetch(`${bareBase}/bare`).then((response) => response.text()),
    );
    const getQueue = await measure(`POST getQueue, ${number} PRs queued`, 1_000, () => post('getQueue', QUEUE));
    report('over HTTP on loopback', baseline, [submits, getQueue]);
    await app.close();
    engine.stop();
  } finally {
    await bare.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchHttp();
}
