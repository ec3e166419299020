/**
 * Per-queue serialisation on PostgreSQL (store/postgres/queueScope.ts, worker.ts): a write transaction takes the lock
 * of each queue it touches, so writes of other queues — from another session, another process — commit while it
 * holds them, a write that had to wait for a queue's lock reads what the holder committed, and two sessions making
 * the same queue at once make it once. Two stores in one process are two sessions, as two processes are.
 */
import { afterAll, describe, expect, test } from 'vitest';
import pg from 'pg';
import { DependencyUnavailableError } from '../../engine/model/unavailable.js';
import { encodeKey } from '../../engine/store/keyCodec.js';
import { SCOPE_LOCK_KEY } from '../../engine/store/postgres/schema.js';
import { openPostgresStore } from '../../engine/store/postgresStore.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL queue lock tests: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const TIMEOUTS = { connectMs: 2_000, statementMs: 10_000, lockMs: 500 };
type Counter = { n: number };
const counter = (value: unknown): Counter => value as Counter;

describe.skipIf(cluster === undefined)('per-queue serialisation on PostgreSQL', () => {
  test("a write holding one queue does not hold up another session's writes of other queues; the same queue waits (bounded)", async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    const a = openPostgresStore({ url, applicationName: 'locks-a', timeouts: TIMEOUTS });
    const b = openPostgresStore({ url, applicationName: 'locks-b', timeouts: TIMEOUTS });
    try {
      a.write((tx) => tx.put('queues', ['q1'], { n: 1 } as never));
      const inside: string[] = [];
      a.write((tx) => {
        // `a` holds q1 from here to its commit; meanwhile `b` writes q2 and a key of no queue, and is refused q1.
        const q1 = counter(tx.get('queues', ['q1']));
        b.write((other) => other.put('queues', ['q2'], { n: 2 } as never));
        b.write((other) => other.put('meta', ['other'], 'b'));
        inside.push('b wrote q2 and meta');
        try {
          b.write((other) => other.put('queues', ['q1'], { n: 99 } as never));
        } catch (error) {
          expect(error).toBeInstanceOf(DependencyUnavailableError);
          inside.push('b waited for q1, then gave up');
        }
        tx.put('queues', ['q1'], { n: q1.n + 1 } as never);
      });
      expect(inside).toEqual(['b wrote q2 and meta', 'b waited for q1, then gave up']);
      expect(b.read((tx) => [tx.get('queues', ['q1']), tx.get('queues', ['q2']), tx.get('meta', ['other'])])).toEqual([
        { n: 2 },
        { n: 2 },
        'b',
      ]);
      // Every kind of scope takes its lock and commits (a scope's name is text PostgreSQL takes).
      b.write((tx) => {
        tx.get('flakyTests', ['acme', 'repo/x', 't1']);
        tx.put('flakyTests', ['acme', 'repo/x', 't1'], { n: 1 } as never);
        tx.get('tokens', ['t']);
        tx.get('webhookInbox', ['d']);
      });
      // Once `a` committed, q1 is free for `b`.
      b.write((tx) => tx.put('queues', ['q1'], { n: counter(tx.get('queues', ['q1'])).n + 1 } as never));
      expect(a.read((tx) => tx.get('queues', ['q1']))).toEqual({ n: 3 });
    } finally {
      await a.close();
      await b.close();
      await pgCluster.dropDatabase(url);
    }
  });

  test('a write that waited for a queue held by another session sees what that session committed', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    // Waits for the lock while blocked (busyWaitMs) long enough for the other session's commit.
    const store = openPostgresStore({
      url,
      applicationName: 'locks-retry',
      timeouts: { ...TIMEOUTS, lockMs: 5_000, busyWaitMs: 5_000 },
    });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      store.write((tx) => {
        tx.put('meta', ['a'], 1);
        tx.put('queues', ['q1'], { n: 1 } as never);
      });
      const key = `\\x${encodeKey(['q1']).toString('hex')}`;
      await other.query('BEGIN');
      await other.query(`SELECT pg_advisory_xact_lock(${SCOPE_LOCK_KEY})`, ['queue:q1']);
      // Sent now, run by the server while the store waits: q1 becomes 5, then the lock is released.
      const committing = other.query(
        `SELECT pg_sleep(0.3); UPDATE greenline_kv SET v = '{"n":5}' WHERE coll = 'queues' AND k = '${key}'; COMMIT`,
      );
      store.write((tx) => {
        tx.get('meta', ['a']); // a first statement before the queue's lock is asked for
        const q1 = counter(tx.get('queues', ['q1']));
        tx.put('queues', ['q1'], { n: q1.n + 1 } as never);
      });
      await committing;
      // Not 2 (a lost update, over a snapshot from before the other commit): 5 + 1.
      expect(store.read((tx) => tx.get('queues', ['q1']))).toEqual({ n: 6 });
    } finally {
      await other.end();
      await store.close();
      await pgCluster.dropDatabase(url);
    }
  });

  test('two sessions making the same queue at once: the one that read its key as absent runs again and finds it', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    const a = openPostgresStore({ url, applicationName: 'index-a', timeouts: TIMEOUTS });
    const b = openPostgresStore({ url, applicationName: 'index-b', timeouts: TIMEOUTS });
    const key = ['acme', 'github.com', 'acme', 'widgets', 'main'];
    try {
      let runs = 0;
      const found = a.write((tx) => {
        runs += 1;
        const existing = tx.get('queueIndex', key);
        if (existing === undefined) {
          // Meanwhile the other session makes the same queue.
          if (runs === 1) b.write((other) => other.put('queueIndex', key, 'q_b'));
          tx.put('queueIndex', key, 'q_a');
        }
        return existing;
      });
      expect(runs).toBe(2);
      expect(found).toBe('q_b');
      expect(a.read((tx) => tx.get('queueIndex', key))).toBe('q_b');
    } finally {
      await a.close();
      await b.close();
      await pgCluster.dropDatabase(url);
    }
  });
});
