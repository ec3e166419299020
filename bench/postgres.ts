/**
 * `npm run bench:postgres`: throughput of the service on LMDB (one process) beside PostgreSQL with one, two and three
 * processes sharing a database server (a throwaway cluster; a fresh database per setup), every setup behind haproxy
 * (round robin, as docs/postgres.md tells operators: test/postgres/haproxy.ts; without it the bench calls the
 * processes in turn and says so). Each setup: real `greenline serve` processes (simulated git host, synthetic CI
 * passing at once), QUEUES queues, CLIENTS clients submitting PRS PRs per queue through the front, the time until all
 * merged, then a burst of getQueue. Both stores flush every commit to disk. Printed: submits/s, merges/s, getQueue/s,
 * ratios to one PostgreSQL process, and CPU seconds per submit over the submit phase of the Greenline processes and
 * the database's (postmaster and backends, /proc/PID/stat), haproxy apart. `-- --queues N --prs N --clients N`
 * (defaults 100, 3, 20); `--setups lmdb,1,2,3`; `--seconds S [--warmup W] [--rate R] [--idle I]`: the steady mode
 * instead (bench/postgresSteady.ts); `--built`: the compiled command, not the sources (bench/postgresProcesses.ts); `--lease-ms` (3000);
 * `--cpu-prof DIR`, `--gc-stats DIR`: each process's main thread profiled, its garbage collections counted, into
 * DIR/<setup>/ with window.json (the measured window), for bench/postgresProfileTop.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { call, stop, type Running } from '../test/e2e/process.js';
import { startPostgres, type PgCluster } from '../test/postgres/cluster.js';
import { startHaproxy, type Front } from '../test/postgres/haproxy.js';
import { cpuSeconds, databasePids } from './postgresCpu.js';
import { profileHooks, startProcess } from './postgresProcesses.js';
import { measureSteady, printSteady, type SteadyFigures } from './postgresSteady.js';

const { values } = parseArgs({
  options: {
    queues: { type: 'string' },
    prs: { type: 'string' },
    clients: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    rate: { type: 'string' },
    idle: { type: 'string' },
    setups: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'gc-stats': { type: 'string' },
    built: { type: 'boolean' },
    'lease-ms': { type: 'string' },
  },
});
const SECONDS = values.seconds === undefined ? undefined : Number(values.seconds);
const SETUPS = (values.setups ?? 'lmdb,1,2,3').split(',');
const PROFILE_DIR = values['cpu-prof'] ?? values['gc-stats'];
const QUEUES = Number(values.queues ?? 100);
const PRS = Number(values.prs ?? 3);
const CLIENTS = Number(values.clients ?? 20);
const TOKEN = 'bench-secret-token-123456';
const queueOf = (i: number) => ({
  repo: { host: 'github.com', owner: 'bench', name: `repo${i}` },
  targetBranch: 'main',
});

interface Figures {
  setup: string;
  /** CPU seconds per submit: the Greenline processes and the database's, over the submit phase. */
  cpuPerSubmit: number;
  /** The same for the Greenline processes alone, and for haproxy. */
  serviceCpuPerSubmit: number;
  frontCpuPerSubmit: number;
  /**
   * CPU seconds per PR from its submit to its merge, the same processes: what the submit phase leaves to the merges
   * (and merges that overlap it) counted alike whatever the setup's pace.
   */
  cpuPerPr: number;
  submitsPerSecond: number;
  mergesPerSecond: number;
  readsPerSecond: number;
}

/** Where requests go: the front, or (without haproxy) the processes in turn. */
let targets: Pick<Running, 'url'>[] = [];

/**
 * A request; one whose connection closed before an answer (the client sees the socket closed) is sent again, up to
 * four times. `again` is told, so that a submit sent twice may be answered as already there.
 */
async function post(at: number, path: string, body: unknown, again?: () => void): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(targets[at % targets.length] as Running, path, TOKEN, body);
    } catch (error) {
      if (attempt >= 5) throw error;
      again?.();
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
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

async function measure(setup: string, servers: Running[], front: Front | undefined, url?: string): Promise<Figures> {
  for (let q = 0; q < QUEUES; q++) {
    const response = await post(q, '/v1/createQueue', { ...queueOf(q), concurrency: 4 });
    if (response.status !== 200) throw new Error(`createQueue: ${response.status} ${await response.text()}`);
  }
  const service = servers.map((server) => server.child.pid as number);
  const frontPid = front?.child.pid;
  const pids = [...service, ...(await databasePids(url))];
  const cpuBefore = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const serviceBefore = service.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const frontBefore = frontPid === undefined ? 0 : cpuSeconds(frontPid);
  const began = performance.now();
  const submits = Array.from({ length: QUEUES * PRS }, (_, i) => async () => {
    let twice = false;
    const response = await post(
      i,
      '/v1/submitPullRequest',
      { ...queueOf(i % QUEUES), pr: { number: Math.floor(i / QUEUES) + 1 } },
      () => (twice = true),
    );
    if (response.status !== 200 && !(twice && response.status < 500))
      throw new Error(`submit: ${response.status} ${await response.text()}`);
  });
  const submitSeconds = await timed(submits);
  // Backends that began during the phase count from 0; those that ended are left out (connections stay open).
  const pidsAfter = [...new Set([...pids, ...(await databasePids(url))])];
  const cpuAfter = pidsAfter.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const serviceAfter = service.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const frontAfter = frontPid === undefined ? 0 : cpuSeconds(frontPid);
  // Merged when every queue is empty again and its last PR merged.
  for (let q = 0; q < QUEUES; q++) {
    for (;;) {
      const response = await post(q, '/v1/getSubmittedPullRequest', { ...queueOf(q), pr: { number: PRS } });
      if (((await response.json()) as { state?: string }).state === 'MERGED') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const mergeSeconds = (performance.now() - began) / 1000;
  const cpuMerged = [...new Set([...pidsAfter, ...(await databasePids(url))])].reduce(
    (sum, pid) => sum + cpuSeconds(pid),
    0,
  );
  const reads = Array.from({ length: 2000 }, (_, i) => async () => {
    const response = await post(i, '/v1/getQueue', queueOf(i % QUEUES));
    if (response.status !== 200) throw new Error(`getQueue: ${response.status}`);
    await response.arrayBuffer();
  });
  const readSeconds = await timed(reads);
  return {
    setup,
    cpuPerSubmit: (cpuAfter - cpuBefore) / (QUEUES * PRS),
    serviceCpuPerSubmit: (serviceAfter - serviceBefore) / (QUEUES * PRS),
    frontCpuPerSubmit: (frontAfter - frontBefore) / (QUEUES * PRS),
    cpuPerPr: (cpuMerged - cpuBefore) / (QUEUES * PRS),
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

let warned = false;

/** The steady mode's measure (bench/postgresSteady.ts), through the same front and requests. */
function steady(setup: string, servers: Running[], url: string | undefined): Promise<SteadyFigures> {
  return measureSteady({
    setup,
    queues: QUEUES,
    clients: CLIENTS,
    warmupSeconds: Number(values.warmup ?? 15),
    idleSeconds: Number(values.idle ?? 10),
    seconds: SECONDS as number,
    ...(values.rate === undefined ? {} : { rate: Number(values.rate) }),
    servicePids: servers.map((server) => server.child.pid as number),
    url,
    submit: async (queue, number) => {
      let twice = false;
      const body = { ...queueOf(queue), pr: { number } };
      const response = await post(queue, '/v1/submitPullRequest', body, () => (twice = true));
      if (response.status !== 200 && !(twice && response.status < 500))
        throw new Error(`submit: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    },
    queued: async (queue) => {
      const response = await post(queue, '/v1/getQueue', queueOf(queue));
      return ((await response.json()) as { enqueuedPullRequests?: unknown[] }).enqueuedPullRequests?.length ?? 0;
    },
  });
}

async function run<F extends Figures | SteadyFigures>(setup: string, processes: number, url?: string): Promise<F> {
  const dirs: string[] = [];
  const profileDir = PROFILE_DIR === undefined ? undefined : join(PROFILE_DIR, setup.replace(/\W+/g, '-'));
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  const servers: Running[] = [];
  let front: Front | undefined;
  try {
    for (let i = 0; i < processes; i++) {
      const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-pg-'));
      dirs.push(dir);
      servers.push(
        await startProcess(
          {
            ...ENV,
            GREENLINE_DATA: dir,
            ...(profileDir === undefined
              ? {}
              : profileHooks(profileDir, i + 1, values['cpu-prof'] !== undefined, values['gc-stats'] !== undefined)),
            ...(url === undefined ? {} : { GREENLINE_STORE: url, GREENLINE_LEASE_MS: values['lease-ms'] ?? '3000' }),
          },
          values.built === true,
        ),
      );
    }
    // No health checks: under load a process may answer a check late, and the bench is not about taking it out.
    const started = await startHaproxy(
      servers.map((server) => server.url),
      { checkMs: false },
    );
    if ('unavailable' in started) {
      if (!warned) console.warn(`no load balancer: ${started.unavailable}; the bench calls the processes in turn`);
      warned = true;
      targets = servers;
    } else {
      front = started;
      targets = [front];
      // Every process answers through the front before the clock starts (haproxy's first health checks).
      for (let i = 0; i < servers.length * 2; i++) await call(front as unknown as Running, '/readyz', undefined);
    }
    if (SECONDS === undefined) return (await measure(setup, servers, front, url)) as F;
    for (let q = 0; q < QUEUES; q++) {
      const response = await post(q, '/v1/createQueue', { ...queueOf(q), concurrency: 4 });
      if (response.status !== 200) throw new Error(`createQueue: ${response.status} ${await response.text()}`);
    }
    const figures = await steady(setup, servers, url);
    const pids = servers.map((server) => server.child.pid);
    if (profileDir !== undefined) writeFileSync(join(profileDir, 'window.json'), JSON.stringify({ ...figures, pids }));
    return figures as F;
  } catch (error) {
    if (front !== undefined) console.error(`haproxy said:\n${front.output()}`);
    throw error;
  } finally {
    await front?.stop();
    await Promise.all(servers.map((server) => stop(server)));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

// Durable, as LMDB is: every commit is flushed to disk.
const started = await startPostgres({ durable: true });
if ('unavailable' in started) throw new Error(`PostgreSQL is needed: ${started.unavailable}`);
const cluster: PgCluster = started;
try {
  const setups = async <F extends Figures | SteadyFigures>(): Promise<F[]> => {
    const results: F[] = [];
    for (const setup of SETUPS) {
      const processes = Number(setup);
      if (setup === 'lmdb') results.push(await run<F>('LMDB, 1 process', 1));
      else {
        const name = `PostgreSQL, ${processes} process${processes === 1 ? '' : 'es'}`;
        results.push(await run<F>(name, processes, await cluster.createDatabase()));
      }
    }
    return results;
  };
  if (SECONDS !== undefined) {
    const header = `${QUEUES} queues, ${CLIENTS} clients, ${values.warmup ?? 15} s warm-up then ${SECONDS} s measured, ${values.rate === undefined ? 'closed loop' : `${values.rate} submits/s offered`}, synthetic CI passing at once, ${warned ? 'no load balancer' : 'behind haproxy'}`;
    printSteady(await setups<SteadyFigures>(), header);
  }
  const results = SECONDS === undefined ? await setups<Figures>() : [];
  if (results.length > 0) {
    const one = results[1] as Figures;
    const lmdb = results[0] as Figures;
    console.log(
      `${QUEUES} queues × ${PRS} PRs, ${CLIENTS} clients, synthetic CI passing at once, ${warned ? 'no load balancer' : 'behind haproxy'}`,
    );
    console.log('CPU ms/submit: Greenline processes + PostgreSQL (Greenline alone; haproxy apart)');
    console.log('CPU ms/PR: the same processes from the first submit until every PR merged, per PR');
    console.log(
      'setup                      submits/s  × PG 1  × LMDB  merges/s  getQueue/s  CPU ms/submit  (Greenline)  (haproxy)  CPU × PG 1  CPU ms/PR  × PG 1',
    );
    for (const r of results) {
      console.log(
        `${r.setup.padEnd(26)} ${String(r.submitsPerSecond).padStart(9)} ${(r.submitsPerSecond / one.submitsPerSecond).toFixed(2).padStart(7)} ${(r.submitsPerSecond / lmdb.submitsPerSecond).toFixed(2).padStart(7)} ${String(r.mergesPerSecond).padStart(9)} ${String(r.readsPerSecond).padStart(11)} ${(r.cpuPerSubmit * 1000).toFixed(1).padStart(14)} ${(r.serviceCpuPerSubmit * 1000).toFixed(1).padStart(12)} ${(r.frontCpuPerSubmit * 1000).toFixed(2).padStart(10)} ${(r.cpuPerSubmit / one.cpuPerSubmit).toFixed(2).padStart(11)} ${(r.cpuPerPr * 1000).toFixed(1).padStart(10)} ${(r.cpuPerPr / one.cpuPerPr).toFixed(2).padStart(7)}`,
      );
    }
  }
} finally {
  await cluster.stop();
}
