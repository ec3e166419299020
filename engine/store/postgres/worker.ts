/**
 * The worker thread of the PostgreSQL store: it owns two `pg` connections (reads, writes), takes one request at a
 * time from the main thread in order, and after posting each answer bumps the shared counter the main thread waits
 * on with Atomics.wait (the technique of `synckit`). A request marked `begin` opens its connection's transaction
 * first: a read is a REPEATABLE READ snapshot; a write (READ COMMITTED) takes the lock of each scope it touches —
 * a queue, a flaky-test repository, the tokens… (queueScope.ts) — before its first statement on it, so every read
 * of the scope after that sees its latest commit and the inputs of one queue are serialised, while writes of other
 * queues, in this process or any other, commit at the same time. A write's changes arrive as one `commit` request:
 * one round trip, checked against the queue leases (fencing tokens) inside the same transaction.
 */
import { workerData } from 'node:worker_threads';
import pg from 'pg';
import { migrate, SCOPE_LOCK_KEY } from './schema.js';
import { STALE_READ } from './queueScope.js';
import { COMMIT_CHANNEL } from './commitNotices.js';
import { isUnavailable } from './unavailable.js';
import { QUEUE_BUSY, type Answer, type Conn, type Range, type Request, type WorkerSetup } from './protocol.js';

const setup = workerData as WorkerSetup;
const signal = new Int32Array(setup.signal);
const port = setup.port;

/** A write refused because this process no longer holds the queue's lease. */
class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

/** A write transaction to run again (queueScope.ts: RETRYABLE_CODES): what it read as absent is there now. */
class StaleReadError extends Error {
  override name = 'StaleReadError';
  readonly code = STALE_READ;
}

/**
 * The scopes whose lock the write connection holds: session locks, taken the first time a write transaction touches
 * the scope and released when it ends (committed or rolled back).
 */
const heldLocks = new Set<string>();

const connections = new Map<Conn, pg.Client>();
/** Connections with a transaction open. One that broke lost it: its next request fails rather than run outside one. */
const inTransaction = new Set<Conn>();
/**
 * The read connection begins its next transaction as it ends one (one round trip for both). A REPEATABLE READ
 * transaction takes its snapshot at its first query, not at BEGIN, so one begun early sees what commits meanwhile,
 * and holds nothing back while it waits.
 */
let readBegun = false;
const BEGIN_READ = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';
const { connectMs, statementMs, lockMs } = setup.timeouts;

/** Forgets a connection (broken, or in an unknown state after a timeout); the next request opens a new one. */
function drop(conn: Conn): void {
  const client = connections.get(conn);
  connections.delete(conn);
  inTransaction.delete(conn);
  if (conn === 'r') readBegun = false;
  // Closing the session releases its locks.
  else heldLocks.clear();
  // Not awaited: on a server that does not answer, a polite end would wait as long.
  if (client !== undefined) void client.end().catch(() => undefined);
}

async function connection(conn: Conn): Promise<pg.Client> {
  const open = connections.get(conn);
  if (open !== undefined) return open;
  const client = new pg.Client({
    connectionString: setup.url,
    application_name: `${setup.applicationName}:${conn}`,
    connectionTimeoutMillis: connectMs,
    // A server that stops answering mid-query (paused, or the network gone) is given up on client side too.
    query_timeout: statementMs + connectMs,
    keepAlive: true,
  });
  // A connection that breaks is dropped; the next request opens a new one.
  client.on('error', () => {
    if (connections.get(conn) === client) drop(conn);
  });
  try {
    await client.connect();
    // A write transaction left open (a paused or stuck process) must not hold the write lock for ever. (The read
    // connection waits in a begun transaction between reads; that holds nothing.)
    await client.query(`SET idle_in_transaction_session_timeout = '${conn === 'w' ? '5s' : '0'}'; SET statement_timeout = ${statementMs}; SET lock_timeout = ${lockMs}`);
  } catch (error) {
    void client.end().catch(() => undefined);
    throw error;
  }
  connections.set(conn, client);
  return client;
}

/** Opens the connection's transaction (`start`), or checks that the one its earlier requests opened is still there. */
async function begin(client: pg.Client, conn: Conn, start: boolean): Promise<void> {
  if (!start) {
    if (!inTransaction.has(conn)) throw new Error('the connection to PostgreSQL was lost during the transaction');
    return;
  }
  if (conn === 'r') {
    if (!readBegun) await client.query(BEGIN_READ);
    readBegun = false;
  } else {
    await client.query('BEGIN');
  }
  inTransaction.add(conn);
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

async function handle(request: Request): Promise<unknown> {
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
        readBegun = true;
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

function answer(message: { id: number; answer: Answer }): void {
  port.postMessage(message);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

/**
 * The schema is brought up to date before the first request; when the database cannot be reached, again at the next
 * request (a process started during an outage recovers with it). Another failure (a newer schema) is for good.
 */
let migrated = false;
let schemaError: unknown;
async function ready(): Promise<void> {
  if (schemaError !== undefined) throw schemaError;
  if (migrated) return;
  try {
    await migrate(await connection('w'));
    migrated = true;
  } catch (error) {
    if (isUnavailable(error)) drop('w');
    else schemaError = error;
    throw error;
  }
}

// Requests are handled strictly in order: each waits for the one before it.
let chain: Promise<void> = ready().catch(() => undefined);

port.on('message', ({ id, request }: { id: number; request: Request }) => {
  chain = chain.then(async () => {
    let result: Answer;
    try {
      if (request.op !== 'close' && request.op !== 'end') await ready();
      result = { ok: true, value: await handle(request) };
    } catch (error) {
      const e = error as { name?: string; message?: string; code?: string };
      const unavailable = isUnavailable(error);
      if (unavailable && request.op !== 'close') drop(request.op === 'commit' ? 'w' : 'conn' in request ? request.conn : 'r');
      result = {
        ok: false,
        name: e.name ?? 'Error',
        message: e.message ?? String(error),
        ...(e.code === undefined ? {} : { code: e.code }),
        ...(unavailable ? { unavailable: true } : {}),
      };
    }
    // An `end` gets no answer: the main thread does not wait for it (a failure shows at the next request).
    if (request.op !== 'end') answer({ id, answer: result });
  });
});
