/**
 * What the driver of a queue reads for the commits other processes make to it (engine/runtime/driverWork.ts), with two
 * processes on one PostgreSQL database. Leases are long here, so that no lease round runs unless the test runs one:
 * the reads counted are those the commits bring.
 *
 * - Submits the other process takes: the driver arms their timers from the notices and runs their outbox, without
 *   reading the queue's timers or counting its outbox (before: a timers scan at each notice, an outbox count at each
 *   run of the outbox).
 * - A notice the driver missed: the next lease round finds a version of the queue it neither made nor heard, and runs
 *   the queue's outbox. Work skipped while the driver did not count as one (a lease renewed late) is done then too.
 * - The queue index kept by a process (engine/store/postgres/unlockedCache.ts): read once, then not again; a queue the
 *   other process made after this one found none is found.
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { QueueLeases } from '../../engine/cluster/leases.js';
import { Engine } from '../../engine/engine.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import type { RepoRef } from '../../engine/model/queues.js';
import type { GitHost, PullRequestFacts } from '../../engine/providers/types.js';
import { SyncWorker } from '../../engine/store/postgres/syncWorker.js';
import { openPostgresStore, type PostgresStore } from '../../engine/store/postgresStore.js';
import type { ReadTx } from '../../engine/store/store.js';
import { KEY } from '../engine/queueHarness.js';
import { eventually } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL driver reads test: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Member {
  engine: Engine;
  store: PostgresStore;
  leases: QueueLeases;
  /** Scans and counts of read transactions, by `op:collection`. */
  reads: Map<string, number>;
  /** Runs a lease round now, and waits for it. */
  round(): Promise<void>;
}

/** A process as `greenline serve` wires one (test/postgres/clusterEngine.ts), with leases too long to renew here. */
async function member(url: string, name: string, gitHost?: GitHost): Promise<Member> {
  const store = openPostgresStore({ url, applicationName: `driver-reads-${name}` });
  const reads = new Map<string, number>();
  const read = store.read.bind(store);
  store.read = <R>(fn: (tx: ReadTx) => R): R =>
    read((tx) =>
      fn({
        ...tx,
        scan: (coll, options) => {
          reads.set(`scan:${coll}`, (reads.get(`scan:${coll}`) ?? 0) + 1);
          return tx.scan(coll, options);
        },
        count: (coll, options) => {
          reads.set(`count:${coll}`, (reads.get(`count:${coll}`) ?? 0) + 1);
          return tx.count(coll, options);
        },
      }),
    );
  const leases = new QueueLeases({ url, store, leaseMs: 3_600_000, memberId: name });
  const engine = new Engine(store, { ownership: leases, onError: () => undefined, ...(gitHost ? { gitHost } : {}) });
  engine.start();
  await leases.start({
    acquired: (queueIds) => engine.adopt(queueIds),
    lost: (queueIds) => engine.release(queueIds),
    refresh: (queueId) => engine.refresh(queueId),
    committed: ({ queueId, changes }) => engine.heard(queueId, changes),
    onError: () => undefined,
  });
  cleanups.push(async () => {
    engine.stop();
    await leases.stop();
    await store.close();
  });
  const inner = leases as unknown as { soon(): void; running: Promise<void> | undefined };
  return {
    engine,
    store,
    leases,
    reads,
    async round() {
      inner.soon();
      await inner.running;
    },
  };
}

/** Two processes, a queue one of them drives: [driver, other]. */
async function pair(gitHosts: GitHost[] = []): Promise<{ driver: Member; other: Member; queueId: string }> {
  const pgCluster = cluster as PgCluster;
  const url = await pgCluster.createDatabase();
  cleanups.push(() => pgCluster.dropDatabase(url));
  const members = [await member(url, 'a', gitHosts[0]), await member(url, 'b', gitHosts[1])];
  const queueId = members[0]?.engine.createQueue(KEY, {}).id as string;
  const driver = await eventually(
    async () => members.find((one) => one.engine.drives(queueId)),
    (found) => found !== undefined,
  );
  const other = members.find((one) => one !== driver) as Member;
  return { driver: driver as Member, other, queueId };
}

const outboxOf = (store: PostgresStore, queueId: string): number =>
  store.read((tx) => tx.count('outbox', { prefix: [queueId] }));

/** Waits until the queue's outbox is empty: the driver ran what was in it. */
const outboxRun = (store: PostgresStore, queueId: string) =>
  eventually(
    async () => outboxOf(store, queueId),
    (left) => left === 0,
  );

/** Work nothing told the driver of waits in the queue's outbox, and the driver's next lease round runs it. */
async function waitsForNextRound(driver: Member, other: Member, queueId: string): Promise<void> {
  expect(outboxOf(other.store, queueId)).toBeGreaterThan(0);
  await driver.round();
  await outboxRun(other.store, queueId);
}

describe.skipIf(cluster === undefined)("the driver's reads for other processes' commits", () => {
  test('submits the other process takes are run by the driver without reading its timers or counting its outbox', async () => {
    const { driver, other, queueId } = await pair();
    await driver.engine.settle();
    driver.reads.clear();
    for (let pr = 1; pr <= 3; pr++) other.engine.submitPullRequest(KEY, pr);
    expect(outboxOf(other.store, queueId)).toBeGreaterThan(0);
    // The driver runs what the other process's commits put in the outbox.
    await outboxRun(other.store, queueId);
    expect(driver.reads.get('scan:outbox') ?? 0).toBeGreaterThan(0);
    expect(driver.reads.get('scan:timers') ?? 0).toBe(0);
    expect(driver.reads.get('count:outbox') ?? 0).toBe(0);
  });

  test('a notice the driver missed: its next lease round finds the version unheard and runs the outbox', async () => {
    const { driver, other, queueId } = await pair();
    // A round first, so that the driver knows the queue's version: the round below finds it behind by the miss alone.
    await driver.round();
    other.engine.submitPullRequest(KEY, 1);
    await outboxRun(other.store, queueId);
    const listening = driver.leases as unknown as { heard(payload: string | undefined): void };
    let missed = 0;
    listening.heard = () => void (missed += 1);
    other.engine.submitPullRequest(KEY, 2);
    await eventually(
      async () => missed,
      (n) => n > 0,
    );
    delete (listening as { heard?: unknown }).heard;
    // Nothing told the driver: the entry waits.
    await driver.engine.settle();
    await waitsForNextRound(driver, other, queueId);
  });

  test('work skipped while the driver did not count as one (its lease not renewed in time) is done at its next round', async () => {
    const { driver, other, queueId } = await pair();
    await driver.round();
    const leases = driver.leases as unknown as { owns(queueId: string): boolean };
    leases.owns = () => false;
    let heard = 0;
    // The façade's `heard` is a read-only field: the test counts its calls through a writable view of it.
    const engine = driver.engine as unknown as { heard: (...args: Parameters<typeof driver.engine.heard>) => void };
    const hear = engine.heard;
    engine.heard = (id, changes) => {
      heard += 1;
      hear(id, changes);
    };
    other.engine.submitPullRequest(KEY, 1);
    await eventually(
      async () => heard,
      (n) => n > 0,
    );
    delete (leases as { owns?: unknown }).owns;
    await driver.engine.settle();
    await waitsForNextRound(driver, other, queueId);
  });

  test('an effect whose run stopped as the driver stopped counting as one is run again at its next round', async () => {
    /** A git host whose PR reads wait for the test while `closed`. */
    class Gated extends SimGitHost {
      closed = false;
      waiting = 0;
      private open: (() => void) | undefined;
      override async pullRequest(repo: RepoRef, number: number, target: string): Promise<PullRequestFacts> {
        if (this.closed) {
          this.waiting += 1;
          await new Promise<void>((resolve) => (this.open = resolve));
        }
        return super.pullRequest(repo, number, target);
      }
      let(): void {
        this.closed = false;
        this.open?.();
      }
    }
    const hosts = [new Gated(), new Gated()];
    const { driver, other, queueId } = await pair(hosts);
    await driver.round();
    for (const host of hosts) host.closed = true;
    other.engine.submitPullRequest(KEY, 1);
    // The driver's outbox is at the PR's read when its lease is renewed too late.
    await eventually(
      async () => hosts.reduce((n, host) => n + host.waiting, 0),
      (n) => n > 0,
    );
    const leases = driver.leases as unknown as { owns(queueId: string): boolean };
    leases.owns = () => false;
    for (const host of hosts) host.let();
    await driver.engine.settle();
    delete (leases as { owns?: unknown }).owns;
    await waitsForNextRound(driver, other, queueId);
  });

  test('the queue index is read once per process; a queue the other process made since is found', async () => {
    const { driver, other } = await pair();
    const requests: string[] = [];
    const proto = SyncWorker.prototype as unknown as { call(request: { op: string; coll?: string }): unknown };
    const call = proto.call;
    let counting = false;
    proto.call = function (this: unknown, request) {
      if (counting) requests.push(`${request.op}:${request.coll ?? ''}`);
      return call.call(this, request);
    };
    cleanups.push(async () => {
      proto.call = call;
    });
    const second = { ...KEY, branch: 'release' };
    const indexReads = () => requests.filter((request) => request === 'get:queueIndex').length;
    counting = true;
    for (let pr = 1; pr <= 3; pr++) other.engine.submitPullRequest(KEY, pr);
    // At most the first submit read the index (none, on the process that made the queue); the others took what it kept.
    expect(indexReads()).toBeLessThanOrEqual(1);
    requests.length = 0;
    expect(() => other.engine.submitPullRequest(second, 1)).toThrow(/queue/);
    counting = false;
    expect(indexReads()).toBe(1);
    const made = driver.engine.createQueue(second, {}).id;
    other.engine.submitPullRequest(second, 1);
    expect(other.store.read((tx) => tx.get('pullRequests', [made, 1]))).toBeDefined();
  });
});
