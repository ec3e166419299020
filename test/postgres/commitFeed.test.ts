/**
 * Two engines on one PostgreSQL database, each with its own store, leases and LISTEN connection, as two `greenline
 * serve` processes are (cli/serve.ts wires them the same way): inputs to one queue sent to either in turn, as a
 * round-robin load balancer does. Each hears what the other commits (NOTIFY greenline_commit): its working set of the
 * queue catches up by reading only the keys that changed, instead of being rebuilt from the store at every input, and
 * stays equal to the set rebuilt from the store; the dashboard's live feed of each process shows the other's commits.
 */
import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';
import { DashboardEvents } from '../../api/dashboardEvents.js';
import type { QueueLeases } from '../../engine/cluster/leases.js';
import type { Engine } from '../../engine/engine.js';
import { WorkingSet } from '../../engine/runtime/workingSet.js';
import type { PostgresStore } from '../../engine/store/postgresStore.js';
import { createToken } from '../../engine/tokens.js';
import { KEY } from '../engine/queueHarness.js';
import { expectWorkingSetCurrent } from '../engine/workload.js';
import { eventually } from '../e2e/process.js';
import { startClusterEngine } from './clusterEngine.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL commit feed tests: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Process {
  engine: Engine;
  store: PostgresStore;
  leases: QueueLeases;
  /** Inputs this process committed, and commits of the other process it heard (onCommit less its own inputs). */
  inputs: number;
  heard: number;
}

async function process(url: string, name: string): Promise<Process> {
  const member = await startClusterEngine(url, name, (message, error) => console.error(`${name}: ${message}`, error));
  cleanups.push(() => member.close());
  const proc: Process = { engine: member.engine, store: member.store, leases: member.leases, inputs: 0, heard: 0 };
  // The counts start before any input: the leases' first round has adopted what there was (nothing yet).
  member.engine.onInput(() => proc.inputs++);
  member.engine.onCommit(() => proc.heard++);
  return proc;
}

/** Both processes are idle (effects done) and each heard every input the other committed. */
async function quiet(a: Process, b: Process): Promise<void> {
  await eventually(
    async () => {
      await a.engine.settle();
      await b.engine.settle();
      return [a.heard - a.inputs, b.inputs, b.heard - b.inputs, a.inputs];
    },
    ([aHeard, bInputs, bHeard, aInputs]) => aHeard === bInputs && bHeard === aInputs,
  );
}

/** A response that keeps what is written to it, for a dashboard stream. */
function recorder(): { response: ServerResponse; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const response = Object.assign(stream, { writeHead: () => response }) as unknown as ServerResponse;
  return { response, text: () => text };
}

describe.skipIf(cluster === undefined)('commits heard by every process (NOTIFY greenline_commit)', () => {
  test('a queue served by two processes in turn: working sets catch up without rebuilds and stay equal to the store; live feeds show the other process', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const a = await process(url, 'a');
    const b = await process(url, 'b');
    const queueId = a.engine.createQueue(KEY, { requiredStatuses: ['ci'], concurrency: 2 }).id;
    await eventually(
      async () => [a.leases.owns(queueId), b.leases.owns(queueId)],
      (owned) => owned.includes(true),
    );
    await quiet(a, b);

    // The dashboard's feed on b, a page of the queue's organization open.
    const { record } = createToken(b.store, KEY.org, new Date().toISOString());
    const feed = new DashboardEvents(b.engine);
    cleanups.push(async () => feed.close());
    const page = recorder();
    feed.open({ org: KEY.org, tokenId: record.id, expiresAt: Date.now() + 3_600_000 }, page.response);

    const rebuilds = vi.spyOn(WorkingSet, 'rebuild');
    cleanups.push(async () => rebuilds.mockRestore());
    // Each process's first input to the queue builds its set (a has one from making the queue).
    b.engine.submitPullRequest(KEY, 1);
    await quiet(a, b);
    const counted: number[] = [];
    for (let number = 2; number <= 9; number++) {
      const before = rebuilds.mock.calls.length;
      (number % 2 === 0 ? a : b).engine.submitPullRequest(KEY, number);
      counted.push(rebuilds.mock.calls.length - before);
      await quiet(a, b);
    }
    expect(counted).toEqual(counted.map(() => 0));
    // Cancels move PRs out of the line-up and change runs: the sets follow.
    a.engine.cancelPullRequest(KEY, 2);
    await quiet(a, b);
    b.engine.cancelPullRequest(KEY, 3);
    await quiet(a, b);
    a.engine.submitPullRequest(KEY, 10);
    await quiet(a, b);
    rebuilds.mockRestore();
    // Each set, caught up by its process's next input (sets catch up when used), equals the set rebuilt from the store.
    for (const [proc, number] of [
      [a, 11],
      [b, 12],
    ] as const) {
      proc.engine.submitPullRequest(KEY, number);
      expectWorkingSetCurrent({ engine: proc.engine, queueId } as never);
      await quiet(a, b);
    }

    // b's page heard of a's commits (a's inputs reach b's feed).
    await eventually(
      async () => page.text(),
      (text) => text.includes('event: changed') && text.includes(queueId),
    );
  });
});
