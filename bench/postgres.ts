/**
 * `npm run bench:postgres`: throughput of the service on LMDB (one process) beside PostgreSQL with one and with three
 * processes sharing a database (a throwaway cluster, as the tests make one). Each setup: the real `greenline serve`
 * processes (from the sources, simulated git host, synthetic CI that passes at once), QUEUES queues, CLIENTS clients
 * submitting PRS PRs per queue spread over every process; then the time until all are merged, and a burst of reads
 * (getQueue). Prints submits/s, merges/s and reads/s per setup. Both stores flush every commit to disk (PostgreSQL
 * with its default fsync and synchronous_commit), so the disk weighs on both alike. PostgreSQL runs with 1, 2 and 3
 * processes; for each setup, the CPU seconds per submit of the Greenline processes and (on PostgreSQL) the
 * database's processes together, over the submit phase, and the ratio of submits/s to one process's.
 * `-- --queues N --prs N --clients N` (defaults 6, 30, 12).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { call, startServer, stop, type Running } from '../test/e2e/process.js';
import { startPostgres, type PgCluster } from '../test/postgres/cluster.js';

const { values } = parseArgs({ options: { queues: { type: 'string' }, prs: { type: 'string' }, clients: { type: 'string' } } });
const QUEUES = Number(values.queues ?? 6);
const PRS = Number(values.prs ?? 30);
const CLIENTS = Number(values.clients ?? 12);
const TOKEN = 'bench-secret-token-123456';
const queueOf = (i: number) => ({ repo: { host: 'github.com', owner: 'bench', name: `repo${i}` }, targetBranch: 'main' });

interface Figures {
  setup: string;
  /** CPU seconds per submit: the Greenline processes and the database's, over the submit phase. */
  cpuPerSubmit: number;
  submitsPerSecond: number;
  mergesPerSecond: number;
  readsPerSecond: number;
}

async function post(servers: Running[], at: number, path: string, body: unknown): Promise<Response> {
  return call(servers[at % servers.length] as Running, path, TOKEN, body);
}

/** Runs `jobs` with CLIENTS at once; returns the seconds it took. */
async function timed(jobs: (() => Promise<void>)[]): Promise<number> {
  const began = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < jobs.length) await (jobs[next++] as () => Promise<void>)();
    }),
  );
  return (performance.now() - began) / 1000;
}

const TICK = 100; // clock ticks per second (USER_HZ on Linux)

/** CPU seconds (user + system) a process used so far, or 0 when it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}

/** The PostgreSQL server's processes: its postmaster (the parent of a backend) and every child of it. */
async function databasePids(url: string | undefined): Promise<number[]> {
  if (url === undefined) return [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const backend = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
    const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
    const postmaster = parentOf(backend);
    const children = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => {
        try {
          return parentOf(pid) === postmaster;
        } catch {
          return false;
        }
      });
    return [postmaster, ...children];
  } finally {
    await client.end();
  }
}

async function measure(setup: string, servers: Running[], url?: string): Promise<Figures> {
  for (let q = 0; q < QUEUES; q++) {
    const response = await post(servers, q, '/v1/createQueue', { ...queueOf(q), concurrency: 4 });
    if (response.status !== 200) throw new Error(`createQueue: ${response.status} ${await response.text()}`);
  }
  const pids = [...servers.map((server) => server.child.pid as number), ...(await databasePids(url))];
  const cpuBefore = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const began = performance.now();
  const submits = Array.from({ length: QUEUES * PRS }, (_, i) => async () => {
    const response = await post(servers, i, '/v1/submitPullRequest', { ...queueOf(i % QUEUES), pr: { number: Math.floor(i / QUEUES) + 1 } });
    if (response.status !== 200) throw new Error(`submit: ${response.status} ${await response.text()}`);
  });
  const submitSeconds = await timed(submits);
  // Backends that began during the phase count from 0; those that ended are left out (connections stay open).
  const pidsAfter = [...new Set([...pids, ...(await databasePids(url))])];
  const cpuAfter = pidsAfter.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  // Merged when every queue is empty again and its last PR merged.
  for (let q = 0; q < QUEUES; q++) {
    for (;;) {
      const response = await post(servers, q, '/v1/getSubmittedPullRequest', { ...queueOf(q), pr: { number: PRS } });
      if (((await response.json()) as { state?: string }).state === 'MERGED') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const mergeSeconds = (performance.now() - began) / 1000;
  const reads = Array.from({ length: 2000 }, (_, i) => async () => {
    const response = await post(servers, i, '/v1/getQueue', queueOf(i % QUEUES));
    if (response.status !== 200) throw new Error(`getQueue: ${response.status}`);
    await response.arrayBuffer();
  });
  const readSeconds = await timed(reads);
  return {
    setup,
    cpuPerSubmit: (cpuAfter - cpuBefore) / (QUEUES * PRS),
    submitsPerSecond: Math.round((QUEUES * PRS) / submitSeconds),
    mergesPerSecond: Math.round((QUEUES * PRS) / mergeSeconds),
    readsPerSecond: Math.round(reads.length / readSeconds),
  };
}

const ENV = {
  GREENLINE_PROVIDER: 'sim',
  GREENLINE_SIM_CI: 'pass=1,median=0.002,p90=0.004,seed=1',
  GREENLINE_API_TOKENS: `bench:${TOKEN}`,
  GREENLINE_RATE_LIMIT: '10000000',
  GREENLINE_LOG_LEVEL: 'error',
};

async function run(setup: string, processes: number, url?: string): Promise<Figures> {
  const dirs: string[] = [];
  const servers: Running[] = [];
  try {
    for (let i = 0; i < processes; i++) {
      const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-pg-'));
      dirs.push(dir);
      servers.push(await startServer({ ...ENV, GREENLINE_DATA: dir, ...(url === undefined ? {} : { GREENLINE_STORE: url, GREENLINE_LEASE_MS: '3000' }) }));
    }
    return await measure(setup, servers, url);
  } finally {
    await Promise.all(servers.map((server) => stop(server)));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

// Durable, as LMDB is: every commit is flushed to disk.
const started = await startPostgres({ durable: true });
if ('unavailable' in started) throw new Error(`PostgreSQL is needed: ${started.unavailable}`);
const cluster: PgCluster = started;
try {
  const results = [await run('LMDB, 1 process', 1)];
  for (const processes of [1, 2, 3]) results.push(await run(`PostgreSQL, ${processes} process${processes === 1 ? '' : 'es'}`, processes, await cluster.createDatabase()));
  const one = results[1] as Figures;
  console.log(`${QUEUES} queues × ${PRS} PRs, ${CLIENTS} clients, synthetic CI passing at once`);
  console.log('setup                      submits/s  × PG 1  merges/s  getQueue/s  CPU ms/submit');
  for (const r of results) {
    console.log(
      `${r.setup.padEnd(26)} ${String(r.submitsPerSecond).padStart(9)} ${(r.submitsPerSecond / one.submitsPerSecond).toFixed(2).padStart(7)} ${String(r.mergesPerSecond).padStart(9)} ${String(r.readsPerSecond).padStart(11)} ${(r.cpuPerSubmit * 1000).toFixed(1).padStart(14)}`,
    );
  }
} finally {
  await cluster.stop();
}
