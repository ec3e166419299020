/**
 * The PostgreSQL store when its database is not there or not answering: a queue's lock held by another session (it
 * stalls that queue's writes only), a table locked, the server stopped, the server down when the store opens. Each call ends in a
 * DependencyUnavailableError (the API's 503 with retry-after) within its bound, never a hang or another error, and the
 * same store works again once the database does.
 */
import { afterAll, describe, expect, test } from 'vitest';
import pg from 'pg';
import { DependencyUnavailableError } from '../../engine/model/unavailable.js';
import { SCOPE_LOCK_KEY } from '../../engine/store/postgres/schema.js';
import { openPostgresStore, type PostgresStore } from '../../engine/store/postgresStore.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL unavailable tests: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const TIMEOUTS = { connectMs: 1_000, statementMs: 2_000, lockMs: 300 };

function storeDown(fn: () => unknown): DependencyUnavailableError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).dependency).toBe('store');
    return error as DependencyUnavailableError;
  }
  throw new Error('the call succeeded');
}

async function session(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

describe.skipIf(cluster === undefined)('the PostgreSQL store with its database unavailable', () => {
  test("a queue's lock held by another session: that queue's writes are unavailable (busy), other queues' and other writes go on; a table held: unavailable", async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    const store: PostgresStore = openPostgresStore({ url, applicationName: 'unavailable-test', timeouts: TIMEOUTS });
    const other = await session(url);
    try {
      store.write((tx) => tx.put('meta', ['a'], 1));
      await other.query('BEGIN');
      await other.query(`SELECT pg_advisory_xact_lock(${SCOPE_LOCK_KEY})`, ['queue:q1']);
      // Not waited for (that would block the process): answered at once as busy, a 503 unless the caller waits (api/trpc.ts).
      expect(storeDown(() => store.write((tx) => tx.put('queues', ['q1'], { n: 1 } as never))).message).toMatch(
        /held by another transaction/,
      );
      expect(storeDown(() => store.write((tx) => tx.get('pullRequests', ['q1', 3]))).message).toMatch(
        /held by another transaction/,
      );
      // Another queue, and what belongs to no queue, commit while q1 is held; reads take no lock.
      store.write((tx) => tx.put('queues', ['q2'], { n: 2 } as never));
      store.write((tx) => tx.put('meta', ['b'], 2));
      expect(store.read((tx) => [tx.get('meta', ['a']), tx.get('queues', ['q2'])])).toEqual([1, { n: 2 }]);
      await other.query('COMMIT');
      store.write((tx) => tx.put('queues', ['q1'], { n: 1 } as never));
      expect(store.read((tx) => tx.get('queues', ['q1']))).toEqual({ n: 1 });

      await other.query('BEGIN');
      await other.query('LOCK TABLE greenline_kv IN ACCESS EXCLUSIVE MODE');
      storeDown(() => store.read((tx) => tx.get('meta', ['a'])));
      await other.query('ROLLBACK');
      expect(store.read((tx) => [tx.get('meta', ['a']), tx.get('meta', ['b'])])).toEqual([1, 2]);
    } finally {
      await other.end();
      await store.close();
      await pgCluster.dropDatabase(url);
    }
  });

  test('the server stopped: reads and writes are unavailable; the same store works again once it is back', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    const store = openPostgresStore({ url, applicationName: 'unavailable-test', timeouts: TIMEOUTS });
    try {
      store.write((tx) => tx.put('meta', ['a'], 1));
      pgCluster.halt();
      storeDown(() => store.read((tx) => tx.get('meta', ['a'])));
      storeDown(() => store.write((tx) => tx.put('meta', ['b'], 2)));
      storeDown(() => store.stats());
      pgCluster.resume();
      store.write((tx) => tx.put('meta', ['b'], 2));
      expect(store.read((tx) => [tx.get('meta', ['a']), tx.get('meta', ['b'])])).toEqual([1, 2]);
    } finally {
      await store.close();
      await pgCluster.dropDatabase(url);
    }
  });

  test('a server that stops answering mid-session (its backend paused): unavailable after the client-side bound', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    const store = openPostgresStore({ url, applicationName: 'paused-test', timeouts: TIMEOUTS });
    const other = await session(url);
    let paused: number | undefined;
    try {
      store.write((tx) => tx.put('meta', ['a'], 1));
      expect(store.read((tx) => tx.get('meta', ['a']))).toBe(1);
      // A round trip on the read connection: the worker has finished with it (the read's end is not awaited).
      store.stats();
      const { rows } = await other.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'paused-test:r'");
      paused = Number(rows[0]?.pid);
      process.kill(paused, 'SIGSTOP');
      // The backend neither answers nor fails: only the client's own bound ends the wait.
      expect(storeDown(() => store.read((tx) => tx.get('meta', ['a']))).message).toMatch(/timeout/i);
      process.kill(paused, 'SIGCONT');
      paused = undefined;
      expect(store.read((tx) => tx.get('meta', ['a']))).toBe(1);
    } finally {
      if (paused !== undefined) process.kill(paused, 'SIGCONT');
      await other.end();
      await store.close();
      await pgCluster.dropDatabase(url);
    }
  });

  test('a store opened while the server is down creates its schema once it is up', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    pgCluster.halt();
    const store = openPostgresStore({ url, applicationName: 'unavailable-test', timeouts: TIMEOUTS });
    try {
      storeDown(() => store.read((tx) => tx.get('meta', ['a'])));
      pgCluster.resume();
      store.write((tx) => tx.put('meta', ['a'], 1));
      expect(store.read((tx) => tx.get('meta', ['a']))).toBe(1);
    } finally {
      await store.close();
      await pgCluster.dropDatabase(url);
    }
  });
});
