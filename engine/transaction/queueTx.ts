/**
 * One queue inside one store transaction, by composition: its reads of PRs (`prs`, prsView.ts) and runs (`runs`,
 * runsView.ts) over the actors it reads and owns (txActors.ts), what it decided (`out`, outcome.ts: effects, timers,
 * timeline lines, notices), the bisections' machines (bisectionActors.ts), and the queue's own record and machine.
 * Machines move only through `write` (`sendPr` is one write): the moves a PR's transition named (prMoves.ts) return
 * what to write (writes.ts), and `write` writes it in order, in one loop, the writes of an event's moves before those
 * that followed the event. `commit` writes every snapshot and record that changed plus one event to the queue's log,
 * and what metrics need of the transaction (metrics/recorder.ts).
 *
 * It reads through the queue's working set (workingSet.ts) when the set is current, else from the store, and owns
 * what it changes: an actor is copied the first time the transaction changes it (prs.mark, sendPr, runs.mark,
 * runs.send), so that the working set is untouched until the store has committed (`absorbInto`).
 */
import type { PullRequestContext, QueueContext } from '../../machines/index.js';
import type { PullRequestState, QueueState } from '../../machines/vocabulary.js';
import { fromStored, initial, step, toStored, type Snapshot } from '../model/machineSnapshots.js';
import type { Effect } from '../model/effects.js';
import type { QueueInput } from '../model/events.js';
import type { FailurePredictor } from '../model/likelihoodModel.js';
import type { PullRequestEvent, PullRequestMove, QueueEvent } from '../../machines/index.js';
import { PR_MOVES } from './prMoves.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { QueueRecord, QueueRuntime } from '../model/queues.js';
import type { WriteTx } from '../store/store.js';
import type { QueueCache, TxRecorder, TxRecorderFactory } from './queueCache.js';
import { BisectionActors } from './bisectionActors.js';
import { indexEnded } from '../history/endedIndex.js';
import { recordEstimateEnds } from '../estimate/index.js';
import { Outcome, type TimerChange } from './outcome.js';
import { PrsView } from './prsView.js';
import { RunsView } from './runsView.js';
import { TxActors } from './txActors.js';
import { runEnded } from './runMoves.js';
import { cancelPr } from './moves.js';
import { NONE, type Write } from './writes.js';

export type { TimerChange } from './outcome.js';

export class QueueTx {
  readonly isoNow: string;
  /** The queue's line-up and bookkeeping (the record's, never replaced). */
  readonly runtime: QueueRuntime;
  /** The PR and run actors this transaction reads and owns. */
  private readonly actors: TxActors;
  /** What metrics need of this transaction, written with it. */
  private readonly metrics: TxRecorder;
  /** The queue's PRs as this transaction reads them. */
  readonly prs: PrsView;
  /** The queue's test runs, read and moved. */
  readonly runs: RunsView;
  /** What this transaction decided: effects, timers, timeline lines, notices. */
  readonly out: Outcome;
  /** The machines of the queue's bisections, driven by their PRs' moves (bisectionActors.ts). */
  readonly bisections: BisectionActors;
  private queueSnapshot: Snapshot;
  private queueDirty = false;
  /** The state each PR was in before this transaction first moved it (null: it entered the queue in it). */
  private readonly statesBefore = new Map<number, PullRequestState | null>();
  /** A failure predictor that replaces the likelihood model (the simulator's benchmarks: see FailurePredictor). */
  predictor: FailurePredictor | undefined;
  /** At commit: a PR of the line-up lacks an estimate sample, for the runtime's sampler (runtime/estimateSampler.ts). */
  estimatesDue = false;

  constructor(
    readonly tx: WriteTx,
    readonly queue: QueueRecord,
    readonly now: number,
    workingSet: QueueCache | undefined,
    recorder: TxRecorderFactory,
  ) {
    this.isoNow = new Date(now).toISOString();
    this.runtime = queue.runtime;
    const cache = workingSet?.current(queue) === true ? workingSet : undefined;
    const actors = new TxActors(tx, queue.id, cache);
    this.actors = actors;
    this.metrics = recorder(tx, queue, now, (id) => actors.run(id)?.record, cache !== undefined);
    this.prs = new PrsView(tx, queue, actors, cache);
    this.runs = new RunsView(actors, this.metrics, queue.id, this.isoNow);
    this.out = new Outcome(tx, queue, this.isoNow, this.prs);
    this.bisections = new BisectionActors(tx, queue.id);
    const cached = cache?.queueSnapshot;
    const stored = cached === undefined ? tx.get('actors', [queue.id, 'queue']) : undefined;
    this.queueSnapshot =
      cached ?? (stored === undefined ? initial('queue', { mode: queue.settings.mode }) : fromStored('queue', stored));
  }

  /** The effects this transaction decided, for the outbox (the runtime counts them). */
  get effects(): readonly Effect[] {
    return this.out.effects;
  }

  /** Timer changes to apply to the scheduler after commit. */
  get timerChanges(): readonly TimerChange[] {
    return this.out.timerChanges;
  }

  get queueState(): QueueState {
    return this.queueSnapshot.value as QueueState;
  }

  get queueContext(): QueueContext {
    return this.queueSnapshot.context as QueueContext;
  }

  sendQueue(event: QueueEvent): void {
    const before = this.queueState;
    this.queueSnapshot = step('queue', this.queueSnapshot, event);
    this.out.notices.queueMoved(before, this.queueState);
    this.queue.state = this.queueState;
    // Settings are replaced, never changed in place: the working set shares them with the record it keeps.
    if (this.queue.settings.mode !== this.queueContext.mode)
      this.queue.settings = { ...this.queue.settings, mode: this.queueContext.mode };
    this.queueDirty = true;
  }

  canQueue(event: QueueEvent): boolean {
    return this.queueSnapshot.can(event);
  }

  touchQueue(): void {
    this.queueDirty = true;
  }

  /** A new queue entry for the PR: a fresh machine in NOT_READY. */
  enterPr(record: PullRequestRecord): void {
    const input =
      record.failedAttempts === undefined
        ? { number: record.number }
        : { number: record.number, failedAttempts: record.failedAttempts };
    this.actors.addPr({ record, snapshot: initial('pullRequest', input) });
    this.statesBefore.set(record.number, null);
    this.out.notices.prMoved(record, null);
  }

  /** Sends the event to the PR's machine and writes what its moves return (`write`); the PR's record after. */
  sendPr(number: number, event: PullRequestEvent): PullRequestRecord {
    const follow = this.movePr(number, event);
    if (follow.length > 0) this.write(follow);
    return this.prs.require(number);
  }

  /**
   * Writes what moves returned, in order, in one loop: the writes an event's moves return are written next, before the
   * writes that followed the event (a stack), as a call of each in its place would, without moves calling back here.
   */
  write(writes: readonly Write[]): void {
    const pending: Write[] = [];
    for (let at = writes.length - 1; at >= 0; at--) pending.push(writes[at] as Write);
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const follow = this.writeOne(next);
      for (let at = follow.length - 1; at >= 0; at--) pending.push(follow[at] as Write);
    }
  }

  private writeOne(write: Write): readonly Write[] {
    switch (write.to) {
      case 'pr':
        return this.movePr(write.number, write.event);
      case 'run':
        return this.runs.send(write.runId, write.event) ? runEnded(this, write.runId) : NONE;
      case 'cancelPr':
        return cancelPr(this, write.number, write.reason);
      case 'effect':
        this.out.effect(write.effect);
        return NONE;
      case 'timeline':
        this.out.timeline(write.number, write.text, write.extra);
        return NONE;
      case 'timer':
        if (write.dueAt === null) this.out.clearTimer(write.name);
        else this.out.setTimer(write.name, write.dueAt);
        return NONE;
    }
  }

  /**
   * Moves the PR's machine; the record shows the new snapshot (its projection: state, run, reason, merge, group,
   * tested base, the failure policy's counters), then the moves the transition named, in the order named: what they
   * return is written next.
   */
  private movePr(number: number, event: PullRequestEvent): readonly Write[] {
    const actor = this.actors.ownPr(number);
    if (actor === undefined) throw new Error(`PR ${number} of queue ${this.queue.id} has no actor`);
    const before = actor.snapshot.value as PullRequestState;
    const contextBefore = actor.snapshot.context as PullRequestContext;
    const moves: string[] = [];
    actor.snapshot = step('pullRequest', actor.snapshot, event, moves);
    const context = actor.snapshot.context as PullRequestContext;
    if (context.bisection !== undefined || contextBefore.bisection !== undefined)
      this.bisections.followPr(number, event, contextBefore, context);
    const record = actor.record;
    record.state = actor.snapshot.value as PullRequestState;
    record.runId = context.runId;
    record.reason = context.reason;
    // The merge under way is the machine's; the record shows it (and, once merged, how).
    record.mergeRequested = context.merge !== undefined && actor.snapshot.status === 'active';
    record.mergedBy = context.merge?.by ?? null;
    if (record.state !== before) {
      if (!this.statesBefore.has(number)) this.statesBefore.set(number, before);
      record.stateChangedAt = this.isoNow;
      // Metrics count the move in the queue type the entry was in (its group not yet shown): a move that leaves its
      // group is a bisection's.
      this.metrics.prMoved(record, before, event);
      this.out.notices.prMoved(record, before);
    }
    record.bisectionId = context.bisection?.id ?? null;
    record.group = context.bisection?.group ?? null;
    record.testedBase = (context.testedBase as number[] | undefined) ?? null;
    record.runsBehindEnded = context.runsBehindEnded ?? 0;
    // Absent from the record until the machine first counts or resets them, as before they were the machine's.
    if (context.runsBehindFailed !== undefined) record.runsBehindFailed = context.runsBehindFailed;
    if (context.failureRetests !== undefined) record.failureRetests = context.failureRetests;
    if (context.mergeRefusals !== undefined) record.mergeRefusals = context.mergeRefusals;
    if (context.failedAttempts !== undefined) record.failedAttempts = context.failedAttempts;
    if (context.speculated === true) record.speculated = true;
    this.actors.changedPr(number);
    if (moves.length === 0) return NONE;
    if (moves.length === 1) return PR_MOVES[moves[0] as PullRequestMove](this, number, event);
    const writes: Write[] = [];
    for (const move of moves)
      for (const write of PR_MOVES[move as PullRequestMove](this, number, event)) writes.push(write);
    return writes;
  }

  /** Writes every changed snapshot and record, the outbox, and the event to the log. */
  commit(input: QueueInput): number {
    const id = this.queue.id;
    this.actors.write();
    this.bisections.write();
    const moved = [...this.statesBefore.keys()].flatMap((number) => this.actors.prs.get(number)?.record ?? []);
    indexEnded(this.tx, id, moved);
    this.stateLabels();
    const notify = this.out.notices.effect(this.tx, this.queue, this.runtime.counters.event, this.isoNow);
    if (notify !== undefined) this.out.effect(notify);
    for (const effect of this.out.effects) {
      // The webhook effect takes no number of the queue's effects: it follows the organization's endpoints, not the
      // queue, so the queue's state (and its log's replay) is the same with endpoints or without. Keyed by the event
      // it belongs to, it runs after the numbered effects, in the order of the queue's events.
      const key =
        effect.kind === 'notify' ? [id, 'notify', this.runtime.counters.event] : [id, this.runtime.counters.effect++];
      this.tx.put('outbox', key, { effect, attempts: 0, decidedAt: this.now });
    }
    if (this.queueDirty) this.tx.put('actors', [id, 'queue'], toStored('queue', this.queueSnapshot));
    const seq = this.runtime.counters.event++;
    this.queue.updatedAt = this.isoNow;
    this.tx.put('queues', [id], this.queue);
    this.tx.put('events', [id, seq], { seq, at: this.isoNow, input });
    this.metrics.commit(seq);
    const view = { tx: this.tx, queue: this.queue, now: this.now, enqueuedPr: (n: number) => this.prs.enqueued(n) };
    this.estimatesDue = recordEstimateEnds(view, moved);
    return seq;
  }

  /**
   * `stateLabelsEnabled`: one label effect per PR whose state this transaction changed (however many moves it made),
   * decided with the transaction, so the label follows the state through the outbox in order.
   */
  private stateLabels(): void {
    if (this.queue.settings.stateLabelsEnabled !== true) return;
    for (const [number, before] of this.statesBefore) {
      const state = this.actors.prs.get(number)?.record.state;
      if (state !== undefined && state !== before)
        this.out.effect({ kind: 'stateLabel', repo: this.queue.repo, number, state });
    }
  }

  /** After the store committed: what this transaction changed or read becomes the queue's working set. */
  absorbInto(workingSet: QueueCache): void {
    workingSet.absorb(this.queue, this.queueSnapshot, this.actors.prs, this.actors.runs, this.prs.targets);
    this.metrics.committed();
  }
}
