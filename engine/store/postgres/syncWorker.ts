/**
 * Synchronous calls into the store's worker thread: post a request on a MessagePort, then block the calling thread
 * with Atomics.wait on a shared counter that the worker bumps after posting each answer, and take the answer with
 * receiveMessageOnPort (the technique of the `synckit` package, kept here so that requests may also be posted without
 * waiting: a read transaction's end costs no round trip).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { MessagePort, TransferListItem } from 'node:worker_threads';
import type { Answer, Request, Timeouts, WorkerSetup } from './protocol.js';

/** Compiled, the worker is the .js file beside this one; from the sources (tsx, vitest) it is loaded through tsx. */
function startWorker(workerData: WorkerSetup, transferList: MessagePort[]): Worker {
  const options = { workerData, transferList: transferList as TransferListItem[] };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), options);
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const source = new URL('./worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(boot, { eval: true, ...options });
}

export class RemoteError extends Error {
  constructor(
    name: string,
    message: string,
    readonly code?: string,
    /** The database could not be reached or did not answer in time. */
    readonly unavailable = false,
  ) {
    super(message);
    this.name = name;
  }
}

export class SyncWorker {
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private serial = 0;
  /** The scope versions the last answer gave (protocol.ts: Answer). */
  versions: Record<string, number> | undefined;
  private exited = false;
  /**
   * The longest a call waits: a request may open a connection, wait for the write lock and run a statement, each
   * bounded by the worker; past all of them (a worker stuck behind a silent server) the call gives up by itself.
   */
  private readonly timeoutMs: number;

  constructor(url: string, applicationName: string, timeouts: Timeouts) {
    this.timeoutMs = 2 * timeouts.connectMs + timeouts.lockMs + timeouts.statementMs + 2_000;
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.worker = startWorker(
      { url, signal: this.signal.buffer as SharedArrayBuffer, port: channel.port2, applicationName, timeouts },
      [channel.port2],
    );
    this.worker.unref();
    this.worker.on('exit', () => (this.exited = true));
    this.worker.on('error', () => (this.exited = true));
  }

  /** Sends a request and blocks until its answer; a failure in the worker is thrown here as a RemoteError. */
  call(request: Request): unknown {
    if (this.exited) throw new Error('the PostgreSQL store worker has stopped');
    const id = ++this.serial;
    this.port.postMessage({ id, request });
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.signal, 0);
      const received = receiveMessageOnPort(this.port) as { message: { id: number; answer: Answer } } | undefined;
      if (received !== undefined) {
        if (received.message.id !== id) continue; // an answer nobody waits for any more
        const answer = received.message.answer;
        this.versions = answer.ok ? answer.versions : undefined;
        if (answer.ok) return answer.value;
        throw new RemoteError(answer.name, answer.message, answer.code, answer.unavailable === true);
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new RemoteError(
          'Error',
          `the PostgreSQL store did not answer within ${this.timeoutMs} ms`,
          undefined,
          true,
        );
      Atomics.wait(this.signal, 0, seen, Math.min(left, 1000));
    }
  }

  /** Sends a request without waiting (it gets no answer); the worker handles it before the next one. */
  post(request: Request): void {
    if (!this.exited) this.port.postMessage({ id: ++this.serial, request });
  }

  async close(): Promise<void> {
    try {
      this.call({ op: 'close' });
    } finally {
      this.port.close();
      await this.worker.terminate();
    }
  }
}
