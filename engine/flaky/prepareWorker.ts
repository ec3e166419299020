/** The worker thread of `prepareOffThread`: one upload in, its aggregate (or why it was refused) out, then it ends. */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineError } from '../model/errors.js';
import { prepareUpload, type PrepareInput } from './prepare.js';

try {
  parentPort?.postMessage({ ok: true, value: prepareUpload(workerData as PrepareInput) });
} catch (error) {
  const code = error instanceof EngineError ? error.code : undefined;
  parentPort?.postMessage({ ok: false, code, message: error instanceof Error ? error.message : String(error) });
}
