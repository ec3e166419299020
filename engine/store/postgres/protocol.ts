/** The messages between the PostgreSQL store (main thread) and its worker thread, which runs the `pg` client. */
import type { MessagePort } from 'node:worker_threads';

/** Which of the worker's two connections: reads (repeatable-read snapshots) or writes (serialised transactions). */
export type Conn = 'r' | 'w';

export interface Range {
  lower?: Uint8Array;
  upper?: Uint8Array;
}

export interface Fence {
  queueId: string;
  token: string;
}

/**
 * `locks`: in a write transaction, scopes (queueScope.ts) whose lock to take, in this order, before the statement:
 * the first time the transaction touches each (worker.ts). `waitMs`: how long to wait for one held by another
 * transaction before answering QueueBusy (the main thread is blocked meanwhile); 0: only try.
 */
export type Request =
  | { op: 'get'; conn: Conn; begin: boolean; coll: string; key: Uint8Array; locks?: string[]; waitMs?: number }
  | {
      op: 'scan';
      conn: Conn;
      begin: boolean;
      coll: string;
      range: Range;
      reverse: boolean;
      limit?: number;
      locks?: string[];
      waitMs?: number;
    }
  | { op: 'count'; conn: Conn; begin: boolean; coll: string; range: Range; locks?: string[]; waitMs?: number }
  /** Which of `keys` exist in the collection (a write transaction's count needs it). */
  | { op: 'exist'; conn: Conn; begin: boolean; coll: string; keys: Uint8Array[]; locks?: string[]; waitMs?: number }
  | {
      op: 'commit';
      begin: boolean;
      locks?: string[];
      waitMs?: number;
      /** Keys of one collection read as absent before their scope was locked, and put: checked absent still. */
      absent?: { coll: string; key: Uint8Array }[];
      /** Values read from what the process kept (unlockedCache.ts; json null: absent): checked unchanged. */
      expect?: { coll: string; key: Uint8Array; json: string | null }[];
      puts: { coll: string; key: Uint8Array; json: string }[];
      removes: { coll: string; key: Uint8Array }[];
      fences: Fence[];
      /** The lock scopes the commit writes: each is a version further (the answer's `versions`). */
      scopes: string[];
      /** Notices on greenline_commit with the commit: each payload is `prefix`, the scope's new version and `}` (commitNotices.ts). */
      notify: { scope: string; prefix: string }[];
    }
  /** The versions of these scopes (postgres/heardVersions.ts), in the read connection's transaction. */
  | { op: 'versions'; conn: 'r'; begin: boolean; scopes: string[] }
  /** Ends the connection's transaction (read: commit; write: rollback, and its locks let go). No answer. */
  | { op: 'end'; conn: Conn }
  | { op: 'stats' }
  | { op: 'close' };

/** `unavailable`: the database could not be reached or did not answer in time (worker.ts: isUnavailable). */
/** `versions`: of the scopes the request locked (their version then) or committed (their new version). */
export type Answer =
  | { ok: true; value: unknown; versions?: Record<string, number> }
  | { ok: false; name: string; message: string; code?: string; unavailable?: boolean };

/**
 * The bounds on every wait for the database, so that a request on a store that is down or stuck ends in a 503 well
 * within a client's patience. The main thread blocks while it waits (the Store interface is synchronous), so they
 * bound how long the process stops answering, too.
 */
export interface Timeouts {
  /** Opening a connection (TCP and authentication). */
  connectMs: number;
  /** One statement, server side (statement_timeout); the client gives up `connectMs` later on a silent server. */
  statementMs: number;
  /**
   * Waiting for a lock (lock_timeout): a table locked by hand. For a scope's lock (a queue), the longest a request
   * waits for it in all (api/trpc.ts runs it again meanwhile, without blocking) before a 503.
   */
  lockMs: number;
  /** Waiting for a scope's lock while the process is blocked, before answering QueueBusy (not again while it is). */
  busyWaitMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 3_000, statementMs: 10_000, lockMs: 5_000, busyWaitMs: 50 };

/** The worker's code for a scope's lock held by another transaction (QueueBusyError). */
export const QUEUE_BUSY = 'GL002';

export interface WorkerSetup {
  url: string;
  /** Int32Array over a SharedArrayBuffer: [0] counts the answers posted, for Atomics.wait. */
  signal: SharedArrayBuffer;
  port: MessagePort;
  /** The pool's application_name, to tell processes apart in pg_stat_activity. */
  applicationName: string;
  timeouts: Timeouts;
}

/** The row a scan returns: the encoded key and the value's JSON text. */
export interface Row {
  k: Uint8Array;
  v: string;
}
