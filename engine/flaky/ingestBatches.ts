/**
 * A large upload stored in batches: at most TESTS_PER_TRANSACTION tests per store transaction, the event loop free
 * between two of them, so that other requests (`/healthz`, the queues) are answered while a 200,000-test upload is
 * being stored, and no single transaction holds every page the upload dirties. Tests are let go once written.
 *
 * What it changes against one transaction: the upload becomes visible a batch at a time (listings read between two
 * batches show part of it), and a crash in the middle leaves the batches already stored; the commit's verdict for
 * the merge queue (`flakyShas.storing`) vouches for nothing until the last batch is stored, so a failure is never
 * passed as quarantined on a partial upload, even after such a crash.
 */
import type { Store } from '../store/store.js';
import type { AggregatedUpload, UploadedTest } from './aggregate.js';
import { beginUpload, resultOf, writeTests, type UploadMeta, type UploadResult } from './ingest.js';

export const TESTS_PER_TRANSACTION = 5000;

/** Takes (and removes) up to `size` tests from the upload's map, in order. */
function take(tests: Map<string, UploadedTest>, size: number): UploadedTest[] {
  const batch: UploadedTest[] = [];
  for (const [id, test] of tests) {
    if (batch.length >= size) break;
    batch.push(test);
    tests.delete(id);
  }
  return batch;
}

/** The upload's transactions, one per step; the caller decides what happens between two (uploadInBatches). */
export function* uploadSteps(
  store: Store,
  org: string,
  meta: UploadMeta,
  aggregated: AggregatedUpload,
  now: () => number,
  size = TESTS_PER_TRANSACTION,
): Generator<void, UploadResult> {
  const tests = aggregated.tests;
  const batches = Math.max(1, Math.ceil(tests.size / size));
  const first = take(tests, size);
  const job = store.write((tx) => {
    const started = beginUpload(tx, org, meta, aggregated, now(), batches);
    writeTests(tx, started, first, 0, now());
    return started;
  });
  for (let index = 1; index < batches; index++) {
    yield;
    const batch = take(tests, size);
    store.write((tx) => writeTests(tx, job, batch, index, now()));
  }
  return resultOf(job);
}

/** Stores the upload, yielding to the event loop between transactions. */
export async function uploadInBatches(...args: Parameters<typeof uploadSteps>): Promise<UploadResult> {
  const steps = uploadSteps(...args);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Stores the upload at once, in the same transactions (the synchronous `upload`, for the CLI and tests). */
export function uploadNow(...args: Parameters<typeof uploadSteps>): UploadResult {
  const steps = uploadSteps(...args);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}
