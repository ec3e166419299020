/**
 * What the worker does for each request (protocol.ts): reads on either connection, a write transaction's commit (its
 * changes, the fencing tokens checked, the commit notices, in one round trip), the end of a transaction, the stats.
 */
import type pg from 'pg';
import { SCOPE_LOCK_KEY } from './schema.js';
import { STALE_READ } from './queueScope.js';
import { COMMIT_CHANNEL } from './commitNotices.js';
import { isUnavailable } from './unavailable.js';
import { QUEUE_BUSY, type Range, type Request } from './protocol.js';
import { BEGIN_READ, begin, connection, connections, heldLocks, inTransaction, read } from './connections.js';

/** A write refused because this process no longer holds the queue's lease. */
class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

/** A write transaction to run again (queueScope.ts: RETRYABLE_CODES): what it read as absent is there now. */
class StaleReadError extends Error {
  override name = 'StaleReadError';
  readonly code = STALE_READ;
}

/** A scope's lock held by another transaction (the main thread's QueueBusyError); the message names the scope. */
class QueueBusy extends Error {
  override name = 'QueueBusyError';
  readonly code = QUEUE_BUSY;
}

/**
 * Takes the locks of these scopes for the rest of the write transaction. One held by another transaction is tried
 * again for at most `waitMs` (the main thread waits meanwhile), then answered QueueBusy: the process is never blocked
 * for long behind a transaction of another process (a stuck or paused one), so other queues go on.
 */
async function lockQueues(client: pg.Client, locks: readonly string[] | undefined, waitMs = 0): Promise<void> {
  for (const scope of locks ?? []) {
    if (heldLocks.has(scope)) continue;
    const until = performance.now() + waitMs;
    for (let pause = 1; ; pause = Math.min(2 * pause, 16)) {
      const { rows } = await client.query(`SELECT pg_try_advisory_lock(${SCOPE_LOCK_KEY}) AS got`, [scope]);
      if (rows[0]?.got === true) break;
      if (performance.now() + pause > until) throw new QueueBusy(`the lock of ${scope} is held by another transaction (scope ${scope})`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
    heldLocks.add(scope);
  }
}

/** The WHERE clause of a range within a collection ($1 is the collection). */
function where(range: Range, params: unknown[]): string {
  let sql = 'coll = $1';
  if (range.lower !== undefined) sql += ` AND k >= $${params.push(Buffer.from(range.lower))}`;
  if (range.upper !== undefined) sql += ` AND k < $${params.push(Buffer.from(range.upper))}`;
  return sql;
}

export async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'get':
    case 'scan':
    case 'count':
    case 'exist': {
      const client = await connection(request.conn);
      await begin(client, request.conn, request.begin);
      if (request.conn === 'w') await lockQueues(client, request.locks, request.waitMs);
      const params: unknown[] = [request.coll];
      if (request.op === 'get') {
        const { rows } = await client.query('SELECT v::text AS v FROM greenline_kv WHERE coll = $1 AND k = $2', [request.coll, Buffer.from(request.key)]);
        return rows[0]?.v;
      }
      if (request.op === 'exist') {
        params.push(request.keys.map((key) => Buffer.from(key)));
        const { rows } = await client.query('SELECT k FROM greenline_kv WHERE coll = $1 AND k = ANY($2::bytea[])', params);
        return rows.map((row) => row.k as Buffer);
      }
      if (request.op === 'count') {
        const { rows } = await client.query(`SELECT count(*)::int AS n FROM greenline_kv WHERE ${where(request.range, params)}`, params);
        return rows[0]?.n ?? 0;
      }
      let sql = `SELECT k, v::text AS v FROM greenline_kv WHERE ${where(request.range, params)} ORDER BY k ${request.reverse ? 'DESC' : 'ASC'}`;
      if (request.limit !== undefined) sql += ` LIMIT $${params.push(request.limit)}`;
      const { rows } = await client.query(sql, params);
      return rows;
    }
    case 'commit': {
      const client = await connection('w');
      try {
        await begin(client, 'w', request.begin);
        await lockQueues(client, request.locks, request.waitMs);
        // Keys the transaction read as absent (before it held their scope) and now puts: still absent, or it runs again.
        if (request.absent !== undefined && request.absent.length > 0) {
          const { rows } = await client.query('SELECT 1 FROM greenline_kv WHERE coll = $1 AND k = ANY($2::bytea[]) LIMIT 1', [
            request.absent[0]?.coll,
            request.absent.map((entry) => Buffer.from(entry.key)),
          ]);
          if (rows.length > 0) throw new StaleReadError('a key the transaction read as absent was written meanwhile; it runs again');
        }
        for (const fence of request.fences) {
          const { rows } = await client.query('SELECT 1 FROM greenline_leases WHERE queue_id = $1 AND token = $2 AND expires_at > clock_timestamp() FOR SHARE', [
            fence.queueId,
            fence.token,
          ]);
          if (rows.length === 0) throw new LeaseLostError(`this process no longer holds the lease of queue ${fence.queueId}`);
        }
        // Removals and puts name different keys (one change per key), so one statement does both.
        await client.query(
          `WITH removed AS (DELETE FROM greenline_kv WHERE (coll, k) IN (SELECT * FROM unnest($1::text[], $2::bytea[])))
           INSERT INTO greenline_kv (coll, k, v) SELECT * FROM unnest($3::text[], $4::bytea[], $5::json[])
           ON CONFLICT (coll, k) DO UPDATE SET v = EXCLUDED.v`,
          [
            request.removes.map((r) => r.coll),
            request.removes.map((r) => Buffer.from(r.key)),
            request.puts.map((p) => p.coll),
            request.puts.map((p) => Buffer.from(p.key)),
            request.puts.map((p) => p.json),
          ],
        );
        // One round trip: the notices of the commit (delivered once it is visible), the commit, and the locks let go after it.
        const notices = request.notify.map((payload) => `SELECT pg_notify('${COMMIT_CHANNEL}', ${client.escapeLiteral(payload)}); `).join('');
        if (heldLocks.size === 0) await client.query(`${notices}COMMIT`);
        else {
          heldLocks.clear();
          await client.query(`${notices}COMMIT; SELECT pg_advisory_unlock_all()`);
        }
      } catch (error) {
        // A connection that failed is dropped (which ends its transaction): a ROLLBACK would wait on it again.
        if (!isUnavailable(error)) {
          heldLocks.clear();
          await client.query('ROLLBACK; SELECT pg_advisory_unlock_all()').catch(() => undefined);
        }
        throw error;
      } finally {
        inTransaction.delete('w');
      }
      return undefined;
    }
    case 'end': {
      const client = connections.get(request.conn);
      const open = inTransaction.delete(request.conn);
      if (client === undefined || (!open && (request.conn === 'r' || heldLocks.size === 0))) return undefined;
      if (request.conn === 'w') {
        if (heldLocks.size === 0) await client.query('ROLLBACK');
        else {
          heldLocks.clear();
          await client.query(open ? 'ROLLBACK; SELECT pg_advisory_unlock_all()' : 'SELECT pg_advisory_unlock_all()');
        }
      } else {
        await client.query(`COMMIT; ${BEGIN_READ}`);
        read.begun = true;
      }
      return undefined;
    }
    case 'stats': {
      const client = await connection('r');
      const { rows } = await client.query('SELECT coll, count(*)::int AS n FROM greenline_kv GROUP BY coll');
      // The database's size: Greenline expects a database of its own (docs/postgres.md).
      const size = await client.query('SELECT pg_database_size(current_database())::bigint AS bytes');
      return { counts: rows, bytes: Number(size.rows[0]?.bytes ?? 0) };
    }
    case 'close': {
      for (const client of connections.values()) await client.end().catch(() => undefined);
      connections.clear();
      return undefined;
    }
  }
}
