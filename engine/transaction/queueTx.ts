/**
 * One queue inside one store transaction: its record and machine, its PRs (moved only through `sendPr`, which then
 * does the moves the transition named: prMoves.ts), and what the transaction decides (effects, timers, timeline
 * lines); reads of its PRs and their targets are PrsTx's (prsTx.ts), its test runs and the actors of both kinds
 * RunsTx's (runsTx.ts, txActors.ts). `commit` writes every snapshot and record that changed plus one event to the
 * queue's log, and what metrics need of the transaction (metrics/recorder.ts).
 *
 * It reads through the queue's working set (workingSet.ts) when the set is current, else from the store, and owns
 * what it changes: an actor is copied the first time the transaction changes it (markPr, sendPr, markRun,
 * sendRun), so that the working set is untouched until the store has committed (`absorbInto`).
 */
import type { PullRequestContext, QueueContext } from '../../machines/index.js';
import type { PullRequestState, QueueState } from '../../machines/vocabulary.js';
import { fromStored, initial, step, toStored, type Snapshot } from '../model/machineSnapshots.js';
import type { Effect } from '../model/effects.js';
import type { QueueInput } from '../model/events.js';
import type { FailurePredictor } from '../model/likelihoodModel.js';
import type { PullRequestEvent, PullRequestMove, QueueEvent } from '../../machines/index.js';
import { PR_MOVES } from './prMoves.js';
import type { PullRequestRecord, TimelineEntry } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
import { timelineLine, type TimelineText } from '../model/texts.js';
import type { WriteTx } from '../store/store.js';
import type { QueueCache, TxRecorderFactory } from './queueCache.js';
import { PrsTx } from './prsTx.js';
import { BisectionActors } from './bisectionActors.js';
import { indexEnded } from '../history/endedIndex.js';
import { recordEstimateEnds } from '../estimate/index.js';
import { QueueNotices } from '../notifications/queueNotices.js';

/** Timer changes to apply to the scheduler after commit. */
export interface TimerChange {
  name: string;
  dueAt: number | null;
}

export class QueueTx extends PrsTx {
  private queueSnapshot: Snapshot;
  private queueDirty = false;
  readonly effects: Effect[] = [];
  readonly timerChanges: TimerChange[] = [];
  /** The state each PR was in before this transaction first moved it (null: it entered the queue in it). */
  private readonly statesBefore = new Map<number, PullRequestState | null>();
  /** Webhook events of this transaction, written at commit as one `notify` effect (notifications/queueNotices.ts). */
  private readonly notices = new QueueNotices();
  /** The machines of the queue's bisections, driven by their PRs' moves (bisectionActors.ts). */
  readonly bisections: BisectionActors;
  /** A failure predictor that replaces the likelihood model (the simulator's benchmarks: see FailurePredictor). */
  predictor: FailurePredictor | undefined;
  /** At commit: a PR of the line-up lacks an estimate sample, for the runtime's sampler (runtime/estimateSampler.ts). */
  estimatesDue = false;

  constructor(
    tx: WriteTx,
    queue: QueueRecord,
    now: number,
    workingSet: QueueCache | undefined,
    recorder: TxRecorderFactory,
  ) {
    super(tx, queue, now, workingSet?.current(queue) === true ? workingSet : undefined, recorder);
    this.bisections = new BisectionActors(tx, queue.id);
    const cached = this.cache?.queueSnapshot;
    const stored = cached === undefined ? tx.get('actors', [queue.id, 'queue']) : undefined;
    this.queueSnapshot =
      cached ?? (stored === undefined ? initial('queue', { mode: queue.settings.mode }) : fromStored('queue', stored));
  }

  get runtime() {
    return this.queue.runtime;
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
    this.notices.queueMoved(before, this.queueState);
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
    this.notices.prMoved(record, null);
  }

  /**
   * Moves the PR's machine; the record shows the new snapshot (its projection: state, run, reason, merge, group,
   * tested base, the failure policy's counters), then the moves the transition named follow (prMoves.ts), in the
   * order named.
   */
  sendPr(number: number, event: PullRequestEvent): PullRequestRecord {
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
      this.notices.prMoved(record, before);
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
    for (const move of moves) PR_MOVES[move as PullRequestMove](this, number, event);
    return record;
  }

  markPr(number: number): PullRequestRecord {
    const actor = this.actors.ownPr(number);
    if (actor === undefined) throw new Error(`PR ${number} of queue ${this.queue.id} has no record`);
    this.actors.changedPr(number);
    return actor.record;
  }

  /** A line of the PR's timeline: its text is one of model/texts.ts. */
  timeline(number: number, text: TimelineText, extra: { runId?: string; sha?: string } = {}): void {
    const pr = this.requirePr(number);
    const entry: TimelineEntry = { at: this.isoNow, entryId: pr.id, ...timelineLine(text), ...extra };
    this.tx.put('timeline', [this.queue.id, number, this.runtime.counters.timeline++], entry);
  }

  // Effects and timers

  effect(effect: Effect): void {
    this.effects.push(effect);
  }

  setTimer(name: string, dueAt: number): void {
    this.tx.put('timers', [this.queue.id, name], dueAt);
    this.timerChanges.push({ name, dueAt });
  }

  clearTimer(name: string): void {
    if (this.tx.remove('timers', [this.queue.id, name])) this.timerChanges.push({ name, dueAt: null });
  }

  /** Writes every changed snapshot and record, the outbox, and the event to the log. */
  commit(input: QueueInput): number {
    const id = this.queue.id;
    this.actors.write();
    this.bisections.write();
    indexEnded(
      this.tx,
      id,
      [...this.statesBefore.keys()].flatMap((number) => this.actors.prs.get(number)?.record ?? []),
    );
    this.stateLabels();
    const notify = this.notices.effect(this.tx, this.queue, this.runtime.counters.event, this.isoNow);
    if (notify !== undefined) this.effect(notify);
    for (const effect of this.effects) {
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
    this.estimatesDue = recordEstimateEnds(
      this,
      [...this.statesBefore.keys()].flatMap((number) => this.actors.prs.get(number)?.record ?? []),
    );
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
        this.effect({ kind: 'stateLabel', repo: this.queue.repo, number, state });
    }
  }

  /** After the store committed: what this transaction changed or read becomes the queue's working set. */
  absorbInto(workingSet: QueueCache): void {
    workingSet.absorb(this.queue, this.queueSnapshot, this.actors.prs, this.actors.runs, this.targets);
    this.metrics.committed();
  }
}
