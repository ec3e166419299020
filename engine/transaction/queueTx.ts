/**
 * One queue inside one store transaction: its record, the PR and run actors it touches, and what the transaction
 * decides (effects, timers, timeline lines). Machines move only through `sendPr`, `sendRun` and `sendQueue`;
 * `commit` writes every snapshot and record that changed plus one event to the queue's log, and what metrics need of
 * the transaction (metrics/recorder.ts).
 *
 * It reads through the queue's working set (workingSet.ts) when the set is current, else from the store, and owns
 * what it changes: an actor is copied the first time the transaction changes it (markPr, sendPr, markRun,
 * sendRun), so that the working set is untouched until the store has committed (`absorbInto`).
 */
import type { PullRequestContext, PullRequestMerge, QueueContext, TestRunContext } from '../../machines/index.js';
import type { PullRequestState, QueueState, TestRunStatus } from '../../machines/vocabulary.js';
import { fromStored, initial, step, toStored, type Snapshot, type StoredRecordFacts } from '../runtime/actorStore.js';
import type { Effect } from '../model/effects.js';
import type { QueueInput } from '../model/events.js';
import type { FailurePredictor } from '../model/likelihood.js';
import { getTargets, type ImpactedTargetsRecord } from '../model/impactedTargets.js';
import type { PullRequestEvent, PullRequestMove, QueueEvent, TestRunEvent } from '../../machines/index.js';
import { PR_MOVES } from './prMoves.js';
import { MetricsRecorder } from '../metrics/recorder.js';
import type { PullRequestRecord, TimelineEntry } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
import { timelineLine, type TimelineText } from '../model/texts.js';
import type { TestRunRecord } from '../model/runs.js';
import type { StoreSchema, WriteTx } from '../store/store.js';
import type { Actor, CachedTargets, WorkingSet } from '../runtime/workingSet.js';
import type { PlanPullRequest } from '../planner/planner.js';
import { cloneJson } from '../runtime/cloneJson.js';

/** Timer changes to apply to the scheduler after commit. */
export interface TimerChange {
  name: string;
  dueAt: number | null;
}

export class QueueTx {
  /** Actors this transaction owns: read from the store, created, or copied from the working set to be changed. */
  private readonly prs = new Map<number, Actor<PullRequestRecord>>();
  private readonly runs = new Map<string, Actor<TestRunRecord>>();
  private readonly dirtyPrs = new Set<number>();
  private readonly dirtyRuns = new Set<string>();
  private queueSnapshot: Snapshot;
  private queueDirty = false;
  private readonly targets = new Map<number, CachedTargets | undefined>();
  /** The queue's working set, when it is the state of the queue this transaction starts from. */
  private readonly cache: WorkingSet | undefined;
  readonly effects: Effect[] = [];
  readonly timerChanges: TimerChange[] = [];
  readonly isoNow: string;
  /** The state each PR was in before this transaction first moved it (null: it entered the queue in it). */
  private readonly statesBefore = new Map<number, PullRequestState | null>();
  /** A failure predictor that replaces the likelihood model (the simulator's benchmarks: see FailurePredictor). */
  predictor: FailurePredictor | undefined;
  /** What metrics need of this transaction, written with it. */
  private readonly metrics: MetricsRecorder;

  constructor(
    readonly tx: WriteTx,
    readonly queue: QueueRecord,
    readonly now: number,
    workingSet?: WorkingSet,
  ) {
    this.isoNow = new Date(now).toISOString();
    this.cache = workingSet?.current(queue) === true ? workingSet : undefined;
    const cached = this.cache?.queueSnapshot;
    const stored = cached === undefined ? tx.get('actors', [queue.id, 'queue']) : undefined;
    this.queueSnapshot = cached ?? (stored === undefined ? initial('queue', { mode: queue.settings.mode }) : fromStored('queue', stored));
    this.metrics = new MetricsRecorder(tx, queue, now, (id) => this.run(id), this.cache?.metrics);
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
    this.queueSnapshot = step('queue', this.queueSnapshot, event);
    this.queue.state = this.queueState;
    // Settings are replaced, never changed in place: the working set shares them with the record it keeps.
    if (this.queue.settings.mode !== this.queueContext.mode) this.queue.settings = { ...this.queue.settings, mode: this.queueContext.mode };
    this.queueDirty = true;
  }

  canQueue(event: QueueEvent): boolean {
    return this.queueSnapshot.can(event);
  }

  touchQueue(): void {
    this.queueDirty = true;
  }

  /** The impacted targets uploaded for the PR's current head SHA (read once, then kept in the working set). */
  targetsOf(number: number): ImpactedTargetsRecord | undefined {
    const sha = this.pr(number)?.sha ?? '';
    const owned = this.targets.get(number);
    const known = this.targets.has(number) ? (owned?.sha === sha ? owned : undefined) : this.cache?.targetsAt(number, sha);
    if (known !== undefined) return known.record;
    const record = getTargets(this.tx, this.queue.id, number, sha);
    this.targets.set(number, { sha, record });
    return record;
  }

  /** Forgets what targetsOf read for the PR (its targets were just uploaded). */
  forgetTargets(number: number): void {
    this.targets.set(number, undefined);
  }

  // Pull requests

  pr(number: number): PullRequestRecord | undefined {
    return this.prActor(number)?.record;
  }

  /**
   * The PR if it is enqueued (in the line-up or waiting), without reading the store: the working set holds every
   * enqueued PR, so a PR it does not hold has left the queue.
   */
  enqueuedPr(number: number): PullRequestRecord | undefined {
    return (this.prs.get(number) ?? this.cache?.prs.get(number))?.record;
  }

  prState(number: number): PullRequestState | undefined {
    return this.prActor(number)?.record.state;
  }

  requirePr(number: number): PullRequestRecord {
    const record = this.pr(number);
    if (record === undefined) throw new Error(`PR ${number} of queue ${this.queue.id} has no record`);
    return record;
  }

  /** A new queue entry for the PR: a fresh machine in NOT_READY. */
  enterPr(record: PullRequestRecord): void {
    this.prs.set(record.number, { record, snapshot: initial('pullRequest', { number: record.number }) });
    this.dirtyPrs.add(record.number);
    this.statesBefore.set(record.number, null);
  }

  /**
   * Moves the PR's machine; the record shows the new snapshot (its projection: state, run, reason, merge, group,
   * tested base, runs behind), then the moves the transition named follow (prMoves.ts), in the order named.
   */
  sendPr(number: number, event: PullRequestEvent): PullRequestRecord {
    const actor = this.ownPr(number);
    if (actor === undefined) throw new Error(`PR ${number} of queue ${this.queue.id} has no actor`);
    const before = actor.snapshot.value;
    const moves: string[] = [];
    actor.snapshot = step('pullRequest', actor.snapshot, event, moves);
    const context = actor.snapshot.context as PullRequestContext;
    actor.record.state = actor.snapshot.value as PullRequestState;
    actor.record.runId = context.runId;
    actor.record.reason = context.reason;
    // The merge under way is the machine's; the record shows it (and, once merged, how).
    actor.record.mergeRequested = context.merge !== undefined && actor.snapshot.status === 'active';
    actor.record.mergedBy = context.merge?.by ?? null;
    if (actor.snapshot.value !== before) {
      if (!this.statesBefore.has(number)) this.statesBefore.set(number, before as PullRequestState);
      actor.record.stateChangedAt = this.isoNow;
      // Metrics count the move in the queue type the entry was in: a move that leaves its group is a bisection's.
      this.metrics.prMoved(actor.record, before as PullRequestState, event);
    }
    actor.record.bisectionId = context.bisection?.id ?? null;
    actor.record.group = context.bisection?.group ?? null;
    actor.record.testedBase = (context.testedBase as number[] | undefined) ?? null;
    actor.record.runsBehindEnded = context.runsBehindEnded ?? 0;
    // Absent from the record until the machine first counts or resets it, as before it was the machine's.
    if (context.runsBehindFailed !== undefined) actor.record.runsBehindFailed = context.runsBehindFailed;
    this.dirtyPrs.add(number);
    for (const move of moves) PR_MOVES[move as PullRequestMove](this, number, event);
    return actor.record;
  }

  /** Whether the PR's machine takes `event` now, its guards asked (false once it left the queue). */
  canPr(number: number, event: PullRequestEvent): boolean {
    const snapshot = this.prActor(number)?.snapshot;
    return snapshot !== undefined && snapshot.status === 'active' && snapshot.can(event);
  }

  /**
   * Whether the enqueued PR's machine takes `event` now (false for a PR not enqueued): asked of the working set
   * without reading the store, as a PR the working set does not hold has left the queue.
   */
  canEnqueuedPr(number: number, event: PullRequestEvent): boolean {
    const snapshot = (this.prs.get(number) ?? this.cache?.prs.get(number))?.snapshot;
    return snapshot !== undefined && snapshot.status === 'active' && snapshot.can(event);
  }

  /** The merge under way (or, once merged, done) for the PR, as its machine holds it. */
  prMerge(number: number): PullRequestMerge | undefined {
    return (this.prActor(number)?.snapshot.context as PullRequestContext | undefined)?.merge;
  }

  markPr(number: number): PullRequestRecord {
    const actor = this.ownPr(number);
    if (actor === undefined) throw new Error(`PR ${number} of queue ${this.queue.id} has no record`);
    this.dirtyPrs.add(number);
    return actor.record;
  }

  /** A line of the PR's timeline: its text is one of model/texts.ts. */
  timeline(number: number, text: TimelineText, extra: { runId?: string; sha?: string } = {}): void {
    const pr = this.requirePr(number);
    const entry: TimelineEntry = { at: this.isoNow, entryId: pr.id, ...timelineLine(text), ...extra };
    this.tx.put('timeline', [this.queue.id, number, this.runtime.counters.timeline++], entry);
  }

  // Test runs

  run(id: string): TestRunRecord | undefined {
    return this.runActor(id)?.record;
  }

  requireRun(id: string): TestRunRecord {
    const record = this.run(id);
    if (record === undefined) throw new Error(`run ${id} of queue ${this.queue.id} has no record`);
    return record;
  }

  /** Whether the run exists and its machine is still in progress. */
  runInProgress(id: string): boolean {
    return this.runActor(id)?.snapshot.status === 'active';
  }

  runContext(id: string): TestRunContext {
    const actor = this.runActor(id);
    if (actor === undefined) throw new Error(`run ${id} has no actor`);
    return actor.snapshot.context as TestRunContext;
  }

  createRun(record: TestRunRecord, deadlineAt: number): void {
    const snapshot = initial('testRun', { runId: record.id, requiredStatuses: record.requiredStatuses, deadlineAt });
    this.runs.set(record.id, { record, snapshot });
    this.dirtyRuns.add(record.id);
    this.metrics.runStarted(record);
  }

  /** Moves the run's machine; true when it reached a final status with this event. */
  sendRun(id: string, event: TestRunEvent): boolean {
    const actor = this.ownRun(id);
    if (actor === undefined) throw new Error(`run ${id} has no actor`);
    if (actor.snapshot.status === 'done') return false;
    if (!actor.snapshot.can(event)) return false;
    actor.snapshot = step('testRun', actor.snapshot, event);
    const context = actor.snapshot.context as TestRunContext;
    actor.record.status = actor.snapshot.value as TestRunStatus;
    actor.record.reason = context.reason;
    this.dirtyRuns.add(id);
    if (actor.snapshot.status !== 'done') return false;
    actor.record.endedAt = this.isoNow;
    this.metrics.runFinished(id);
    return true;
  }

  markRun(id: string): TestRunRecord {
    const actor = this.ownRun(id);
    if (actor === undefined) throw new Error(`run ${id} of queue ${this.queue.id} has no record`);
    this.dirtyRuns.add(id);
    return actor.record;
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
    for (const number of this.dirtyPrs) {
      const actor = this.prs.get(number);
      if (actor === undefined) continue;
      this.tx.put('pullRequests', [id, number], actor.record);
      this.tx.put('actors', [id, 'pr', number], toStored('pullRequest', actor.snapshot));
    }
    for (const runId of this.dirtyRuns) {
      const actor = this.runs.get(runId);
      if (actor === undefined) continue;
      this.tx.put('testRuns', [id, runId], actor.record);
      this.tx.put('actors', [id, 'run', runId], toStored('testRun', actor.snapshot));
    }
    this.stateLabels();
    for (const effect of this.effects) {
      this.tx.put('outbox', [id, this.runtime.counters.effect++], { effect, attempts: 0, decidedAt: this.now });
    }
    if (this.queueDirty) this.tx.put('actors', [id, 'queue'], toStored('queue', this.queueSnapshot));
    const seq = this.runtime.counters.event++;
    this.queue.updatedAt = this.isoNow;
    this.tx.put('queues', [id], this.queue);
    this.tx.put('events', [id, seq], { seq, at: this.isoNow, input });
    this.metrics.commit(seq);
    return seq;
  }

  /**
   * The planner's view of a PR this transaction has neither changed nor read targets for, as the working set keeps
   * it (made by `make` when it has none; the view of a PR this transaction touched is made afresh each time).
   */
  planView(number: number, make: (record: PullRequestRecord) => PlanPullRequest): PlanPullRequest {
    const parallel = this.queue.settings.mode === 'parallel';
    if (this.cache === undefined || this.prs.has(number) || this.targets.has(number)) return make(this.requirePr(number));
    const record = this.cache.prs.get(number)?.record;
    if (record === undefined) return make(this.requirePr(number));
    const kept = this.cache.planViews.get(number);
    if (kept !== undefined && kept.record === record && kept.parallel === parallel) return kept.view;
    const view = make(record);
    // Reading its targets (in make) may have read the store: then the view is made again next time.
    if (!this.targets.has(number)) this.cache.planViews.set(number, { record, parallel, view });
    return view;
  }

  /**
   * `stateLabelsEnabled`: one label effect per PR whose state this transaction changed (however many moves it made),
   * decided with the transaction, so the label follows the state through the outbox in order.
   */
  private stateLabels(): void {
    if (this.queue.settings.stateLabelsEnabled !== true) return;
    for (const [number, before] of this.statesBefore) {
      const state = this.prs.get(number)?.record.state;
      if (state !== undefined && state !== before) this.effect({ kind: 'stateLabel', repo: this.queue.repo, number, state });
    }
  }

  /** After the store committed: what this transaction changed or read becomes the queue's working set. */
  absorbInto(workingSet: WorkingSet): void {
    workingSet.absorb(this.queue, this.queueSnapshot, this.prs, this.runs, this.targets);
    this.metrics.absorbInto(workingSet.metrics);
  }

  private prActor(number: number): Actor<PullRequestRecord> | undefined {
    return this.prs.get(number) ?? this.cache?.prs.get(number) ?? this.load(this.prs, number, 'pullRequests', 'pr', 'pullRequest');
  }

  private runActor(id: string): Actor<TestRunRecord> | undefined {
    return this.runs.get(id) ?? this.cache?.runs.get(id) ?? this.load(this.runs, id, 'testRuns', 'run', 'testRun');
  }

  /** The PR's actor, owned by this transaction (copied from the working set the first time). */
  private ownPr(number: number): Actor<PullRequestRecord> | undefined {
    return this.own(this.prs, this.prActor(number), number);
  }

  private ownRun(id: string): Actor<TestRunRecord> | undefined {
    return this.own(this.runs, this.runActor(id), id);
  }

  private own<K, R>(owned: Map<K, Actor<R>>, actor: Actor<R> | undefined, id: K): Actor<R> | undefined {
    if (actor === undefined || owned.get(id) === actor) return actor;
    // Snapshots are never changed, only replaced; records are changed in place, so they are copied.
    const copy = { record: cloneJson(actor.record), snapshot: actor.snapshot };
    owned.set(id, copy);
    return copy;
  }

  /** An actor's record and snapshot from the store, owned by this transaction. */
  private load<K extends string | number, C extends 'pullRequests' | 'testRuns'>(
    owned: Map<K, Actor<StoreSchema[C]>>,
    id: K,
    collection: C,
    kind: 'pr' | 'run',
    machine: 'pullRequest' | 'testRun',
  ): Actor<StoreSchema[C]> | undefined {
    const record = this.tx.get(collection, [this.queue.id, id]);
    const stored = this.tx.get('actors', [this.queue.id, kind, id]);
    if (record === undefined || stored === undefined) return undefined;
    const actor = { record, snapshot: fromStored(machine, stored, record as StoredRecordFacts) };
    owned.set(id, actor);
    return actor;
  }
}
