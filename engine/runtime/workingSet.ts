/**
 * A queue's working set, kept in memory across transactions: the machine snapshots already restored and the records
 * of its enqueued PRs and active runs, the queue machine's snapshot, and the impacted targets read for its PRs. A
 * transaction reads through it and copies what it changes (copy-on-write), so a transaction that throws leaves it as
 * it was; once the store committed, what the transaction changed replaces what was there.
 *
 * It belongs to one version of the queue: the queue record's event counter, which every transaction of the queue
 * increments. A transaction whose queue record (read from the store) has another version — the store was changed by
 * another process, or restored after a crash — finds no working set and reads the store, and the set is rebuilt from
 * what it read.
 *
 * The set also keeps the queue record as the last transaction committed it, so that a transaction need not parse it
 * again: `liveIn` tells, from the keys at the end of the queue's event log (every commit appends one event at the
 * version it reaches), whether the store still holds that version without reading the record.
 */
import { fromStored, type Snapshot } from '../model/machineSnapshots.js';
import { cloneJson } from '../model/cloneJson.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { QueueRecord, QueueRuntime } from '../model/queues.js';
import type { TestRunRecord } from '../model/testRuns.js';
import type { ReadTx } from '../store/store.js';
import type { MetricsCache } from '../metrics/recorder.js';
import type { Actor, CachedTargets, KeptView, QueueCache } from '../transaction/queueCache.js';

export type { Actor, CachedTargets, KeptView } from '../transaction/queueCache.js';

export class WorkingSet implements QueueCache {
  readonly prs = new Map<number, Actor<PullRequestRecord>>();
  readonly runs = new Map<string, Actor<TestRunRecord>>();
  /** Impacted targets read for a PR's head SHA (record undefined: none uploaded for that head). */
  readonly targets = new Map<number, CachedTargets>();
  queueSnapshot: Snapshot | undefined;
  /**
   * The planner's view of each PR, made once: valid while the PR's record is the one it was made of (records in the
   * set are never changed in place), its targets were not read or uploaded again, and the mode is the same.
   */
  readonly planViews = new Map<number, KeptView>();
  /** The queue's metrics totals and its PRs' metrics clocks, read once, then kept (metrics/recorder.ts). */
  readonly metrics: MetricsCache = { totals: undefined, clocks: new Map() };

  constructor(
    readonly queueId: string,
    /** The queue record's event counter this set is the state of. */
    public version: number,
    /** The queue record of that version (never changed in place: a transaction copies it). */
    public queue: QueueRecord,
  ) {}

  /**
   * Whether the store holds this set's version of the queue, asked of the event log rather than the queue record:
   * every commit of the queue appends the event numbered with the version it leaves behind minus one, so the set is
   * current when the last event is number `version - 1`. A commit by another process appends `version` or more; a
   * store restored to an older state lacks `version - 1`. (If retention cut the log to nothing, the answer is no, and
   * the caller reads the record, as it always may.)
   */
  liveIn(tx: ReadTx): boolean {
    if (this.version < 1) return false;
    let last: number | undefined;
    let count = 0;
    for (const { key } of tx.scan('events', { prefix: [this.queueId], start: [this.queueId, this.version - 1], limit: 2 })) {
      last = key[1] as number;
      count++;
    }
    return count === 1 && last === this.version - 1;
  }

  /** The targets read for the PR's head `sha`, if this set holds them (`{ record: undefined }`: none uploaded). */
  targetsAt(number: number, sha: string): CachedTargets | undefined {
    const cached = this.targets.get(number);
    return cached !== undefined && cached.sha === sha ? cached : undefined;
  }

  /** The working set of the queue as the store holds it: its enqueued PRs, active runs and queue machine. */
  static rebuild(tx: ReadTx, queue: QueueRecord): WorkingSet {
    // A copy: the caller's record may be changed by the transaction that asked, which may yet fail.
    const set = new WorkingSet(queue.id, queue.runtime.counters.event, cloneJson(queue));
    const stored = tx.get('actors', [queue.id, 'queue']);
    if (stored !== undefined) set.queueSnapshot = fromStored('queue', stored);
    for (const number of [...queue.runtime.lineup, ...queue.runtime.waiting]) {
      const record = tx.get('pullRequests', [queue.id, number]);
      const snapshot = tx.get('actors', [queue.id, 'pr', number]);
      if (record !== undefined && snapshot !== undefined) set.prs.set(number, { record, snapshot: fromStored('pullRequest', snapshot, record) });
    }
    for (const id of queue.runtime.activeRuns) {
      const record = tx.get('testRuns', [queue.id, id]);
      const snapshot = tx.get('actors', [queue.id, 'run', id]);
      if (record !== undefined && snapshot !== undefined) set.runs.set(id, { record, snapshot: fromStored('testRun', snapshot) });
    }
    return set;
  }

  /** Whether this set is the state of the queue as the store holds it now. */
  current(queue: QueueRecord): boolean {
    return queue.id === this.queueId && queue.runtime.counters.event === this.version;
  }

  /**
   * Takes in what a committed transaction changed or read, and lets go of what no longer belongs: PRs that left the
   * queue and runs that ended (read from the store again if asked for).
   */
  absorb(
    queue: QueueRecord,
    queueSnapshot: Snapshot,
    prs: Iterable<[number, Actor<PullRequestRecord>]>,
    runs: Iterable<[string, Actor<TestRunRecord>]>,
    targets: Iterable<[number, CachedTargets | undefined]>,
  ): void {
    this.version = queue.runtime.counters.event;
    this.queue = queue;
    this.queueSnapshot = queueSnapshot;
    // A transaction touches a few PRs: looking each up in the line-up costs less than a set of the whole queue.
    const { lineup, waiting } = queue.runtime;
    const enqueued = (number: number) => lineup.includes(number) || waiting.includes(number);
    for (const [number, actor] of prs) {
      if (enqueued(number)) this.prs.set(number, actor);
      else {
        this.prs.delete(number);
        this.targets.delete(number);
        this.planViews.delete(number);
      }
    }
    const active = queue.runtime.activeRuns;
    for (const [id, actor] of runs) {
      if (active.includes(id)) this.runs.set(id, actor);
      else this.runs.delete(id);
    }
    for (const [number, cached] of targets) {
      this.planViews.delete(number);
      if (cached === undefined || !enqueued(number)) this.targets.delete(number);
      else this.targets.set(number, cached);
    }
  }
}

/**
 * A copy of a runtime that a transaction may change: its lists, counters and bisections are copied; the likelihood
 * model is shared, as training replaces it (transaction/likelihoodTx.ts) rather than changing it in place. Cheaper than
 * a deep copy of the model, which every transaction would otherwise pay for.
 */
export function copyRuntime(runtime: QueueRuntime): QueueRuntime {
  return {
    ...runtime,
    lineup: runtime.lineup.slice(),
    waiting: runtime.waiting.slice(),
    activeRuns: runtime.activeRuns.slice(),
    merged: runtime.merged.slice(),
    bisections: cloneJson(runtime.bisections),
    counters: { ...runtime.counters },
  };
}
