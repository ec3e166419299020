/**
 * Runs `prepareUpload` on a worker thread, so that parsing a large upload (200,000 test cases take seconds and
 * hundreds of MB) never holds up other requests: the event loop only waits for the worker's message. Each upload
 * gets a fresh worker that ends with it, so its memory goes back to the system; at most `MAX_PARSING` run at once
 * and the others wait their turn (without blocking anything).
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EngineError, type EngineErrorCode } from '../model/errors.js';
import type { AggregatedUpload } from './aggregate.js';
import type { PrepareInput } from './prepare.js';

const MAX_PARSING = Math.max(1, Math.min(4, availableParallelism() - 1));
let running = 0;
const waiting: (() => void)[] = [];

/**
 * Compiled (dist/) the worker is the .js file beside this one. From the sources (tsx, vitest) it is the .ts file,
 * loaded after registering tsx's loader in the worker (a worker does not inherit its parent's loaders).
 */
function startWorker(workerData: PrepareInput): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./prepareWorker.js', import.meta.url), { workerData });
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

type WorkerAnswer = { ok: true; value: AggregatedUpload } | { ok: false; code: EngineErrorCode | undefined; message: string };

function runOnce(input: PrepareInput): Promise<AggregatedUpload> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(input);
    let answered = false;
    worker.once('message', (answer: WorkerAnswer) => {
      answered = true;
      if (answer.ok) resolve(answer.value);
      else reject(answer.code !== undefined ? new EngineError(answer.code, answer.message) : new Error(answer.message));
      void worker.terminate();
    });
    worker.once('error', (error) => {
      if (!answered) reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the upload parser stopped (exit code ${code})`));
    });
  });
}

export async function prepareOffThread(input: PrepareInput): Promise<AggregatedUpload> {
  if (running >= MAX_PARSING) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await runOnce(input);
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}
