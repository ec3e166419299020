/**
 * What a process keeps of a queue's scope (engine/store/postgres/scopeCache.ts) serves a write transaction holding
 * the queue's lock only when it is of the scope's version: two stores on one database writing one key in turn never
 * lose an update, whether they hear each other's commits (NOTIFY greenline_commit) or not; and a store that heard the
 * other's commit reads the keys it did not change from memory: one round trip fewer than asking the database again.
 */
import pg from 'pg';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { COMMIT_CHANNEL, parseCommitNotice } from '../../engine/store/postgres/commitNotices.js';
import { SyncWorker } from '../../engine/store/postgres/syncWorker.js';
import { openPostgresStore, type PostgresStore } from '../../engine/store/postgresStore.js';
import { eventually } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL scope cache test: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Requests the stores' workers answer (each a round trip), counted while `counting`. */
let requests = 0;
const proto = SyncWorker.prototype as unknown as { call: (request: unknown) => unknown };
const call = proto.call;
proto.call = function (this: unknown, request: unknown) {
  requests++;
  return call.call(this, request);
};

type Counter = { n: number };
const bump = (store: PostgresStore): void =>
  store.write((tx) => {
    const counter = tx.get('queues', ['q1']) as unknown as Counter;
    // A key of the same queue nobody writes: the database's answer, or the kept one.
    expect(tx.get('pullRequests', ['q1', 99])).toBeUndefined();
    tx.put('queues', ['q1'], { n: counter.n + 1 } as never);
  });

async function stores(url: string): Promise<[PostgresStore, PostgresStore]> {
  const a = openPostgresStore({ url, applicationName: 'scope-cache-a' });
  const b = openPostgresStore({ url, applicationName: 'scope-cache-b' });
  cleanups.push(
    () => a.close(),
    () => b.close(),
  );
  a.write((tx) => tx.put('queues', ['q1'], { n: 0 } as never));
  return [a, b];
}

describe.skipIf(cluster === undefined)('the scope cache of two stores on one database', () => {
  test('writes in turn without hearing each other: no update lost', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const [a, b] = await stores(url);
    for (let i = 0; i < 10; i++) for (const store of [a, b, a]) bump(store);
    expect((a.read((tx) => tx.get('queues', ['q1'])) as unknown as Counter).n).toBe(30);
    expect((b.read((tx) => tx.get('queues', ['q1'])) as unknown as Counter).n).toBe(30);
  });

  test("hearing each other's commits: no update lost, and what the other did not change is read from memory", async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const [a, b] = await stores(url);
    let heard = 0;
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    cleanups.push(() => listener.end());
    listener.on('notification', ({ payload }) => {
      const notice = parseCommitNotice(payload);
      if (notice === undefined) return;
      for (const store of [a, b]) if (store.sender !== notice.sender) store.heard(notice);
      heard++;
    });
    await listener.query(`LISTEN ${COMMIT_CHANNEL}`);
    const inTurn = async (store: PostgresStore): Promise<number> => {
      const before = requests;
      const sent = heard;
      bump(store);
      const made = requests - before;
      await eventually(
        async () => heard,
        (n) => n > sent,
        20_000,
      );
      return made;
    };
    await inTurn(a);
    const made: number[] = [];
    for (let i = 0; i < 10; i++) for (const store of [b, a]) made.push(await inTurn(store));
    expect((a.read((tx) => tx.get('queues', ['q1'])) as unknown as Counter).n).toBe(21);
    // After each store's first turn (it kept nothing of the queue yet): the queue's record with its lock, and the
    // commit; the untouched key came from memory (before: three requests each time).
    expect(made.slice(0, 2)).toEqual([3, 2]);
    expect(made.slice(2)).toEqual(made.slice(2).map(() => 2));
  });

  test('while a process of an earlier build is a live member (it writes without bumping versions), nothing kept is trusted', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const [a] = await stores(url);
    bump(a);
    bump(a);
    const outside = new pg.Client({ connectionString: url });
    await outside.connect();
    cleanups.push(() => outside.end());
    // An earlier build's heartbeat (no cache_versions), then its write of the queue, with no version bumped.
    await outside.query(
      `INSERT INTO greenline_members (id, expires_at) VALUES ('earlier-build', clock_timestamp() + interval '1 hour')`,
    );
    await outside.query(`UPDATE greenline_kv SET v = '{"n": 100}' WHERE coll = 'queues'`);
    bump(a);
    expect((a.read((tx) => tx.get('queues', ['q1'])) as unknown as Counter).n).toBe(101);
    await outside.query(`UPDATE greenline_kv SET v = '{"n": 200}' WHERE coll = 'queues'`);
    bump(a);
    expect((a.read((tx) => tx.get('queues', ['q1'])) as unknown as Counter).n).toBe(201);
    // Gone (its membership ran out): what this process keeps is trusted again, and stays right.
    await outside.query(`DELETE FROM greenline_members WHERE id = 'earlier-build'`);
    for (let i = 0; i < 3; i++) bump(a);
    expect((a.read((tx) => tx.get('queues', ['q1'])) as unknown as Counter).n).toBe(204);
  });
});
