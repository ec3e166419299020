/**
 * A large upload stored in batches: at most TESTS_PER_TRANSACTION tests per store transaction, the event loop free
 * between two of them, so that other requests (`/healthz`, the queues) are answered while a 200,000-test upload is
 * being stored, and no single transaction holds every page the upload dirties. Tests are let go once written.
 *
 * What it changes against one transaction: the upload becomes visible a batch at a time (listings read between two
 * batches show part of it), and a crash or a shutdown in the middle leaves the batches already stored. Each batch
 * moves the upload's `progress` in the transaction that stores it, so the same upload sent again (uploadIdentity.ts)
 * stores only the batches that are not, and no batch is ever counted twice. Until the last batch is stored, the
 * commit's verdict for the merge queue (`flakyShas.storing`) vouches for nothing, so a failure is never passed as
 * quarantined on a partial upload.
 */
import { type EngineError, engineError } from '../model/errors.js';
import type { Store, WriteTx } from '../store/store.js';
import type { AggregatedUpload, UploadedTest } from './aggregate.js';
import { repoId as repoIdOf } from './identity.js';
import {
  beginUpload,
  resultOf,
  writeTests,
  type UploadInProgress,
  type UploadMeta,
  type UploadResult,
} from './ingest.js';
import { storedUpload, type UploadIdentity } from './uploadIdentity.js';

/**
 * Small enough that one batch holds the event loop about as long as a getQueue takes (~3 ms of CPU; measured: 500
 * tests held it 14 ms, 100 tests 3 ms, 50 tests 1.7 ms), so that a large upload at most doubles another request's
 * wait. Under group commit (store/groupCommit.ts) and lmdb-js's batches a transaction costs no sync of its own: 100
 * tests per transaction spend about 5 % more CPU over a whole upload than 500.
 */
export const TESTS_PER_TRANSACTION = 100;

export interface BatchOptions {
  /** The upload's identity: when given, a partly stored upload of that identity is resumed, a stored one answered. */
  identity?: UploadIdentity;
  /** Tests per transaction (a resumed upload keeps the size it began with). */
  size?: number;
}

/** Where an upload is between two transactions. */
export interface BatchProgress {
  stored: number;
  batches: number;
  /**
   * The next transaction's work: a driver that runs it itself (off the event loop: uploadInBatches) resumes the steps
   * with `next(true)`; resumed with `next()`, the steps run it in `store.write`.
   */
  batch?: (tx: WriteTx) => void;
}

/** The upload's batch `index`, if it is the next one to store (a request sending the same upload may have stored it). */
function writeBatch(tx: WriteTx, job: UploadInProgress, tests: UploadedTest[], index: number, now: number): void {
  const key = [job.org, job.repoKey, job.upload.seq];
  const record = tx.get('flakyUploads', key);
  const progress = record?.progress;
  if (record === undefined || progress === undefined || progress.stored > index) return;
  if (progress.stored < index)
    throw new Error(`batch ${index} of upload ${record.id} comes before its batch ${progress.stored}`);
  writeTests(tx, job, tests, index, now);
  const { progress: _done, ...complete } = record;
  tx.put(
    'flakyUploads',
    key,
    index + 1 === progress.batches ? complete : { ...record, progress: { ...progress, stored: index + 1 } },
  );
}

/** The upload's transactions, one per step; the caller decides what happens between two (uploadInBatches). */
export function* uploadSteps(
  store: Store,
  org: string,
  meta: UploadMeta,
  aggregated: AggregatedUpload,
  now: () => number,
  options: BatchOptions = {},
): Generator<BatchProgress, UploadResult, boolean | undefined> {
  const tests: (UploadedTest | undefined)[] = [...aggregated.tests.values()];
  aggregated.tests.clear();
  const slice = (index: number, size: number) => tests.slice(index * size, (index + 1) * size) as UploadedTest[];
  const release = (index: number, size: number) => tests.fill(undefined, index * size, (index + 1) * size);
  const start = store.write((tx) => {
    const stored =
      options.identity === undefined ? undefined : storedUpload(tx, org, meta.repo, options.identity, now());
    if (stored !== undefined) {
      const job: UploadInProgress = {
        org,
        repoKey: repoIdOf(meta.repo),
        upload: stored,
        untrackedFailures: stored.untrackedFailures,
        batches: stored.progress?.batches ?? 1,
      };
      return {
        job,
        size: stored.progress?.size ?? tests.length,
        next: stored.progress?.stored ?? job.batches,
        complete: stored.progress === undefined,
      };
    }
    const size = options.size ?? TESTS_PER_TRANSACTION;
    const job = beginUpload(
      tx,
      org,
      meta,
      aggregated,
      now(),
      { batches: Math.max(1, Math.ceil(tests.length / size)), size },
      options.identity,
    );
    writeTests(tx, job, slice(0, size), 0, now());
    return { job, size, next: 1, complete: false };
  });
  const { job, size } = start;
  if (!start.complete && job.batches !== Math.max(1, Math.ceil(tests.length / size))) {
    // Same digest, other tests: only a parser that changed between the two sends could do it.
    throw engineError('upload_key_conflict', { upload: job.upload.id, begun: true });
  }
  release(0, size);
  for (let index = start.next; index < job.batches; index++) {
    const batch = (tx: WriteTx) => writeBatch(tx, job, slice(index, size), index, now());
    const ran = yield { stored: index, batches: job.batches, batch };
    if (ran !== true) store.write(batch);
    release(index, size);
  }
  return resultOf(job.upload, start.complete);
}

/** The answer to an upload stopped between two of its transactions. */
export function interruptedError(progress: BatchProgress | undefined): EngineError {
  const kept =
    progress === undefined
      ? 'nothing of it was stored'
      : `${progress.stored} of its ${progress.batches} batches of tests are stored and the rest is not; sending the same upload again stores the rest, counting nothing twice`;
  return engineError('upload_interrupted', { kept });
}

/**
 * Stores the upload, yielding to the event loop between transactions; stops between two when `signal` aborts. A store
 * that commits off the event loop (`writeAsync`: LMDB on lmdb-js's write thread) takes the batches after the first:
 * their commits, most of a batch's time, no longer hold up other requests, and queue transactions stay their own.
 */
export async function uploadInBatches(
  store: Store,
  org: string,
  meta: UploadMeta,
  aggregated: AggregatedUpload,
  now: () => number,
  options: BatchOptions & { signal?: AbortSignal } = {},
): Promise<UploadResult> {
  const aborted = () => options.signal?.aborted === true;
  if (aborted()) throw interruptedError(undefined);
  const steps = uploadSteps(store, org, meta, aggregated, now, options);
  for (let step = steps.next(); ; ) {
    if (step.done === true) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (aborted()) throw interruptedError(step.value);
    const { batch } = step.value;
    if (store.writeAsync !== undefined && batch !== undefined) {
      await store.writeAsync(batch);
      step = steps.next(true);
    } else {
      step = steps.next();
    }
  }
}

/** Stores the upload at once, in the same transactions (the synchronous `upload`, for the CLI and tests). */
export function uploadNow(...args: Parameters<typeof uploadSteps>): UploadResult {
  const steps = uploadSteps(...args);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}
