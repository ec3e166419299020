/**
 * One input to one queue, as one store transaction (queueRuntime.ts runs it): the queue found or opened, handled, its
 * plan reconciled, and everything committed through the queue's working set. `applyInput` is the transaction's body;
 * the runtime runs it in `write` (the synchronous path: the simulator, replays, stores without batches) or in the
 * store's batch (`transactBatched`: the service's requests on LMDB with GREENLINE_LMDB_SYNC=batch).
 *
 * In a batch the working set takes what the transaction changed inside the transaction (so the next input of the
 * batch, of the same queue, reads it), before the batch is committed. When the commit then fails, the working set may
 * be ahead of the store: it is dropped (rebuilt from the store when next needed), and the caller is told the store's
 * error — 507 for a full store, else 503 store_unavailable — with nothing acknowledged. (A working set that a later
 * input finds ahead of the store is rebuilt anyway: it belongs to the queue version the store's event log ends at.)
 */
import type { FailurePredictor } from '../model/likelihoodModel.js';
import type { CommitStatusInput, QueueKey } from '../engineTypes.js';
import { engineError, EngineError } from '../model/errors.js';
import type { QueueInput } from '../model/events.js';
import type { QueueRecord } from '../model/queues.js';
import { DependencyUnavailableError } from '../model/unavailable.js';
import { describeQueue, findQueueId, sameRepo } from '../queueIndex.js';
import { StorageFullError, type Key, type Store, type WriteTx } from '../store/store.js';
import { handle } from '../transaction/handlers.js';
import { QueueTx, type TimerChange } from '../transaction/queueTx.js';
import { reconcile } from '../transaction/reconcile.js';
import { recordMetrics } from '../metrics/recorder.js';
import type { Clock } from './clock.js';
import type { WorkingSet } from './workingSet.js';
import type { WorkingSets } from './workingSets.js';

/** Which queue an input is for: found by `key` or `queueId`, or made (or found) by `open` with the input's writes. */
export interface InputTarget {
  key?: QueueKey | undefined;
  open?: ((tx: WriteTx, now: () => number) => QueueRecord) | undefined;
  /** An effect's result: its outbox entry is removed in the same transaction. */
  outboxKey?: Key | undefined;
  queueId?: string | undefined;
}

export interface InputDeps {
  workingSets: WorkingSets;
  clock: Clock;
  predictor: FailurePredictor | undefined;
}

/** What a committed input leaves for after its commit: timers to arm, whether effects wait. */
export interface Applied {
  q: QueueTx;
  queue: QueueRecord;
  timers: readonly TimerChange[];
  effects: number;
  /** A PR became ready or reached the head without an estimate sample (the sampler takes one: estimateSampler.ts). */
  estimatesDue: boolean;
}

/** The transaction of one input. */
export function applyInput(deps: InputDeps, tx: WriteTx, target: InputTarget, input: QueueInput): Applied {
  const { key, open, outboxKey, queueId } = target;
  // One time for the whole input, the event's and every record's (a replay sets the clock to the event's time),
  // read once the transaction holds the store (after its first read), so times follow the order of commits.
  let at: number | undefined;
  const now = (): number => (at ??= deps.clock.now());
  const id = open !== undefined ? undefined : key !== undefined ? findQueueId(tx, key) : (queueId ?? '');
  const queue = id === undefined ? open?.(tx, now) : deps.workingSets.queueRecord(tx, id, true);
  if (queue === undefined)
    throw engineError(
      'queue_not_found',
      key !== undefined ? { queue: describeQueue(key) } : { queueId: queueId ?? '', gone: true },
    );
  const set = deps.workingSets.of(tx, queue);
  const q = new QueueTx(tx, queue, now(), set, recordMetrics(set.metrics));
  q.predictor = deps.predictor;
  handle(q, input);
  reconcile(q);
  q.commit(input);
  if (outboxKey !== undefined) tx.remove('outbox', outboxKey);
  return { q, queue: q.queue, timers: q.timerChanges, effects: q.effects.length, estimatesDue: q.estimatesDue };
}

/** Committed: what the transaction changed is the queue's working set from now on. */
export function absorb(deps: InputDeps, applied: Applied): void {
  applied.q.absorbInto(deps.workingSets.get(applied.queue.id) as WorkingSet);
}

/**
 * The input in the store's batch: resolves once its batch is durable. The working set absorbs the transaction inside
 * it; a batch whose commit fails drops it and rejects with the store's error (see above).
 */
export async function transactBatched(
  deps: InputDeps,
  writeBatched: <R>(fn: (tx: WriteTx) => R) => Promise<R>,
  target: InputTarget,
  input: QueueInput,
): Promise<Applied> {
  let absorbed: string | undefined;
  try {
    return await writeBatched((tx) => {
      const applied = applyInput(deps, tx, target, input);
      absorb(deps, applied);
      absorbed = applied.queue.id;
      return applied;
    });
  } catch (error) {
    if (absorbed === undefined) throw error;
    deps.workingSets.forget(absorbed);
    throw commitFailed(error);
  }
}

/** The error a caller is told of a transaction that ran but whose commit failed. */
function commitFailed(error: unknown): Error {
  if (error instanceof StorageFullError || error instanceof EngineError || error instanceof DependencyUnavailableError)
    return error;
  const message = error instanceof Error ? error.message : String(error);
  return new DependencyUnavailableError('store', `the store could not commit the write: ${message}`, 5, {
    cause: error,
  });
}

/**
 * A commit status on a test branch's SHA: the status input of the run with that SHA, and how its transaction finds
 * the queue: in the transaction itself, the SHA read again once it holds the queue (whose transactions write
 * runsBySha), so that a run pruned or a SHA tested again meanwhile is not given the status (found in a read before
 * the write, it could be).
 */
export function statusInput(
  org: string,
  status: CommitStatusInput,
  sets: WorkingSets,
): { input: QueueInput & { type: 'status' }; open: (tx: WriteTx) => QueueRecord } {
  const sha: [string, string] = [org, status.sha.toLowerCase()];
  const { context, state } = status;
  const [url, description] = [status.url ?? '', status.description ?? ''];
  const input = { type: 'status' as const, runId: '', context, state, url, description };
  const open = (tx: WriteTx): QueueRecord => {
    const ref = tx.get('runsBySha', sha);
    const queue = ref === undefined ? undefined : sets.queueRecord(tx, ref[0], true);
    const still = queue === undefined ? undefined : tx.get('runsBySha', sha);
    if (queue === undefined || still?.[0] !== ref?.[0] || !sameRepo(queue.repo, status.repo))
      throw engineError('commit_not_tested', { repo: `${status.repo.owner}/${status.repo.name}`, sha: status.sha });
    input.runId = (still as [string, string])[1];
    return queue;
  };
  return { input, open };
}

/** An effect without a result is done: its outbox entry goes (in the store's batch where it has one). */
export function removeOutbox(store: Store, entry: Key): void | Promise<void> {
  const remove = (tx: WriteTx) => void tx.remove('outbox', entry);
  return store.writeBatched ? store.writeBatched(remove) : store.write(remove);
}
