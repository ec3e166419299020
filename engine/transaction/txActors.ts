/**
 * The PR and run actors (record and machine snapshot) one queue transaction touches. They are read through the
 * queue's working set when it is current, else from the store (stored snapshots migrated with the record beside
 * them), and owned by the transaction the first time it changes one: a record is copied then, so that the working
 * set is untouched until the store has committed. `write` puts every changed record and snapshot.
 */
import type { MachineName } from '../../machines/index.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { TestRunRecord } from '../model/testRuns.js';
import { fromStored, toStored, type StoredRecordFacts } from '../model/machineSnapshots.js';
import { cloneJson } from '../model/cloneJson.js';
import type { Actor, QueueCache } from './queueCache.js';
import type { StoreSchema, WriteTx } from '../store/store.js';

export class TxActors {
  /** Actors this transaction owns: read from the store, created, or copied from the working set to be changed. */
  readonly prs = new Map<number, Actor<PullRequestRecord>>();
  readonly runs = new Map<string, Actor<TestRunRecord>>();
  private readonly dirtyPrs = new Set<number>();
  private readonly dirtyRuns = new Set<string>();

  constructor(
    private readonly tx: WriteTx,
    private readonly queueId: string,
    /** The queue's working set, when it is the state of the queue the transaction starts from. */
    private readonly cache: QueueCache | undefined,
  ) {}

  pr(number: number): Actor<PullRequestRecord> | undefined {
    return (
      this.prs.get(number) ??
      this.cache?.prs.get(number) ??
      this.load(this.prs, number, 'pullRequests', 'pr', 'pullRequest')
    );
  }

  /** The PR's actor if it is enqueued, without reading the store: the working set holds every enqueued PR. */
  enqueuedPr(number: number): Actor<PullRequestRecord> | undefined {
    return this.prs.get(number) ?? this.cache?.prs.get(number);
  }

  run(id: string): Actor<TestRunRecord> | undefined {
    return this.runs.get(id) ?? this.cache?.runs.get(id) ?? this.load(this.runs, id, 'testRuns', 'run', 'testRun');
  }

  /** A new actor of the transaction (a PR entering the queue), to be written. */
  addPr(actor: Actor<PullRequestRecord>): void {
    this.prs.set(actor.record.number, actor);
    this.dirtyPrs.add(actor.record.number);
  }

  addRun(actor: Actor<TestRunRecord>): void {
    this.runs.set(actor.record.id, actor);
    this.dirtyRuns.add(actor.record.id);
  }

  /** The PR's actor, owned by this transaction (copied from the working set the first time). */
  ownPr(number: number): Actor<PullRequestRecord> | undefined {
    return this.own(this.prs, this.pr(number), number);
  }

  ownRun(id: string): Actor<TestRunRecord> | undefined {
    return this.own(this.runs, this.run(id), id);
  }

  /** The owned PR's record and snapshot are to be written. */
  changedPr(number: number): void {
    this.dirtyPrs.add(number);
  }

  changedRun(id: string): void {
    this.dirtyRuns.add(id);
  }

  /** Puts every record and snapshot this transaction changed. */
  write(): void {
    for (const number of this.dirtyPrs) {
      const actor = this.prs.get(number);
      if (actor === undefined) continue;
      this.tx.put('pullRequests', [this.queueId, number], actor.record);
      this.tx.put('actors', [this.queueId, 'pr', number], toStored('pullRequest', actor.snapshot));
    }
    for (const runId of this.dirtyRuns) {
      const actor = this.runs.get(runId);
      if (actor === undefined) continue;
      this.tx.put('testRuns', [this.queueId, runId], actor.record);
      this.tx.put('actors', [this.queueId, 'run', runId], toStored('testRun', actor.snapshot));
    }
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
    machine: Extract<MachineName, 'pullRequest' | 'testRun'>,
  ): Actor<StoreSchema[C]> | undefined {
    const record = this.tx.get(collection, [this.queueId, id]);
    const stored = this.tx.get('actors', [this.queueId, kind, id]);
    if (record === undefined || stored === undefined) return undefined;
    const actor = { record, snapshot: fromStored(machine, stored, record as StoredRecordFacts) };
    owned.set(id, actor);
    return actor;
  }
}
