/**
 * The test runs of one queue transaction, read through its actors (txActors.ts: the working set's, else the store's)
 * and moved only through `send`, which tells the metrics recorder when a run starts and ends. A field of QueueTx
 * (queueTx.ts): moves read and move runs through it, and through nothing else of the transaction.
 */
import type { TestRunContext, TestRunEvent } from '../../machines/index.js';
import type { TestRunStatus } from '../../machines/vocabulary.js';
import type { TestRunRecord } from '../model/testRuns.js';
import { initial, step } from '../model/machineSnapshots.js';
import type { TxRecorder } from './queueCache.js';
import type { TxActors } from './txActors.js';

export class RunsView {
  constructor(
    /** The PR and run actors this transaction reads and owns. */
    private readonly actors: TxActors,
    /** What metrics need of this transaction, written with it. */
    private readonly metrics: TxRecorder,
    private readonly queueId: string,
    private readonly isoNow: string,
  ) {}

  get(id: string): TestRunRecord | undefined {
    return this.actors.run(id)?.record;
  }

  require(id: string): TestRunRecord {
    const record = this.get(id);
    if (record === undefined) throw new Error(`run ${id} of queue ${this.queueId} has no record`);
    return record;
  }

  /** Whether the run exists and its machine is still in progress. */
  inProgress(id: string): boolean {
    return this.actors.run(id)?.snapshot.status === 'active';
  }

  context(id: string): TestRunContext {
    const actor = this.actors.run(id);
    if (actor === undefined) throw new Error(`run ${id} has no actor`);
    return actor.snapshot.context as TestRunContext;
  }

  create(record: TestRunRecord, deadlineAt: number): void {
    const snapshot = initial('testRun', { runId: record.id, requiredStatuses: record.requiredStatuses, deadlineAt });
    this.actors.addRun({ record, snapshot });
    this.metrics.runStarted(record);
  }

  /** Moves the run's machine; true when it reached a final status with this event. */
  send(id: string, event: TestRunEvent): boolean {
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

  /** The run's record, owned by this transaction and to be written. */
  mark(id: string): TestRunRecord {
    const actor = this.actors.ownRun(id);
    if (actor === undefined) throw new Error(`run ${id} of queue ${this.queueId} has no record`);
    this.actors.changedRun(id);
    return actor.record;
  }
}
