/**
 * The GitHub check runs follow every commit to a queue, as the dashboard's live feed does: with two processes on one
 * PostgreSQL database, an input the other process took marks the queue for this process's check-run publisher (it
 * hears the commit), so the PR's check run moves whichever process took the input. (Before, a publisher marked
 * queues only on its own process's inputs.)
 */
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { CheckRunPublisher } from '../../engine/providers/github/checkRuns.js';
import type { GitHubApp } from '../../engine/providers/github/client.js';
import { KEY } from '../engine/queueHarness.js';
import { eventually } from '../e2e/process.js';
import { startClusterEngine } from './clusterEngine.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL check-run feed test: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(url: string, name: string): Promise<Engine> {
  const member = await startClusterEngine(url, name);
  cleanups.push(() => member.close());
  return member.engine;
}

describe.skipIf(cluster === undefined)('check runs on PostgreSQL with two processes', () => {
  test("an input the other process took marks the queue for this process's check runs", async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const a = await open(url, 'a');
    const b = await open(url, 'b');
    const queueId = a.createQueue(KEY, { requiredStatuses: ['ci'] }).id;
    const publisher = new CheckRunPublisher(a, {} as GitHubApp, {
      hostName: KEY.repo.host,
      throttleMs: 3_600_000,
      onError: () => undefined,
    });
    publisher.start();
    cleanups.push(async () => publisher.stop());
    const marked: string[] = [];
    const mark = publisher.mark.bind(publisher);
    publisher.mark = (id: string) => {
      marked.push(id);
      mark(id);
    };
    b.submitPullRequest(KEY, 1);
    await eventually(
      async () => marked.filter((id) => id === queueId).length,
      (n) => n > 0,
      20_000,
    );
  });

  test("only the queue's driver writes its check runs: the other process's publisher reads and puts nothing", async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const engines = [await open(url, 'a'), await open(url, 'b')] as const;
    const queueId = engines[0].createQueue(KEY, { requiredStatuses: ['ci'] }).id;
    // One of the two drives the queue once its lease is taken.
    const driver = await eventually(
      async () => engines.find((engine) => engine.drives(queueId)),
      (found) => found !== undefined,
    );
    const other = engines.find((engine) => engine !== driver)!;
    const reads = new Map<Engine, number>();
    for (const engine of engines) {
      const publisher = new CheckRunPublisher(engine, {} as GitHubApp, {
        hostName: KEY.repo.host,
        throttleMs: 3_600_000,
        onError: () => undefined,
      });
      const getQueue = vi.spyOn(engine, 'getQueue');
      publisher.mark(queueId);
      await publisher.flush();
      reads.set(engine, getQueue.mock.calls.length);
      getQueue.mockRestore();
    }
    expect(reads.get(driver!)).toBeGreaterThan(0);
    expect(reads.get(other)).toBe(0);
  });
});
