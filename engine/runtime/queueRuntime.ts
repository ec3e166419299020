/**
 * The actor runtime of every queue this process drives: each input is one store transaction that moves the machines
 * (handlers, then the planner's decisions), writes their snapshots and records, appends the input to the queue's log
 * and puts side effects in an outbox. After commit, timers are armed and effects run at the edge (git host, CI);
 * their results come back as inputs. `restore` rebuilds all of it from the store (a start, or queues taken over:
 * restoreReads.ts); each queue's working set is kept in workingSets.ts.
 */
import type { FailurePredictor } from '../model/likelihoodModel.js';
import type { CommitStatusInput, QueueKey } from '../engineTypes.js';
import { engineError } from '../model/errors.js';
import type { QueueInput } from '../model/events.js';
import type { QueueRecord } from '../model/queues.js';
import type { CI, CiRun, GitHost, StatusReporter } from '../providers/types.js';
import type { Key, Store, WriteTx } from '../store/store.js';
import type { NotifyEffect } from '../notifications/events.js';
import type { TimerChange } from '../transaction/queueTx.js';
import type { Clock } from './clock.js';
import { OutboxRunner } from './outbox.js';
import { DriverWork } from './driverWork.js';
import { guarded } from './guarded.js';
import type { QueueOwnership } from './ownership.js';
import { performEffect } from './performEffect.js';
import type { Scheduler } from './scheduler.js';
import type { HeardChanges } from './workingSet.js';
import { WorkingSets } from './workingSets.js';
import { readReleased, readRestored } from './restoreReads.js';
import { absorb, applyInput, removeOutbox, statusInput, transactBatched } from './inputTransaction.js';
import type { Applied, InputDeps, InputTarget } from './inputTransaction.js';
import { EstimateSampler } from './estimateSampler.js';

export interface QueueRuntimeDeps {
  store: Store;
  scheduler: Scheduler;
  gitHost: GitHost;
  ci: CI;
  onError: (message: string, error: unknown) => void;
  holdEffects: boolean;
  ownership: QueueOwnership;
  /** Benchmarks only: a failure predictor that replaces the likelihood model. */
  predictor: FailurePredictor | undefined;
  /** Calibration samples of the merge estimate are taken (estimateSampler.ts). */
  sampleEstimates: boolean;
  /** Outgoing webhooks: writes a `notify` effect's messages in the write that removes its outbox entry (as the driver). */
  notify: (queueId: string, key: Key, effect: NotifyEffect) => void;
}

export class QueueRuntime {
  private readonly store: Store;
  private readonly scheduler: Scheduler;
  private readonly clock: Clock;
  private readonly ownership: QueueOwnership;
  private running = true;
  private readonly outbox: OutboxRunner;
  /** Observers of every committed input (the simulator and tests use it). */
  private readonly listeners = new Set<(queueId: string, input: QueueInput) => void>();
  /** Observers of every queue's commits, this process's and (on PostgreSQL) other processes' (the dashboard's feed). */
  private readonly committed = new Set<(queueId: string) => void>();
  /** Each queue's working set: what its transactions read and changed, kept for the next ones (workingSets.ts). */
  readonly workingSets: WorkingSets;
  /** The driver's work for commits of other processes and lease rounds (driverWork.ts). */
  private readonly driver: DriverWork;
  /** What an input's transaction needs (inputTransaction.ts). */
  private readonly inputs: InputDeps;
  /** Takes the merge estimate's calibration samples outside queue transactions (estimateSampler.ts). */
  private readonly sampler = new EstimateSampler(() => this.deps);

  constructor(private readonly deps: QueueRuntimeDeps) {
    this.store = deps.store;
    this.scheduler = deps.scheduler;
    this.clock = deps.scheduler;
    this.ownership = deps.ownership;
    this.workingSets = new WorkingSets(deps.store);
    this.inputs = { workingSets: this.workingSets, clock: this.clock, predictor: deps.predictor };
    this.outbox = new OutboxRunner({
      store: deps.store,
      scheduler: this.scheduler,
      clock: this.clock,
      alive: (queueId) => this.running && (queueId === undefined || this.ownership.owns(queueId)),
      perform: (queueId, key, effect) =>
        performEffect(
          {
            gitHost: deps.gitHost,
            ci: deps.ci,
            dispatch: (id, input, entry) => this.dispatchBatched(id, input, entry),
            done: (id, entry) => this.ownership.asOwner(id, () => removeOutbox(deps.store, entry)),
            startCi: (run) => this.startCi(run),
            notify: (id, entry, effect) => deps.notify(id, entry, effect),
          },
          queueId,
          key,
          effect,
        ),
      dispatch: (queueId, input, key) => this.dispatch(queueId, input, key),
      skipped: (queueId) => this.driver.owe(queueId),
      onError: deps.onError,
    });
    this.driver = new DriverWork({
      store: deps.store,
      drives: (queueId) => this.running && this.ownership.owns(queueId),
      arm: (queueId, timer) => this.arm(queueId, timer),
      kick: (queueId) => this.kick(queueId),
      onError: deps.onError,
    });
  }

  /** Whether it still runs: stop() ends that for good. */
  get alive(): boolean {
    return this.running;
  }

  /**
   * Restores the queues `only` picks: rebuilds their working sets, re-arms deadlines, resumes CI on runs in progress,
   * finishes effects left in the outbox.
   */
  restore(only: (queueId: string) => boolean): void {
    this.driver.restored(only);
    this.store.read((tx) => {
      for (const { value: queue } of tx.scan('queues')) if (only(queue.id)) this.workingSets.rebuild(tx, queue);
    });
    // Timers in the order they were made (restoreReads.ts).
    const { timers, outboxQueues, runs } = this.store.read((tx) => readRestored(tx, only));
    for (const timer of timers) this.arm(timer.queueId, { name: timer.name, dueAt: timer.dueAt });
    // Deadlines that passed while the engine was down fire now, before CI and effects resume (a virtual clock fires a
    // timer armed in the past only when it next moves), in the order the scheduler fires them (readRestored sorts them).
    const now = this.clock.now();
    const overdue = timers.filter((timer) => timer.dueAt <= now);
    for (const timer of overdue) this.fire(timer.queueId, timer.name);
    for (const run of runs) this.startCi(run);
    for (const queueId of outboxQueues) this.kick(queueId);
  }

  /** This process no longer drives these queues: their timers and CI runs here stop (their new driver resumes them). */
  release(queueIds: readonly string[]): void {
    for (const queueId of queueIds) {
      const { timers, runs } = this.store.read((tx) => readReleased(tx, queueId));
      for (const name of [...timers, 'retry']) this.scheduler.cancel(`${queueId}:${name}`);
      for (const runId of runs) this.deps.ci.stop(runId);
    }
  }

  /** A lease round (or a notice of an older process) asks to arm the queue's timers and run its outbox if need be. */
  refresh(queueId: string): void {
    this.driver.refresh(queueId);
  }

  /** Runs the queue's outbox, where this process drives it (an effect put outside its transactions). */
  runOutbox(queueId: string): void {
    if (this.running && this.ownership.owns(queueId)) this.kick(queueId);
  }

  /** Stops doing anything: no timer fires, no effect runs, nothing more is written. */
  stop(): void {
    this.running = false;
    this.scheduler.clear();
  }

  /** Resolves once no effect is left to run (timers aside). */
  async settle(): Promise<void> {
    await this.outbox.settle();
  }

  onInput(listener: (queueId: string, input: QueueInput) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onCommit(listener: (queueId: string) => void): () => void {
    this.committed.add(listener);
    return () => this.committed.delete(listener);
  }

  /** Another process committed to the queue: its working set hears what changed, and so do the observers of commits. */
  heard(queueId: string, changes: HeardChanges): void {
    this.workingSets.hear(queueId, changes);
    this.driver.heard(queueId, changes);
    // An input (its event) or the queue made, changed or deleted; not an effect's outbox entry removed.
    const shown = ([coll]: readonly unknown[]) => coll === 'events' || coll === 'queues';
    if (changes === 'all' || changes.puts.some(shown) || changes.removes.some(shown))
      for (const listener of this.committed) listener(queueId);
  }

  /** A queue was deleted: its working set and its timers go. */
  forget(queueId: string, timers: readonly string[]): void {
    this.workingSets.forget(queueId);
    for (const name of timers) this.scheduler.cancel(`${queueId}:${name}`);
  }

  /**
   * One input to one queue: one transaction (inputTransaction.ts). The queue is found by `key` or `queueId`, or `open`
   * finds or makes it (with any writes that belong with the input).
   */
  transact(
    key: QueueKey | undefined,
    input: QueueInput,
    open?: (tx: WriteTx, now: () => number) => QueueRecord,
    outboxKey?: Key,
    queueId?: string,
  ): QueueRecord {
    if (!this.running) throw engineError('engine_stopped');
    const applied = this.store.write((tx) => applyInput(this.inputs, tx, { key, open, outboxKey, queueId }, input));
    absorb(this.inputs, applied);
    return this.committedInput(applied, input);
  }

  /**
   * The same input in the store's batch (Store.writeBatched: LMDB with GREENLINE_LMDB_SYNC=batch), resolved once
   * durable; timers are armed and effects run only then. Stores without batches run `transact`.
   */
  async transactAsync(key: QueueKey | undefined, input: QueueInput, target: InputTarget = {}): Promise<QueueRecord> {
    const writeBatched = this.store.writeBatched?.bind(this.store);
    if (writeBatched === undefined) return this.transact(key, input, target.open, target.outboxKey, target.queueId);
    if (!this.running) throw engineError('engine_stopped');
    const applied = await transactBatched(this.inputs, writeBatched, { ...target, key }, input);
    return this.committedInput(applied, input);
  }

  /** After an input's commit (durable, in a batch): its timers armed, its effects run, its observers told. */
  private committedInput(applied: Applied, input: QueueInput): QueueRecord {
    const queueId = applied.queue.id;
    if (!this.running) return applied.queue;
    if (this.ownership.owns(queueId)) {
      for (const timer of applied.timers) this.arm(queueId, timer);
      if (applied.effects > 0) this.kick(queueId);
      if (applied.estimatesDue && this.deps.sampleEstimates) this.sampler.due(queueId);
    } else if (applied.effects > 0 || applied.timers.length > 0) {
      this.ownership.changed(queueId);
      this.driver.owe(queueId);
    }
    for (const listener of this.listeners) listener(queueId, input);
    for (const listener of this.committed) listener(queueId);
    return applied.queue;
  }

  /** With `outboxKey` (an effect's result) the input is the driver's, so it is fenced by the queue's lease. */
  dispatch(queueId: string, input: QueueInput, outboxKey?: Key): void {
    if (outboxKey === undefined) this.transact(undefined, input, undefined, outboxKey, queueId);
    else this.ownership.asOwner(queueId, () => this.transact(undefined, input, undefined, outboxKey, queueId));
  }

  /**
   * `dispatch` for the runtime's own inputs (timers, CI reports, effects' results): in the store's batch where it has
   * one (resolved once durable), else at once.
   */
  private dispatchBatched(queueId: string, input: QueueInput, outboxKey?: Key): void | Promise<void> {
    if (this.store.writeBatched === undefined) return this.dispatch(queueId, input, outboxKey);
    const run = () => this.transactAsync(undefined, input, { queueId, outboxKey }).then(() => undefined);
    return outboxKey === undefined ? run() : this.ownership.asOwner(queueId, run);
  }

  /**
   * A commit status on a test branch's SHA: the status input of the run with that SHA, found in the input's own
   * transaction (statusInput). `batched`: in the store's batch where it has one, resolved once durable.
   */
  commitStatus(org: string, status: CommitStatusInput, batched = false): void | Promise<void> {
    const { input, open } = statusInput(org, status, this.workingSets);
    if (batched) return this.transactAsync(undefined, input, { open }).then(() => undefined);
    this.transact(undefined, input, open);
  }

  /** Runs the queue's outbox (not while effects are held, for a replay). */
  private kick(queueId: string): void {
    if (!this.deps.holdEffects) this.outbox.kick(queueId);
  }

  private arm(queueId: string, timer: TimerChange): void {
    const key = `${queueId}:${timer.name}`;
    if (timer.dueAt === null) return this.scheduler.cancel(key);
    this.scheduler.schedule(key, timer.dueAt, () => this.fire(queueId, timer.name));
  }

  /** A timer fires: its input, if still stored and due (a timer fired twice does nothing the second time). */
  private fire(queueId: string, name: string): void {
    if (!this.running) return;
    if (!this.ownership.owns(queueId)) return this.driver.owe(queueId);
    guarded(
      this.deps,
      `timer ${name} of ${queueId}`,
      () => {
        const stored = this.store.read((tx) => tx.get('timers', [queueId, name]));
        // Armed early (a notice heard after a later commit that moved it: driverWork.ts): armed again for its time.
        if (stored !== undefined && stored > this.clock.now()) return this.arm(queueId, { name, dueAt: stored });
        if (stored === undefined) return;
        return this.ownership.asOwner(queueId, () => this.dispatchBatched(queueId, { type: 'timer', name }));
      },
      { key: `${queueId}:${name}`, run: () => this.fire(queueId, name) },
    );
  }

  private startCi(ciRun: CiRun): void {
    const report: StatusReporter = (status) => {
      if (!this.running) return;
      const again = { key: `${ciRun.runId}:status:${status.context}:${status.state}`, run: () => report(status) };
      guarded(this.deps, `CI status for ${ciRun.runId}`, () => this.commitStatus(status.org, status, true), again);
    };
    this.deps.ci.start(ciRun, report);
  }
}
