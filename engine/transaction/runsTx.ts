/**
 * The test runs of one queue transaction, and what holds the actors of both kinds: the PR and run actors it reads
 * and owns (txActors.ts), the queue's working set it reads through, and what metrics need of it. QueueTx (queueTx.ts)
 * is this plus the queue, its PRs, effects, timers and the commit; runs move only through `sendRun`.
 */
import type { TestRunContext, TestRunEvent } from '../../machines/index.js';
import type { TestRunStatus } from '../../machines/vocabulary.js';
import type { QueueRecord } from '../model/queues.js';
import type { TestRunRecord } from '../model/testRuns.js';
import { initial, step } from '../model/machineSnapshots.js';
import type { WriteTx } from '../store/store.js';
import type { QueueCache, TxRecorder, TxRecorderFactory } from './queueCache.js';
import { TxActors } from './txActors.js';

export abstract class RunsTx {
  /** The PR and run actors this transaction reads and owns. */
  protected readonly actors: TxActors;
  /** What metrics need of this transaction, written with it. */
  protected readonly metrics: TxRecorder;
  readonly isoNow: string;

  constructor(
    readonly tx: WriteTx,
    readonly queue: QueueRecord,
    readonly now: number,
    /** The queue's working set, when it is the state of the queue this transaction starts from. */
    protected readonly cache: QueueCache | undefined,
    /** Makes what metrics need of this transaction (the runtime passes it in). */
    recorder: TxRecorderFactory,
  ) {
    this.isoNow = new Date(now).toISOString();
    this.actors = new TxActors(tx, queue.id, cache);
    this.metrics = recorder(tx, queue, now, (id) => this.run(id), cache !== undefined);
  }

  run(id: string): TestRunRecord | undefined {
    return this.actors.run(id)?.record;
  }

  requireRun(id: string): TestRunRecord {
    const record = this.run(id);
    if (record === undefined) throw new Error(`run ${id} of queue ${this.queue.id} has no record`);
    return record;
  }

  /** Whether the run exists and its machine is still in progress. */
  runInProgress(id: string): boolean {
    return this.actors.run(id)?.snapshot.status === 'active';
  }

  runContext(id: string): TestRunContext {
    const actor = this.actors.run(id);
    if (actor === undefined) throw new Error(`run ${id} has no actor`);
    return actor.snapshot.context as TestRunContext;
  }

  createRun(record: TestRunRecord, deadlineAt: number): void {
    const snapshot = initial('testRun', { runId: record.id, requiredStatuses: record.requiredStatuses, deadlineAt });
    this.actors.addRun({ record, snapshot });
    this.metrics.runStarted(record);
  }

  /** Moves the run's machine; true when it reached a final status with this event. */
  sendRun(id: string, event: TestRunEvent): boolean {
    const actor = this.actors.ownRun(id);
    if (actor === undefined) throw new Error(`run ${id} has no actor`);
    if (actor.snapshot.status === 'done') return false;
    if (!actor.snapshot.can(event)) return false;
    actor.snapshot = step('testRun', actor.snapshot, event);
    const context = actor.snapshot.context as TestRunContext;
    actor.record.status = actor.snapshot.value as TestRunStatus;
    actor.record.reason = context.reason;
    this.actors.changedRun(id);
    if (actor.snapshot.status !== 'done') return false;
    actor.record.endedAt = this.isoNow;
    this.metrics.runFinished(id);
    return true;
  }

  markRun(id: string): TestRunRecord {
    const actor = this.actors.ownRun(id);
    if (actor === undefined) throw new Error(`run ${id} of queue ${this.queue.id} has no record`);
    this.actors.changedRun(id);
    return actor.record;
  }
}
