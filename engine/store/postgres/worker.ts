/**
 * The worker thread of the PostgreSQL store: it owns two `pg` connections (reads, writes), takes one request at a
 * time from the main thread in order, and after posting each answer bumps the shared counter the main thread waits
 * on with Atomics.wait (the technique of `synckit`). Each request is one round trip to PostgreSQL (statements.ts): a
 * read transaction is a REPEATABLE READ snapshot; a write (READ COMMITTED) takes the lock of each scope it touches —
 * a queue, a flaky-test repository, the tokens… (queueScope.ts) — with its first statement on it, so every read of
 * the scope after that sees its latest commit and the inputs of one queue are serialised, while writes of other
 * queues, in this process or any other, commit at the same time. A write's changes arrive as one `commit` request,
 * checked against the queue leases (fencing tokens) inside the same transaction. Answers carry the scope versions
 * the request read or made (the main thread's cache: scopeCache.ts).
 */
import { workerData } from 'node:worker_threads';
import { migrate } from './schema.js';
import { isUnavailable } from './unavailable.js';
import type { Answer, Request, WorkerSetup } from './protocol.js';
import { configure, connection, drop } from './connections.js';
import { handle, takeVersions } from './statements.js';
import { LEASE_LOST } from './sql.js';

const setup = workerData as WorkerSetup;
configure(setup);
const signal = new Int32Array(setup.signal);
const port = setup.port;

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
      takeVersions();
      const value = await handle(request, setup.timeouts.lockMs);
      const versions = takeVersions();
      result = { ok: true, value, ...(versions === undefined ? {} : { versions }) };
    } catch (error) {
      const e = error as { name?: string; message?: string; code?: string };
      const unavailable = isUnavailable(error);
      if (unavailable && request.op !== 'close')
        drop(request.op === 'commit' ? 'w' : 'conn' in request ? request.conn : 'r');
      result = {
        ok: false,
        name: e.code === LEASE_LOST ? 'LeaseLostError' : (e.name ?? 'Error'),
        message: e.message ?? String(error),
        ...(e.code === undefined ? {} : { code: e.code }),
        ...(unavailable ? { unavailable: true } : {}),
      };
    }
    // An `end` gets no answer: the main thread does not wait for it (a failure shows at the next request).
    if (request.op !== 'end') answer({ id, answer: result });
  });
});
