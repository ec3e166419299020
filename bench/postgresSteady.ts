/**
 * The steady mode of `npm run bench:postgres` (`-- --seconds S [--warmup W]`): instead of a fixed number of PRs, the
 * clients submit new PRs to the queues for W seconds (every process warms up: its JIT, its caches, its connections),
 * then for S seconds measured: submits/s and the CPU seconds of each Greenline process and of PostgreSQL over those S
 * seconds alone, per submit. The merges that run meanwhile count in the CPU as they do in a real service. At the end,
 * how many PRs are left queued (a setup whose merges fell behind carries work past the window). `--rate R`: R
 * submits/s offered, so that setups compare CPU per submit at one pace their merges keep up with; `--idle I` (default
 * 10): I seconds without requests after the warm-up measure what the setup spends idle.
 */
import { contextSwitches, cpuSeconds, databasePids, threadCpuSeconds } from './postgresCpu.js';

export interface SteadyFigures {
  setup: string;
  submitsPerSecond: number;
  /**
   * PRs merged per second over the window: its submits less the growth of what is queued. A setup that answers
   * submits faster than it merges them piles them up: what it sustains is the lesser of the two.
   */
  mergesPerSecond: number;
  /** CPU seconds per submit over the window: Greenline processes and PostgreSQL together, then apart. */
  cpuPerSubmit: number;
  serviceCpuPerSubmit: number;
  databaseCpuPerSubmit: number;
  /** Each Greenline process's CPU seconds per submit of the whole setup. */
  perProcess: number[];
  /**
   * The Greenline processes' CPU ms per submit by thread, summed over the processes: the main thread (JavaScript,
   * the event loop), the busiest other thread of each (the store's worker: pg and its round trips), and the rest
   * (V8's compiler and garbage collector threads, libuv's pool).
   */
  threads: { main: number; busiest: number; rest: number };
  /** Each Greenline process's CPU use over the window, in cores (CPU seconds ÷ seconds). */
  perProcessCores: number[];
  databaseCores: number;
  /** Cores the Greenline processes and PostgreSQL used idle (no requests), measured after the warm-up. */
  idle: { service: number; database: number };
  /** Context switches per submit of the Greenline processes and PostgreSQL, all threads (sleeps; preemptions). */
  switches: { voluntary: number; involuntary: number };
  submits: number;
  /** PRs queued (not merged) when the window began and when it ended. */
  queuedAtStart: number;
  queuedAtEnd: number;
  /** Wall-clock times of the window (Date.now), for reading profiles of that window alone. */
  window: { from: number; to: number };
}

export interface SteadyOptions {
  setup: string;
  queues: number;
  clients: number;
  warmupSeconds: number;
  seconds: number;
  servicePids: number[];
  url: string | undefined;
  /** Seconds without requests after the warm-up, to measure what the setup spends idle (0: not measured). */
  idleSeconds: number;
  /** Submits per second offered (paced), or as fast as the setup answers. */
  rate?: number;
  /** One submit of PR `number` to queue `queue`: resolves once answered 200 (or throws). */
  submit: (queue: number, number: number) => Promise<void>;
  /** The PRs queued in queue `queue` now. */
  queued: (queue: number) => Promise<number>;
}

/**
 * Submits from `clients` at once until `until()` says stop; returns how many were answered. With a rate, the n-th
 * submit is sent no sooner than n ÷ rate seconds after the start (fewer when the setup cannot keep up).
 */
async function submitUntil(options: SteadyOptions, next: number[], until: () => boolean): Promise<number> {
  let done = 0;
  let turn = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: options.clients }, async () => {
      while (!until()) {
        const slot = turn++;
        const wait = options.rate === undefined ? 0 : began + (slot * 1000) / options.rate - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (until()) break;
        const queue = slot % options.queues;
        const number = (next[queue] = (next[queue] ?? 0) + 1);
        await options.submit(queue, number);
        done += 1;
      }
    }),
  );
  return done;
}

/**
 * The CPU the setup spends doing nothing asked of it (lease rounds, heartbeats, timers), in cores: over `idleSeconds`
 * without requests, once what the warm-up left queued has merged (every queue empty, or 30 s at most).
 */
async function idleCores(options: SteadyOptions): Promise<{ service: number; database: number }> {
  if (options.idleSeconds === 0) return { service: 0, database: 0 };
  for (let tries = 0; tries < 30; tries++) {
    let queued = 0;
    for (let q = 0; q < options.queues; q++) queued += await options.queued(q);
    if (queued === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const database = await databasePids(options.url);
  const cpu = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const [service, db] = [cpu(options.servicePids), cpu(database)];
  const began = performance.now();
  await new Promise((resolve) => setTimeout(resolve, options.idleSeconds * 1000));
  const seconds = (performance.now() - began) / 1000;
  return { service: (cpu(options.servicePids) - service) / seconds, database: (cpu(database) - db) / seconds };
}

export async function measureSteady(options: SteadyOptions): Promise<SteadyFigures> {
  const next: number[] = [];
  const warmEnd = performance.now() + options.warmupSeconds * 1000;
  await submitUntil(options, next, () => performance.now() >= warmEnd);
  const idle = await idleCores(options);
  let queuedAtStart = 0;
  for (let q = 0; q < options.queues; q++) queuedAtStart += await options.queued(q);
  const database = await databasePids(options.url);
  const switches = (pids: number[]) =>
    pids
      .map(contextSwitches)
      .reduce((a, b) => ({ voluntary: a.voluntary + b.voluntary, involuntary: a.involuntary + b.involuntary }), {
        voluntary: 0,
        involuntary: 0,
      });
  const switchesBefore = switches([...options.servicePids, ...database]);
  const serviceBefore = options.servicePids.map((pid) => cpuSeconds(pid));
  const threadsBefore = options.servicePids.map(threadCpuSeconds);
  const databaseBefore = new Map(database.map((pid) => [pid, cpuSeconds(pid)]));
  const from = Date.now();
  const began = performance.now();
  const end = began + options.seconds * 1000;
  const submits = await submitUntil(options, next, () => performance.now() >= end);
  const seconds = (performance.now() - began) / 1000;
  const to = Date.now();
  const serviceAfter = options.servicePids.map((pid) => cpuSeconds(pid));
  const threads = { main: 0, busiest: 0, rest: 0 };
  options.servicePids.forEach((pid, i) => {
    const before = threadsBefore[i] as Map<number, number>;
    const used = [...threadCpuSeconds(pid)].map(([tid, cpu]) => ({ tid, cpu: cpu - (before.get(tid) ?? 0) }));
    const others = used.filter(({ tid }) => tid !== pid).sort((a, b) => b.cpu - a.cpu);
    threads.main += used.find(({ tid }) => tid === pid)?.cpu ?? 0;
    threads.busiest += others[0]?.cpu ?? 0;
    threads.rest += others.slice(1).reduce((sum, { cpu }) => sum + cpu, 0);
  });
  // Backends that began during the window count from 0; those that ended are left out (connections stay open).
  const databaseAll = [...new Set([...database, ...(await databasePids(options.url))])];
  const switchesAfter = switches([...options.servicePids, ...databaseAll]);
  const databaseCpu = databaseAll.reduce((sum, pid) => sum + cpuSeconds(pid) - (databaseBefore.get(pid) ?? 0), 0);
  const perProcessCpu = serviceAfter.map((after, i) => after - (serviceBefore[i] ?? 0));
  const serviceCpu = perProcessCpu.reduce((a, b) => a + b, 0);
  let queuedAtEnd = 0;
  for (let q = 0; q < options.queues; q++) queuedAtEnd += await options.queued(q);
  return {
    setup: options.setup,
    submitsPerSecond: submits / seconds,
    mergesPerSecond: (submits - (queuedAtEnd - queuedAtStart)) / seconds,
    cpuPerSubmit: (serviceCpu + databaseCpu) / submits,
    serviceCpuPerSubmit: serviceCpu / submits,
    databaseCpuPerSubmit: databaseCpu / submits,
    perProcess: perProcessCpu.map((cpu) => cpu / submits),
    threads: { main: threads.main / submits, busiest: threads.busiest / submits, rest: threads.rest / submits },
    perProcessCores: perProcessCpu.map((cpu) => cpu / seconds),
    databaseCores: databaseCpu / seconds,
    idle,
    switches: {
      voluntary: (switchesAfter.voluntary - switchesBefore.voluntary) / submits,
      involuntary: (switchesAfter.involuntary - switchesBefore.involuntary) / submits,
    },
    submits,
    queuedAtStart,
    queuedAtEnd,
    window: { from, to },
  };
}

export function printSteady(results: SteadyFigures[], header: string): void {
  const one = results.find((r) => r.setup.startsWith('PostgreSQL, 1')) ?? results[0];
  console.log(header);
  console.log('CPU ms/submit over the measured window: Greenline processes + PostgreSQL (each apart)');
  console.log(
    'idle cores: what the processes and PostgreSQL spend without requests; net: CPU ms/submit less that idle share',
  );
  console.log(
    'setup                      submits/s  × PG 1  merges/s  × PG 1  submits  CPU ms/submit  × PG 1  (Greenline) (PostgreSQL)  Greenline threads: main/worker/rest  cores: each process | PostgreSQL  queued at start → end  idle cores: Greenline | PostgreSQL  net CPU ms/submit  switches/submit: slept | preempted',
  );
  for (const r of results) {
    const ratio = one === undefined ? 1 : r.submitsPerSecond / one.submitsPerSecond;
    const cpuRatio = one === undefined ? 1 : r.cpuPerSubmit / one.cpuPerSubmit;
    console.log(
      `${r.setup.padEnd(26)} ${r.submitsPerSecond.toFixed(1).padStart(9)} ${ratio.toFixed(2).padStart(7)} ${r.mergesPerSecond.toFixed(1).padStart(9)} ${(one === undefined ? 1 : r.mergesPerSecond / one.mergesPerSecond).toFixed(2).padStart(7)} ${String(r.submits).padStart(8)} ${(r.cpuPerSubmit * 1000).toFixed(1).padStart(14)} ${cpuRatio.toFixed(2).padStart(7)} ${(r.serviceCpuPerSubmit * 1000).toFixed(1).padStart(11)} ${(r.databaseCpuPerSubmit * 1000).toFixed(1).padStart(12)}  ${[
        r.threads.main,
        r.threads.busiest,
        r.threads.rest,
      ]
        .map((ms) => (ms * 1000).toFixed(1))
        .join('/')
        .padStart(
          35,
        )}  ${r.perProcessCores.map((c) => c.toFixed(2)).join(' ')} | ${r.databaseCores.toFixed(2)}  ${r.queuedAtStart} → ${r.queuedAtEnd}  ${r.idle.service.toFixed(3)} | ${r.idle.database.toFixed(3)}  ${((r.cpuPerSubmit - (r.idle.service + r.idle.database) / r.submitsPerSecond) * 1000).toFixed(1)}  ${r.switches.voluntary.toFixed(0)} | ${r.switches.involuntary.toFixed(0)}`,
    );
  }
}
