/**
 * The worker thread of `prepareOffThread`: one upload in, its aggregate (or why it was refused) out, then it ends.
 * The aggregate goes back in slices of `SLICE_TESTS` tests, the next one only when the parent asks for it: the parent
 * rebuilds (deserialises) each message on its event loop, and Node hands it every message already queued in one turn,
 * so 200,000 tests sent at once held that loop for seconds. Asked for one at a time, each slice is a short task and
 * other requests run between them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineError } from '../model/errors.js';
import { prepareUpload, type PrepareInput } from './prepare.js';
import { SLICE_TESTS, type WorkerAnswer } from './prepareSlices.js';

const post = (answer: WorkerAnswer) => parentPort?.postMessage(answer);

try {
  const { tests, ...totals } = prepareUpload(workerData as PrepareInput);
  const entries = [...tests];
  let at = 0;
  const next = () => {
    const slice = entries.slice(at, at + SLICE_TESTS);
    at += slice.length;
    post(at >= entries.length ? { ok: true, tests: slice, totals } : { ok: true, tests: slice });
  };
  parentPort?.on('message', next);
  next();
} catch (error) {
  const code = error instanceof EngineError ? error.code : undefined;
  post({ ok: false, code, message: error instanceof Error ? error.message : String(error) });
}
