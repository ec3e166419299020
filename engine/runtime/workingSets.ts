/**
 * The working sets of the queues one runtime drives (workingSet.ts): each queue's, kept from one transaction to the
 * next, rebuilt from the store when it no longer matches it, and the queue record it holds, for reads that may take
 * it instead of a parse.
 */
import type { QueueRecord } from '../model/queues.js';
import type { ReadTx, Store } from '../store/store.js';
import { copyRuntime, WorkingSet, type HeardChanges } from './workingSet.js';

export class WorkingSets {
  private readonly sets = new Map<string, WorkingSet>();

  constructor(private readonly store: Store) {}

  /** The queue's working set as held, whatever its state. */
  get(queueId: string): WorkingSet | undefined {
    return this.sets.get(queueId);
  }

  /** Rebuilt from the store (a start, or a queue taken over). */
  rebuild(tx: ReadTx, queue: QueueRecord): void {
    this.sets.set(queue.id, WorkingSet.rebuild(tx, queue));
  }

  /** Another process committed to the queue: its working set hears what changed. */
  hear(queueId: string, changes: HeardChanges): void {
    this.sets.get(queueId)?.hear(changes);
  }

  /** A queue was deleted, or its working set may be ahead of the store: it is rebuilt when next needed. */
  forget(queueId: string): void {
    this.sets.delete(queueId);
  }

  /**
   * The queue's record as the store holds it: the working set's when that is live (no parse), else read. `own`: a copy
   * the caller may change (a transaction's): its runtime is copied; its settings and other fields are shared, as a
   * transaction replaces them rather than changing them in place.
   */
  queueRecord(tx: ReadTx, queueId: string, own = false): QueueRecord | undefined {
    const set = this.sets.get(queueId);
    if (set?.liveIn(tx)) return own ? { ...set.queue, runtime: copyRuntime(set.queue.runtime) } : set.queue;
    return tx.get('queues', [queueId]);
  }

  /** The queue's working set, if it is the state of the queue as the store holds it now. */
  current(queue: QueueRecord): WorkingSet | undefined {
    const set = this.sets.get(queue.id);
    return set?.current(queue) === true ? set : undefined;
  }

  /**
   * The queue's working set; when the store changed under it, brought up to date from what it heard of the commits
   * of other processes, else rebuilt from the store.
   */
  of(tx: ReadTx, queue: QueueRecord): WorkingSet {
    const current = this.current(queue);
    if (current !== undefined) return current;
    const kept = this.sets.get(queue.id);
    if (kept?.catchUp(tx, queue) === true) return kept;
    const set = WorkingSet.rebuild(tx, queue);
    this.sets.set(queue.id, set);
    return set;
  }

  /** For tests: the queue's working set as held, and as rebuilt from the store now. */
  compare(queueId: string): { live: WorkingSet | undefined; rebuilt: WorkingSet | undefined } {
    return this.store.read((tx) => {
      const queue = tx.get('queues', [queueId]);
      return { live: this.sets.get(queueId), rebuilt: queue === undefined ? undefined : WorkingSet.rebuild(tx, queue) };
    });
  }
}
