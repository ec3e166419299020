/**
 * Three `greenline serve` processes on one PostgreSQL database, with the simulated git host and the synthetic CI:
 * PRs submitted to any of them merge in order; the owner of a busy queue is killed (SIGKILL) at random moments and
 * replaced; every acknowledged PR is still there and merges exactly once, the queues keep moving, and each queue's
 * event log replays without divergence.
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { exportEventLog, replayEventLog } from '../../engine/runtime/eventLog.js';
import { openPostgresStore } from '../../engine/store/postgresStore.js';
import { call, eventually, startServer, stop, type Running } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL failover tests: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const TOKEN = 'acme-secret-token-123456';
const REPOS = ['widgets', 'gadgets'];
const queueOf = (name: string) => ({ repo: { host: 'github.com', owner: 'acme', name }, targetBranch: 'main' });
const running: Running[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of paused) server.child.kill('SIGCONT');
  paused.clear();
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function serve(url: string): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-pg-serve-'));
  dirs.push(dir);
  const server = await startServer({
    GREENLINE_DATA: dir,
    GREENLINE_STORE: url,
    GREENLINE_LEASE_MS: '1500',
    GREENLINE_PROVIDER: 'sim',
    GREENLINE_SIM_CI: 'pass=1,median=0.005,p90=0.01,seed=7',
    GREENLINE_API_TOKENS: `acme:${TOKEN}`,
    GREENLINE_RATE_LIMIT: '1000000',
  });
  running.push(server);
  return server;
}

const paused = new Set<Running>();
const alive = () =>
  running.filter((server) => server.child.exitCode === null && server.child.signalCode === null && !paused.has(server));
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** Sends to a random live process until one acknowledges (a process being killed may drop the request). */
async function send(path: string, body: unknown): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await call(pick(alive()), path, TOKEN, body);
      if (response.status < 500) return response;
      if (attempt > 50) return response;
    } catch (error) {
      if (attempt > 50) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A client of the database, for what the test looks at directly (leases, queue ids). */
async function connect(url: string): Promise<pg.Client> {
  const db = new pg.Client({ connectionString: url });
  db.on('error', () => undefined);
  await db.connect();
  return db;
}

/** The live process holding a live lease on the queue, if any. */
async function ownerOf(db: pg.Client, queueId: string): Promise<Running | undefined> {
  const { rows } = await db.query(
    'SELECT owner FROM greenline_leases WHERE queue_id = $1 AND expires_at > clock_timestamp()',
    [queueId],
  );
  const pid = Number(String(rows[0]?.owner ?? '').split('-')[0]);
  return alive().find((server) => server.child.pid === pid);
}

async function queueIdsOf(db: pg.Client): Promise<string[]> {
  const { rows } = await db.query<{ k: Buffer }>("SELECT k FROM greenline_kv WHERE coll = 'queues'");
  return rows.map((row) => row.k.subarray(1, row.k.length - 1).toString('utf8'));
}

async function prState(repo: string, number: number): Promise<string> {
  const response = await send('/v1/getSubmittedPullRequest', { ...queueOf(repo), pr: { number } });
  return response.status === 200 ? ((await response.json()) as { state: string }).state : `http ${response.status}`;
}

/** Every acknowledged PR merges; each queue's log holds one merge per PR, in the order acknowledged, and replays. */
async function checkMerged(url: string, acknowledged: Map<string, number[]>): Promise<void> {
  for (const [repo, numbers] of acknowledged) {
    for (const number of numbers)
      await eventually(
        () => prState(repo, number),
        (state) => state === 'MERGED',
        60_000,
      );
  }
  const store = openPostgresStore({ url });
  try {
    for (const [repo, numbers] of acknowledged) {
      const log = exportEventLog(store, { org: 'acme', ...queueOf(repo), branch: 'main' }, 'failover test');
      const merged = log.entries.flatMap((entry) => {
        const input = entry.input as { type: string; number?: number; result?: { ok: boolean } };
        return input.type === 'merged' && input.result?.ok === true ? [input.number] : [];
      });
      expect(merged).toEqual(numbers);
      const replay = replayEventLog(log);
      expect(replay.divergence, JSON.stringify(replay.divergence)).toBeNull();
    }
  } finally {
    await store.close();
  }
}

describe.skipIf(cluster === undefined)('three processes on one PostgreSQL database', () => {
  test('PRs merge in order through kill -9 of queue owners; none lost, none merged twice; logs replay', async () => {
    const url = await (cluster as PgCluster).createDatabase();
    for (let i = 0; i < 3; i++) await serve(url);
    for (const repo of REPOS) {
      expect((await send('/v1/createQueue', { ...queueOf(repo), concurrency: 3 })).status).toBe(200);
    }
    const db = await connect(url);
    try {
      const queueIds = await queueIdsOf(db);
      // Both queues get a driver.
      await eventually(
        async () => Promise.all(queueIds.map((id) => ownerOf(db, id))),
        (owners) => owners.every((owner) => owner !== undefined),
      );
      const acknowledged = new Map<string, number[]>(REPOS.map((repo) => [repo, []]));
      let kills = 0;
      const kill = async (queueId: string) => {
        const victim = await ownerOf(db, queueId);
        if (victim === undefined) return;
        victim.child.kill('SIGKILL');
        await victim.exited;
        kills += 1;
        // Another process takes the queue over once the lease runs out.
        await eventually(
          () => ownerOf(db, queueId),
          (owner) => owner !== undefined && owner !== victim,
        );
        await serve(url);
      };
      const PRS = 10;
      for (let number = 1; number <= PRS; number++) {
        for (const repo of REPOS) {
          const response = await send('/v1/submitPullRequest', { ...queueOf(repo), pr: { number } });
          if (response.status === 200) acknowledged.get(repo)?.push(number);
        }
        // Now and then, kill the driver of a queue mid-flight and start a replacement.
        if (kills < 3 && Math.random() < 0.35) {
          await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 800)));
          await kill(pick(queueIds));
        }
      }
      if (kills === 0) await kill(queueIds[0] as string);
      for (const numbers of acknowledged.values()) expect(numbers).toHaveLength(PRS);
      await checkMerged(url, acknowledged);
      console.log(`failover test: ${kills} owner(s) killed, ${PRS * REPOS.length} PRs merged across 3 processes`);
    } finally {
      await db.end();
    }
  });

  test('a paused owner loses its queue, and records nothing as its driver after it resumes', async () => {
    const url = await (cluster as PgCluster).createDatabase();
    for (let i = 0; i < 3; i++) await serve(url);
    expect((await send('/v1/createQueue', { ...queueOf('widgets'), concurrency: 2 })).status).toBe(200);
    const db = await connect(url);
    try {
      const queueId = (await queueIdsOf(db))[0] as string;
      const numbers: number[] = [];
      const submit = async (number: number) => {
        expect((await send('/v1/submitPullRequest', { ...queueOf('widgets'), pr: { number } })).status).toBe(200);
        numbers.push(number);
      };
      for (let number = 1; number <= 3; number++) await submit(number);
      const owner = (await eventually(
        () => ownerOf(db, queueId),
        (found) => found !== undefined,
      )) as Running;
      // SIGSTOP freezes it wherever it is; its lease runs out and another process takes the queue.
      owner.child.kill('SIGSTOP');
      paused.add(owner);
      await eventually(
        () => ownerOf(db, queueId),
        (found) => found !== undefined && found !== owner,
      );
      for (let number = 4; number <= 6; number++) await submit(number);
      // It resumes as if nothing happened: what it does as the driver is refused by the fencing token.
      owner.child.kill('SIGCONT');
      paused.delete(owner);
      for (let number = 7; number <= 8; number++) await submit(number);
      await checkMerged(url, new Map([['widgets', numbers]]));
    } finally {
      await db.end();
    }
  });
});
