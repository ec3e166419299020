/** Queue leases on PostgreSQL: fencing tokens checked by the store, queues spread over processes, handed over. */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import pg from 'pg';
import { QueueLeases } from '../../engine/cluster/leases.js';
import { LeaseLostError, openPostgresStore, type PostgresStore } from '../../engine/store/postgresStore.js';
import { eventually } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL lease tests: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<{ url: string; store: PostgresStore; db: pg.Client }> {
  const url = await (cluster as PgCluster).createDatabase();
  const store = openPostgresStore({ url });
  store.read((tx) => tx.get('meta', ['format'])); // migrated
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  cleanups.push(async () => {
    await db.end();
    await store.close().catch(() => undefined);
    await (cluster as PgCluster).dropDatabase(url);
  });
  return { url, store, db };
}

const noEvents = {
  acquired: () => undefined,
  lost: () => undefined,
  refresh: () => undefined,
  onError: () => undefined,
};

describe.skipIf(cluster === undefined)('queue leases', () => {
  test('a write fenced by a token commits only while that token holds the lease', async () => {
    const { store, db } = await database();
    await db.query("INSERT INTO greenline_leases VALUES ('q1', 'a', 7, clock_timestamp() + interval '1 minute')");
    store.withFences([{ queueId: 'q1', token: '7' }], () => store.write((tx) => tx.put('meta', ['x'], 1)));
    expect(store.read((tx) => tx.get('meta', ['x']))).toBe(1);
    // Another process took the lease over (a new token): the former owner's writes are refused, whole.
    await db.query("UPDATE greenline_leases SET owner = 'b', token = 8 WHERE queue_id = 'q1'");
    expect(() =>
      store.withFences([{ queueId: 'q1', token: '7' }], () =>
        store.write((tx) => (tx.put('meta', ['x'], 2), tx.put('meta', ['y'], 2))),
      ),
    ).toThrow(LeaseLostError);
    expect(store.read((tx) => [tx.get('meta', ['x']), tx.get('meta', ['y'])])).toEqual([1, undefined]);
    // An expired lease fences too, even when nobody took it yet.
    await db.query(
      "UPDATE greenline_leases SET token = 7, expires_at = clock_timestamp() - interval '1 second' WHERE queue_id = 'q1'",
    );
    expect(() =>
      store.withFences([{ queueId: 'q1', token: '7' }], () => store.write((tx) => tx.put('meta', ['x'], 3))),
    ).toThrow(LeaseLostError);
    // Writes without a fence (a request's input, from any process) are not affected.
    store.write((tx) => tx.put('meta', ['x'], 4));
    expect(store.read((tx) => tx.get('meta', ['x']))).toBe(4);
  });

  test('queues spread over processes; a process that stops hands its queues over at once', async () => {
    const { url, store } = await database();
    store.write((tx) => {
      for (const id of ['q1', 'q2', 'q3', 'q4']) tx.put('queues', [id], { id } as never);
    });
    const leaseMs = 900;
    const a = new QueueLeases({ url, store, leaseMs, memberId: 'a' });
    const storeB = openPostgresStore({ url });
    const b = new QueueLeases({ url, store: storeB, leaseMs, memberId: 'b' });
    cleanups.push(async () => {
      await a.stop();
      await b.stop();
      await storeB.close();
    });
    const acquiredByB: string[] = [];
    await a.start(noEvents);
    expect(a.queues().sort()).toEqual(['q1', 'q2', 'q3', 'q4']);
    await b.start({ ...noEvents, acquired: (ids) => acquiredByB.push(...ids) });
    // A hands queues back over its fair share, one per round; B takes them.
    await eventually(
      async () => [a.queues().length, b.queues().length],
      ([na, nb]) => na === 2 && nb === 2,
      20_000,
    );
    expect(new Set([...a.queues(), ...b.queues()]).size).toBe(4);
    expect(a.asOwner(a.queues()[0] as string, () => 'fenced')).toBe('fenced');
    expect(() => a.asOwner(b.queues()[0] as string, () => 'fenced')).toThrow(LeaseLostError);
    await a.stop();
    await eventually(
      async () => b.queues().length,
      (n) => n === 4,
      20_000,
    );
    expect(acquiredByB.sort()).toEqual(['q1', 'q2', 'q3', 'q4']);
  });
});
