/**
 * Parallel mode: the planner on 1,000 queued PRs over 10,000 targets (baseline: the same line-up planned in single
 * mode), and setImpactedTargets with 100,000 targets over HTTP (baseline: JSON.parse of the same body).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer } from '../api/server.js';
import { Engine } from '../engine/engine.js';
import { dependencies } from '../engine/planner/graph.js';
import { plan, type PlanInput, type PlanPullRequest } from '../engine/planner/planner.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { createMemoryStore, openLmdbStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { measure, random, report } from './measure.js';
import { input, pr } from '../test/planner/inputs.js';

function lineup(prs: number, targets: number): PlanPullRequest[] {
  const next = random(42);
  return Array.from({ length: prs }, (_, i): PlanPullRequest => {
    // Skewed: a few targets are touched by many PRs (a shared library), most by few; 1% of PRs impact everything.
    const count = 1 + Math.floor(next() * 5);
    const own = next() < 0.01 ? 'ALL' : Array.from({ length: count }, () => `//t${Math.floor(targets * next() ** 2)}`);
    return pr(i + 1, { targets: own });
  });
}

function planInput(mode: 'single' | 'parallel', prs: PlanPullRequest[]): PlanInput {
  return input(prs, { mode, concurrency: 50 }, { bisectionConcurrency: 1 });
}

async function setTargetsOver(store: Store, label: string, body: string) {
  const scheduler = new VirtualScheduler(Date.parse('2026-11-22T00:00:00Z'));
  syncConfiguredTokens(store, [{ org: 'bench', token: 'bench-token-0123456789abcdef' }], new Date().toISOString());
  const engine = new Engine(store, { scheduler });
  engine.start();
  const app = await buildServer({ engine });
  engine.createQueue(
    { org: 'bench', repo: { host: 'github.com', owner: 'acme', name: 'mono' }, branch: 'main' },
    { mode: 'parallel' },
  );
  const figure = await measure(
    `${label}: setImpactedTargets, 100,000 targets (${(body.length / 2 ** 20).toFixed(1)} MiB)`,
    10,
    async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/setImpactedTargets',
        headers: { 'x-api-token': 'bench-token-0123456789abcdef', 'content-type': 'application/json' },
        payload: body,
      });
      if (response.statusCode !== 200) throw new Error(response.body);
    },
  );
  engine.stop();
  await app.close();
  await store.close();
  return figure;
}

export async function benchParallel(): Promise<void> {
  const prs = lineup(1_000, 10_000);
  const single = planInput('single', prs);
  const parallel = planInput('parallel', prs);
  const graph = dependencies(
    prs.map((pr) => pr.targets),
    true,
  );
  const independent = graph.filter((ahead) => ahead.length === 0).length;
  const meanBase = graph.reduce((sum, ahead) => sum + ahead.length, 0) / graph.length;
  report(
    `planner: 1,000 queued PRs over 10,000 targets, concurrency 50 (${independent} PRs depend on nothing; mean base ${meanBase.toFixed(1)} PRs)`,
    await measure('single mode, same line-up (baseline)', 30, () => plan(single)),
    [await measure('parallel mode: graph, bases and decisions', 30, () => plan(parallel))],
  );

  const bodyOf = (name: (i: number) => string) =>
    JSON.stringify({
      repo: { host: 'github.com', owner: 'acme', name: 'mono' },
      targetBranch: 'main',
      pr: { number: '7', sha: 'a'.repeat(40) },
      impactedTargets: Array.from({ length: 100_000 }, (_, i) => name(i)),
    });
  const body = bodyOf((i) => `//services/service-${i % 997}/module-${i}:unit_tests`);
  const large = bodyOf(
    (i) => `//services/service-${i % 997}/${'deeply/nested/package/'.repeat(5)}module-${i}:unit_tests_with_a_long_name`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'greenline-bench-'));
  try {
    report('setImpactedTargets', await measure('JSON.parse of the same body (baseline)', 10, () => JSON.parse(body)), [
      await setTargetsOver(createMemoryStore(), 'memory store', body),
      await setTargetsOver(openLmdbStore({ dir }), 'LMDB', body),
      await setTargetsOver(openLmdbStore({ dir: join(dir, 'large') }), 'LMDB', large),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
