/**
 * Leases are renewed on their own (engine/cluster/renewal.ts), not only as the first step of a lease round: a round
 * whose later work is held up (here its read of the queues, behind a table lock; in a busy process, behind the event
 * loop) no longer stops the renewals, so the process keeps driving its queues. Before, the held-up round held the
 * next renewals back, the lease ran out, and the process stopped counting as the driver of its own queues (a busy
 * process stopped merging while it went on taking submits: bench:postgres, docs/postgres.md).
 */
import { afterAll, expect, test } from 'vitest';
import pg from 'pg';
import { QueueLeases } from '../../engine/cluster/leases.js';
import { openPostgresStore } from '../../engine/store/postgresStore.js';
import { eventually } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL lease renewal test: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

test.skipIf(cluster === undefined)(
  'a round held up does not hold the renewals back: the lease stays held',
  async () => {
    const url = await (cluster as PgCluster).createDatabase();
    const store = openPostgresStore({ url });
    store.write((tx) => tx.put('queues', ['q1'], { id: 'q1' } as never));
    const leases = new QueueLeases({ url, store, leaseMs: 900, memberId: 'a' });
    const outside = new pg.Client({ connectionString: url });
    await outside.connect();
    try {
      await leases.start({
        acquired: () => undefined,
        lost: () => undefined,
        refresh: () => undefined,
        onError: () => undefined,
      });
      expect(leases.queues()).toEqual(['q1']);
      // The next rounds' read of the queues waits for this lock (up to the statement timeout, 10 s).
      await outside.query('BEGIN; LOCK TABLE greenline_kv IN ACCESS EXCLUSIVE MODE');
      await eventually(
        async () =>
          (
            await outside.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name LIKE 'greenline-leases-%'",
            )
          ).rows[0]?.n as number,
        (n) => n > 0,
      );
      const expiry = async () =>
        (
          await outside.query(
            "SELECT expires_at > clock_timestamp() AS live, expires_at FROM greenline_leases WHERE queue_id = 'q1'",
          )
        ).rows[0] as { live: boolean; expires_at: Date };
      // Progress: the lease's expiry moves on three times while the round waits — or it runs out (the old way).
      const seen = new Set<number>();
      const last = await eventually(expiry, (row) => {
        seen.add(row.expires_at.getTime());
        return !row.live || seen.size > 3;
      });
      expect(last.live).toBe(true);
      expect(leases.owns('q1')).toBe(true);
    } finally {
      await outside.query('ROLLBACK').catch(() => undefined);
      await outside.end();
      await leases.stop();
      await store.close();
      await (cluster as PgCluster).dropDatabase(url);
    }
  },
);
