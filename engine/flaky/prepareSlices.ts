/** What the upload parser's worker (prepareWorker.ts) answers: its aggregate in slices, or why it refused the upload. */
import type { EngineErrorCode } from '../model/errors.js';
import type { AggregatedUpload, UploadedTest } from './aggregate.js';

/**
 * Tests per message from the worker. Rebuilding a message on the event loop costs about 10–20 µs a test (a 200,000-test
 * aggregate in one message held the loop 2.7–3.8 s), so a slice holds it some tens of milliseconds at most.
 */
export const SLICE_TESTS = 2_000;

export type WorkerAnswer =
  | { ok: true; tests: [string, UploadedTest][]; totals?: Omit<AggregatedUpload, 'tests'> }
  | { ok: false; code: EngineErrorCode | undefined; message: string };
