/**
 * `npx tsx bench/postgresProfile.ts`: where a PostgreSQL submit's time goes, beside LMDB's, in one process without
 * HTTP: QUEUES queues, PRS submits each (the engine's submitPullRequest, as the API calls it, then its effects run).
 * For each store: per submit, the wall time of the input transaction, the worker round trips it made (by request)
 * and the time the main thread was blocked on them; the CPU of this process and (PostgreSQL) of the database's
 * processes per submit; and for each PostgreSQL setup, from the first submit until every effect ran, the read
 * transactions and requests per submit (so that one engine and several compare whole pipelines: with several, the
 * effects run between the submits). Round trips are counted by wrapping the store's SyncWorker
 * (postgres/syncWorker.ts). `-- --queues N --prs N --engines N` (defaults 50, 4, 1: engines on one database).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { QueueLeases } from '../engine/cluster/leases.js';
import { Engine } from '../engine/engine.js';
import { openLmdbStore } from '../engine/store/index.js';
import { SyncWorker } from '../engine/store/postgres/syncWorker.js';
import { openPostgresStore } from '../engine/store/postgresStore.js';
import type { Store } from '../engine/store/store.js';
import { startPostgres } from '../test/postgres/cluster.js';
import { cpuSeconds, databasePids } from './postgresCpu.js';

const { values } = parseArgs({
  options: { queues: { type: 'string' }, prs: { type: 'string' }, engines: { type: 'string' } },
});
const QUEUES = Number(values.queues ?? 50);
const PRS = Number(values.prs ?? 4);
const ENGINES = Number(values.engines ?? 1);
const keyOf = (i: number) => ({
  org: 'bench',
  repo: { host: 'github.com', owner: 'bench', name: `repo${i}` },
  branch: 'main',
});

const counts = new Map<string, number>();
const opMs = new Map<string, number>();
let blockedMs = 0;
let counting = false;
let effectCalls = new Map<string, number>();
let settleMs = 0;
const proto = SyncWorker.prototype as unknown as {
  call: (request: { op: string }) => unknown;
  post: (request: { op: string }) => void;
};
const call = proto.call;
proto.call = function (this: unknown, request: { op: string }) {
  if (!counting) return call.call(this, request);
  const label = `${request.op}${(request as { coll?: string }).coll ? `:${(request as { coll?: string }).coll}` : ''}${(request as { locks?: string[] }).locks ? '+lock' : ''}`;
  counts.set(label, (counts.get(label) ?? 0) + 1);
  const began = performance.now();
  try {
    return call.call(this, request);
  } finally {
    blockedMs += performance.now() - began;
    opMs.set(request.op, (opMs.get(request.op) ?? 0) + performance.now() - began);
  }
};
const post = proto.post;
proto.post = function (this: unknown, request: { op: string }) {
  if (counting) counts.set(`${request.op} (posted)`, (counts.get(`${request.op} (posted)`) ?? 0) + 1);
  return post.call(this, request);
};

interface Row {
  setup: string;
  submitMs: number;
  blockedMs: number;
  calls: Map<string, number>;
  cpuMs: number;
  dbCpuMs: number;
  effectsCpuMs: number;
  /** Requests from the first submit until every effect ran (settled), by request. */
  pipeline: Map<string, number>;
}

async function profile(setup: string, stores: Store[], url?: string): Promise<Row> {
  const all = stores.map((store) => {
    const leases = url === undefined ? undefined : new QueueLeases({ url, store: store as never, leaseMs: 3000 });
    const engine = new Engine(store, {
      ...(leases === undefined ? {} : { ownership: leases }),
      onError: () => undefined,
    });
    return { engine, leases };
  });
  for (const { engine, leases } of all) {
    engine.start();
    await leases?.start({
      acquired: (queueIds) => engine.adopt(queueIds),
      lost: (queueIds) => engine.release(queueIds),
      refresh: (queueId) => engine.refresh(queueId),
      committed: ({ queueId, changes }) => engine.heard(queueId, changes),
      onError: () => undefined,
    });
  }
  const settle = async () => {
    for (const { engine } of all) await engine.settle();
  };
  try {
    for (let q = 0; q < QUEUES; q++) all[q % all.length]?.engine.createQueue(keyOf(q), { concurrency: 4 });
    await settle();
    if (url !== undefined)
      while (all.reduce((n, { leases }) => n + (leases?.queues().length ?? 0), 0) < QUEUES)
        await new Promise((resolve) => setTimeout(resolve, 20));
    await settle();
    const pids = await databasePids(url);
    const dbBefore = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    counts.clear();
    opMs.clear();
    blockedMs = 0;
    counting = true;
    const cpu = process.cpuUsage();
    const began = performance.now();
    let i = 0;
    for (let pr = 1; pr <= PRS; pr++) {
      for (let q = 0; q < QUEUES; q++) {
        all[i++ % all.length]?.engine.submitPullRequest(keyOf(q), pr);
        // Other processes' notices are heard between inputs, as between requests.
        if (all.length > 1) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const submitMs = performance.now() - began;
    const used = process.cpuUsage(cpu);
    counting = false;
    const calls = new Map(counts);
    const blocked = blockedMs;
    const dbAfter = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const effects = process.cpuUsage();
    const settleBegan = performance.now();
    counts.clear();
    counting = true;
    await settle();
    counting = false;
    const effectsUsed = process.cpuUsage(effects);
    settleMs = (performance.now() - settleBegan) / (QUEUES * PRS);
    effectCalls = new Map(counts);
    const pipeline = new Map(calls);
    for (const [op, c] of effectCalls) pipeline.set(op, (pipeline.get(op) ?? 0) + c);
    const n = QUEUES * PRS;
    return {
      setup,
      submitMs: submitMs / n,
      blockedMs: blocked / n,
      calls,
      cpuMs: (used.user + used.system) / 1000 / n,
      dbCpuMs: ((dbAfter - dbBefore) * 1000) / n,
      effectsCpuMs: (effectsUsed.user + effectsUsed.system) / 1000 / n,
      pipeline,
    };
  } finally {
    for (const { engine, leases } of all) {
      engine.stop();
      await leases?.stop();
    }
  }
}

const started = await startPostgres({ durable: true });
if ('unavailable' in started) throw new Error(`PostgreSQL is needed: ${started.unavailable}`);
const dir = await mkdtemp(join(tmpdir(), 'greenline-pg-profile-'));
try {
  const lmdb = openLmdbStore({ dir: join(dir, 'db') });
  const rows = [await profile('LMDB', [lmdb])];
  await lmdb.close();
  for (const engines of [...new Set([1, ENGINES])]) {
    const url = await started.createDatabase();
    const pgStores = Array.from({ length: engines }, () => openPostgresStore({ url }));
    rows.push(await profile(`PostgreSQL ×${engines}`, pgStores, url));
    for (const store of pgStores) await store.close();
  }
  console.log(
    `${QUEUES} queues × ${PRS} submits, one process, no HTTP; per submit (the input's transaction; effects after)`,
  );
  console.log(
    'setup        wall ms  × LMDB  blocked ms  CPU ms (process)  CPU ms (PostgreSQL)  CPU × LMDB  effects CPU ms  round trips per submit',
  );
  const lmdbRow = rows[0] as Row;
  for (const r of rows) {
    const n = QUEUES * PRS;
    const trips = [...r.calls]
      .map(
        ([op, c]) =>
          `${op} ${(c / n).toFixed(2)}${opMs.has(op) ? ` (${((opMs.get(op) ?? 0) / c).toFixed(2)} ms each)` : ''}`,
      )
      .join(', ');
    console.log(
      `${r.setup.padEnd(12)} ${r.submitMs.toFixed(2).padStart(7)} ${(r.submitMs / lmdbRow.submitMs).toFixed(1).padStart(7)} ${r.blockedMs.toFixed(2).padStart(11)} ${r.cpuMs.toFixed(2).padStart(17)} ${r.dbCpuMs.toFixed(2).padStart(20)} ${((r.cpuMs + r.dbCpuMs) / lmdbRow.cpuMs).toFixed(1).padStart(11)} ${r.effectsCpuMs.toFixed(2).padStart(14)}  ${trips || '-'}`,
    );
  }
  const n = QUEUES * PRS;
  console.log('from the first submit until every effect ran, per submit: read transactions, requests (blocking)');
  for (const r of rows.slice(1)) {
    const total = (ops: [string, number][]) => ops.reduce((sum, [, c]) => sum + c, 0) / n;
    const all = [...r.pipeline];
    const reads = all.filter(([op]) => op === 'end (posted)');
    const blocking = all.filter(([op]) => !op.endsWith('(posted)'));
    const top = blocking
      .sort(([, a], [, b]) => b - a)
      .map(([op, c]) => `${op} ${(c / n).toFixed(2)}`)
      .join(', ');
    console.log(
      `${r.setup.padEnd(14)} ${total(reads).toFixed(2)} reads, ${total(blocking).toFixed(2)} requests: ${top}`,
    );
  }
  console.log(
    `effects (last setup): ${settleMs.toFixed(2)} ms wall per submit; round trips per submit: ${[...effectCalls].map(([op, c]) => `${op} ${(c / n).toFixed(2)}`).join(', ')}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
  await started.stop();
}
