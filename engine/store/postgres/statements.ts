/**
 * What the worker does for each request (protocol.ts), each in one round trip to PostgreSQL: the statements of a
 * request go as one simple-protocol query, their values written as literals (sql.ts). A read that opens its
 * transaction begins it in the same query; a write transaction's first read of a scope takes the scope's lock
 * (pg_try_advisory_xact_lock, let go when the transaction ends) and reads the scope's version in the same query too.
 * A commit sends its checks (keys read as absent, the fencing tokens: refused by greenline_raise), its changes, the
 * version bump of each scope it wrote, its notices (which carry the new versions) and COMMIT as one query.
 */
import type pg from 'pg';
import { COMMIT_CHANNEL } from './commitNotices.js';
import { QUEUE_BUSY, type Range, type Request } from './protocol.js';
import { BEGIN_READ, begin, connection, connections, heldLocks, inTransaction, read } from './connections.js';
import { array, bytea, LEASE_LOST, lockKey, text } from './sql.js';
import { KEPT_STALE, STALE_READ } from './queueScope.js';
import { isUnavailable } from './unavailable.js';

/** A scope's lock held by another transaction (the main thread's QueueBusyError); the message names the scope. */
class QueueBusy extends Error {
  override name = 'QueueBusyError';
  readonly code = QUEUE_BUSY;
}

/** The versions of the scopes the last request locked or wrote (the main thread's cache: scopeCache.ts). */
let versions: Record<string, number> | undefined;
export function takeVersions(): Record<string, number> | undefined {
  const taken = versions;
  versions = undefined;
  return taken;
}

type Results = pg.QueryResult[];

async function run(client: pg.Client, statements: string[]): Promise<Results> {
  const results = (await client.query(statements.join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
  return Array.isArray(results) ? results : [results];
}

/**
 * The statement reading the versions of these scopes (after their locks: a statement of its own sees the latest): -1
 * for each while a live member of the cluster does not bump them (a process of an earlier build, during an upgrade:
 * schema.ts migration 3), so that no process trusts what it kept of a scope (scopeCache.ts).
 */
const versionsOf = (scopes: readonly string[]): string =>
  `SELECT s.scope, CASE WHEN EXISTS (SELECT 1 FROM greenline_members WHERE expires_at > clock_timestamp() AND cache_versions IS NOT TRUE)
     THEN '-1' ELSE coalesce(v.v, 0)::text END AS v
   FROM unnest(${array(scopes.map(text), 'text')}) AS s(scope) LEFT JOIN greenline_scope_versions v ON v.scope = s.scope`;

function keepVersions(result: pg.QueryResult | undefined): void {
  versions ??= {};
  // versionsOf and a commit's bumps answer a row for every scope (0 for one never written): nothing is defaulted.
  for (const row of result?.rows ?? []) versions[String(row.scope)] = Number(row.v);
}

/**
 * Runs a request's statement, first beginning its transaction (`prefix`) and, in a write transaction, taking the
 * locks of `locks` not held yet. A lock held by another transaction is waited for at most `waitMs` (the main thread
 * waits meanwhile) server side (lock_timeout), then answered QueueBusy: the process is never blocked for long behind
 * a transaction of another process (a stuck or paused one), so other queues go on. Returns the statement's result.
 */
async function withLocks(
  client: pg.Client,
  prefix: string[],
  statement: string | undefined,
  locks: readonly string[],
  waitMs: number,
  lockMs: number,
): Promise<pg.QueryResult | undefined> {
  const wanted = locks.filter((scope) => !heldLocks.has(scope));
  if (wanted.length === 0) {
    const results = await run(client, [...prefix, ...(statement === undefined ? [] : [statement])]);
    return statement === undefined ? undefined : results.at(-1);
  }
  const tries = wanted.map((scope) => `SELECT pg_try_advisory_xact_lock(${lockKey(scope)}) AS got`);
  const statements = [...prefix, ...tries, versionsOf(wanted), ...(statement === undefined ? [] : [statement])];
  let results = await run(client, statements);
  const first = prefix.length;
  let got = wanted.every((_, i) => results[first + i]?.rows[0]?.got === true);
  let versionAt = first + wanted.length;
  if (!got && waitMs > 0) {
    // Waited for server side, in order (sorted by the caller when several), the statement run again after them.
    const waits = wanted.map((scope) => `SELECT pg_advisory_xact_lock(${lockKey(scope)})`);
    const again = [
      `SET LOCAL lock_timeout = ${Math.max(1, Math.round(waitMs))}`,
      ...waits,
      `SET LOCAL lock_timeout = ${lockMs}`,
      versionsOf(wanted),
    ];
    try {
      results = await run(client, [...again, ...(statement === undefined ? [] : [statement])]);
    } catch (error) {
      if ((error as { code?: string }).code !== '55P03') throw error;
      throw new QueueBusy(`the lock of ${wanted.join(', ')} is held by another transaction (scope ${wanted[0]})`);
    }
    got = true;
    versionAt = 1 + wanted.length + 1;
  }
  if (!got) {
    const scope = wanted.find((_, i) => results[first + i]?.rows[0]?.got !== true) ?? wanted[0];
    throw new QueueBusy(`the lock of ${scope} is held by another transaction (scope ${scope})`);
  }
  for (const scope of wanted) heldLocks.add(scope);
  keepVersions(results[versionAt]);
  return statement === undefined ? undefined : results.at(-1);
}

/** The WHERE clause of a range within a collection. */
function where(coll: string, range: Range): string {
  let sql = `coll = ${text(coll)}`;
  if (range.lower !== undefined) sql += ` AND k >= ${bytea(range.lower)}`;
  if (range.upper !== undefined) sql += ` AND k < ${bytea(range.upper)}`;
  return sql;
}

function readStatement(request: Extract<Request, { op: 'get' | 'scan' | 'count' | 'exist' }>): string {
  switch (request.op) {
    case 'get':
      return `SELECT v::text AS v FROM greenline_kv WHERE coll = ${text(request.coll)} AND k = ${bytea(request.key)}`;
    case 'exist':
      return `SELECT k FROM greenline_kv WHERE coll = ${text(request.coll)} AND k = ANY(${array(request.keys.map(bytea), 'bytea')})`;
    case 'count':
      return `SELECT count(*)::int AS n FROM greenline_kv WHERE ${where(request.coll, request.range)}`;
    case 'scan':
      return `SELECT k, v::text AS v FROM greenline_kv WHERE ${where(request.coll, request.range)} ORDER BY k ${request.reverse ? 'DESC' : 'ASC'}${request.limit === undefined ? '' : ` LIMIT ${Math.floor(request.limit)}`}`;
  }
}

/** The statements that begin the connection's transaction (`start`), or check that its earlier requests opened one. */
function opening(conn: 'r' | 'w', start: boolean): string[] {
  return begin(conn, start) ? [conn === 'r' ? BEGIN_READ : 'BEGIN'] : [];
}

export async function handle(request: Request, lockMs: number): Promise<unknown> {
  switch (request.op) {
    case 'get':
    case 'scan':
    case 'count':
    case 'exist': {
      const client = await connection(request.conn);
      const prefix = opening(request.conn, request.begin);
      const locks = request.conn === 'w' ? (request.locks ?? []) : [];
      const result = await withLocks(client, prefix, readStatement(request), locks, request.waitMs ?? 0, lockMs);
      const rows = result?.rows ?? [];
      if (request.op === 'get') return rows[0]?.v;
      if (request.op === 'exist') return rows.map((row) => row.k as Buffer);
      if (request.op === 'count') return rows[0]?.n ?? 0;
      return rows;
    }
    case 'versions': {
      const client = await connection('r');
      const results = await run(client, [...opening('r', request.begin), versionsOf(request.scopes)]);
      return results.at(-1)?.rows.map((row) => [String(row.scope), Number(row.v)]) ?? [];
    }
    case 'commit': {
      const client = await connection('w');
      try {
        let prefix = opening('w', request.begin);
        // Scopes written without a read first: their locks, before anything else (waited for as a read's are).
        if ((request.locks ?? []).some((scope) => !heldLocks.has(scope))) {
          await withLocks(client, prefix, undefined, request.locks ?? [], request.waitMs ?? 0, lockMs);
          prefix = [];
        }
        const results = await run(client, [...prefix, ...commitStatements(request)]);
        if (request.scopes.length > 0) keepVersions(results.at(-2));
        return undefined;
      } catch (error) {
        // A connection that failed is dropped (which ends its transaction): a ROLLBACK would wait on it again.
        if (!isUnavailable(error)) await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        inTransaction.delete('w');
        heldLocks.clear();
      }
    }
    case 'end': {
      const client = connections.get(request.conn);
      const open = inTransaction.delete(request.conn);
      if (request.conn === 'w') heldLocks.clear();
      if (client === undefined || !open) return undefined;
      if (request.conn === 'w') await client.query('ROLLBACK');
      else {
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

/** A commit's statements after its locks: checks, changes, version bumps with the notices, COMMIT. */
function commitStatements(request: Extract<Request, { op: 'commit' }>): string[] {
  const statements: string[] = [];
  // Keys the transaction read as absent (before it held their scope) and now puts: still absent, or it runs again.
  const absent = request.absent ?? [];
  if (absent.length > 0) {
    const message = text('a key the transaction read as absent was written meanwhile; it runs again');
    statements.push(
      `SELECT greenline_raise('${STALE_READ}', ${message}) FROM greenline_kv WHERE coll = ${text(absent[0]?.coll ?? '')} AND k = ANY(${array(
        absent.map((entry) => bytea(entry.key)),
        'bytea',
      )}) LIMIT 1`,
    );
  }
  // Values the transaction took from what its process kept: the database holds them still, or it runs again.
  const expect = request.expect ?? [];
  if (expect.length > 0) {
    const message = text('a value the transaction read from memory was changed; it runs again');
    statements.push(
      `SELECT greenline_raise('${KEPT_STALE}', ${message}) FROM unnest(${array(
        expect.map((entry) => text(entry.coll)),
        'text',
      )}, ${array(
        expect.map((entry) => bytea(entry.key)),
        'bytea',
      )}, ${array(
        expect.map((entry) => (entry.json === null ? 'NULL' : text(entry.json))),
        'text',
      )}) AS e(coll, k, v)
       WHERE (SELECT g.v::text FROM greenline_kv g WHERE g.coll = e.coll AND g.k = e.k) IS DISTINCT FROM e.v LIMIT 1`,
    );
  }
  for (const fence of request.fences) {
    const held = `SELECT 1 FROM greenline_leases WHERE queue_id = ${text(fence.queueId)} AND token = ${text(fence.token)}::bigint AND expires_at > clock_timestamp() FOR SHARE`;
    statements.push(
      `SELECT greenline_raise('${LEASE_LOST}', ${text(`this process no longer holds the lease of queue ${fence.queueId}`)}) WHERE NOT EXISTS (${held})`,
    );
  }
  const { puts, removes } = request;
  // Removals and puts name different keys (one change per key), so one statement does both.
  statements.push(
    `WITH removed AS (DELETE FROM greenline_kv WHERE (coll, k) IN (SELECT * FROM unnest(${array(
      removes.map((r) => text(r.coll)),
      'text',
    )}, ${array(
      removes.map((r) => bytea(r.key)),
      'bytea',
    )})))
     INSERT INTO greenline_kv (coll, k, v) SELECT * FROM unnest(${array(
       puts.map((p) => text(p.coll)),
       'text',
     )}, ${array(
       puts.map((p) => bytea(p.key)),
       'bytea',
     )}, ${array(
       puts.map((p) => text(p.json)),
       'json',
     )})
     ON CONFLICT (coll, k) DO UPDATE SET v = EXCLUDED.v`,
  );
  if (request.scopes.length > 0) {
    // Each scope written is a version further; its notice (delivered once the commit is visible) says which.
    const notices =
      request.notify.length === 0
        ? '(SELECT NULL::text AS scope, NULL::text AS prefix)'
        : `(VALUES ${request.notify.map((n) => `(${text(n.scope)}, ${text(n.prefix)})`).join(', ')})`;
    statements.push(
      `WITH bumped AS (INSERT INTO greenline_scope_versions AS s (scope, v) SELECT unnest(${array(request.scopes.map(text), 'text')}), 1
         ON CONFLICT (scope) DO UPDATE SET v = s.v + 1 RETURNING scope, v)
       SELECT b.scope, b.v::text AS v, CASE WHEN n.prefix IS NULL THEN NULL ELSE pg_notify('${COMMIT_CHANNEL}', n.prefix || b.v || '}') END AS sent
       FROM bumped b LEFT JOIN ${notices} AS n(scope, prefix) ON n.scope = b.scope`,
    );
  }
  statements.push('COMMIT');
  return statements;
}
