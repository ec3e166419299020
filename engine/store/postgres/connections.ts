/**
 * The worker's two connections to PostgreSQL (reads, writes), opened on first use and dropped when they break, and
 * the state of each one's transaction: which is open, which scopes' locks the write connection holds.
 */
import pg from 'pg';
import type { Conn, WorkerSetup } from './protocol.js';

let setup: WorkerSetup;
/** The worker's setup (workerData), given once at start. */
export function configure(given: WorkerSetup): void {
  setup = given;
}

/**
 * The scopes whose lock the write connection's transaction holds: transaction locks, taken the first time it touches
 * the scope and let go when it ends (committed or rolled back).
 */
export const heldLocks = new Set<string>();

export const connections = new Map<Conn, pg.Client>();
/** Connections with a transaction open. One that broke lost it: its next request fails rather than run outside one. */
export const inTransaction = new Set<Conn>();
/**
 * The read connection begins its next transaction as it ends one (one round trip for both). A REPEATABLE READ
 * transaction takes its snapshot at its first query, not at BEGIN, so one begun early sees what commits meanwhile,
 * and holds nothing back while it waits.
 */
export const read = { begun: false };
export const BEGIN_READ = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** Forgets a connection (broken, or in an unknown state after a timeout); the next request opens a new one. */
export function drop(conn: Conn): void {
  const client = connections.get(conn);
  connections.delete(conn);
  inTransaction.delete(conn);
  if (conn === 'r') read.begun = false;
  // Closing the session releases its locks.
  else heldLocks.clear();
  // Not awaited: on a server that does not answer, a polite end would wait as long.
  if (client !== undefined) void client.end().catch(() => undefined);
}

export async function connection(conn: Conn): Promise<pg.Client> {
  const open = connections.get(conn);
  if (open !== undefined) return open;
  const { connectMs, statementMs, lockMs } = setup.timeouts;
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
    await client.query(
      `SET idle_in_transaction_session_timeout = '${conn === 'w' ? '5s' : '0'}'; SET statement_timeout = ${statementMs}; SET lock_timeout = ${lockMs}`,
    );
  } catch (error) {
    void client.end().catch(() => undefined);
    throw error;
  }
  connections.set(conn, client);
  return client;
}

/**
 * Marks the connection's transaction open (`start`) and says whether its request must begin it (a read transaction
 * begun early, as the last one ended, need not), or checks that the one its earlier requests opened is still there.
 */
export function begin(conn: Conn, start: boolean): boolean {
  if (!start) {
    if (!inTransaction.has(conn)) throw new Error('the connection to PostgreSQL was lost during the transaction');
    return false;
  }
  inTransaction.add(conn);
  if (conn === 'w') return true;
  const needed = !read.begun;
  read.begun = false;
  return needed;
}
