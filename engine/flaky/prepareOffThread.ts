/**
 * Runs `prepareUpload` on a worker thread, so that parsing a large upload (200,000 test cases take seconds and
 * hundreds of MB) never holds up other requests: the event loop only waits for the worker's message. Each upload
 * gets a fresh worker that ends with it, so its memory goes back to the system; at most `MAX_PARSING` run at once
 * and the others wait their turn (without blocking anything). An upload interrupted (the service shutting down) ends
 * its worker at once, wherever the parse is.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EngineError } from '../model/errors.js';
import type { AggregatedUpload, UploadedTest } from './aggregate.js';
import { checkTestCaseLimit } from './ingestLimits.js';
import { MAX_TEST_CASES_PER_UPLOAD, type PrepareInput } from './prepare.js';
import type { WorkerAnswer } from './prepareSlices.js';

const MAX_PARSING = Math.max(1, Math.min(4, availableParallelism() - 1));
let running = 0;
const waiting: (() => void)[] = [];

/**
 * The parser's worker thread for one upload. Compiled (dist/) the worker is the .js file beside this one. From the sources (tsx, vitest) it is the .ts file,
 * loaded after registering tsx's loader in the worker (a worker does not inherit its parent's loaders).
 */
export function startWorker(workerData: PrepareInput): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./prepareWorker.js', import.meta.url), { workerData });
  // tsx's ESM entry (require.resolve finds its CommonJS twin beside it).
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const source = new URL('./prepareWorker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

/**
 * Parses on a fresh worker, taking its aggregate a slice at a time (prepareWorker.ts); when `signal` aborts, the
 * worker is ended at once and the promise rejects with `abort()`.
 */
function runOnce(input: PrepareInput, signal: AbortSignal | undefined, abort: () => Error): Promise<AggregatedUpload> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(input);
    let answered = false;
    const answer = (settle: () => void) => {
      if (answered) return;
      answered = true;
      signal?.removeEventListener('abort', stop);
      settle();
      void worker.terminate();
    };
    const stop = () => answer(() => reject(abort()));
    signal?.addEventListener('abort', stop, { once: true });
    const tests = new Map<string, UploadedTest>();
    worker.on('message', (message: WorkerAnswer) => {
      if (!message.ok) {
        const { code } = message;
        answer(() => reject(code !== undefined ? new EngineError(code, message.message) : new Error(message.message)));
        return;
      }
      for (const [key, test] of message.tests) tests.set(key, test);
      if (message.totals !== undefined) {
        const totals = message.totals;
        answer(() => resolve({ tests, ...totals }));
      } else if (!answered) worker.postMessage('next');
    });
    worker.once('error', (error) => answer(() => reject(error)));
    worker.once('exit', (code) => answer(() => reject(new Error(`the upload parser stopped (exit code ${code})`))));
  });
}

/**
 * Parses the upload on a worker thread. `signal` (the service shutting down) stops it wherever it is: waiting for
 * its turn, or being parsed (the worker is terminated); it then rejects with `abort()`.
 */
export async function prepareOffThread(
  input: PrepareInput,
  signal?: AbortSignal,
  abort: () => Error = () => new Error('the upload was interrupted'),
): Promise<AggregatedUpload> {
  if (signal?.aborted === true) throw abort();
  // An oversize upload is refused now, from one pass over its text: not after waiting for a turn and a full parse.
  checkTestCaseLimit(input.reports, MAX_TEST_CASES_PER_UPLOAD);
  if (running >= MAX_PARSING) {
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const at = waiting.indexOf(turn);
        if (at >= 0) waiting.splice(at, 1);
        reject(abort());
      };
      waiting.push(turn);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }
  running += 1;
  try {
    return await runOnce(input, signal, abort);
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}
