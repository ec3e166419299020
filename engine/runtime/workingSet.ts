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
 *
 * With several processes on one database, the set also hears what other processes commit to the queue (the keys each
 * commit changed: store/postgres/commitNotices.ts). When the commits heard since the set's version follow each other
 * without a gap up to the version the store holds, `catchUp` reads only what they changed instead of rebuilding the
 * set; anything else (a commit missed or heard out of order, one too large to list) leaves the rebuild.
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

/**
 * The keys another process's commit to the queue put and removed: the collection, then the key after the queue id;
 * with the due time of each timer it put, when the notice said them (the driver arms them without a read).
 */
export type HeardChanges =
  | {
      puts: readonly (readonly unknown[])[];
      removes: readonly (readonly unknown[])[];
      timers?: readonly (readonly [string, number])[];
    }
  | 'all';

/** What commits of other processes since the set's version changed, heard in order: the version they reach. */
interface Heard {
  reach: number;
  /** PRs whose record, snapshot, targets or metrics clock changed. */
  prs: Set<number>;
  runs: Set<string>;
  queueActor: boolean;
  totals: boolean;
  /** A commit was missed, heard out of order, or changed what the set keeps in a way it cannot follow. */
  broken: boolean;
}

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
  private heard: Heard | undefined;

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
    for (const { key } of tx.scan('events', {
      prefix: [this.queueId],
      start: [this.queueId, this.version - 1],
      limit: 2,
    })) {
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
      if (record !== undefined && snapshot !== undefined)
        set.prs.set(number, { record, snapshot: fromStored('pullRequest', snapshot, record) });
    }
    for (const id of queue.runtime.activeRuns) {
      const record = tx.get('testRuns', [queue.id, id]);
      const snapshot = tx.get('actors', [queue.id, 'run', id]);
      if (record !== undefined && snapshot !== undefined)
        set.runs.set(id, { record, snapshot: fromStored('testRun', snapshot) });
    }
    return set;
  }

  /** Another process committed to the queue: what it changed is noted, for `catchUp`. */
  hear(changes: HeardChanges): void {
    const heard = (this.heard ??= {
      reach: this.version,
      prs: new Set(),
      runs: new Set(),
      queueActor: false,
      totals: false,
      broken: false,
    });
    if (heard.broken) return;
    if (changes === 'all') {
      heard.broken = true;
      return;
    }
    // Every input appends its event at the version it started from: the commit moved the queue from there on.
    const seqs = changes.puts.filter(([coll]) => coll === 'events').map(([, seq]) => Number(seq));
    if (seqs.length === 0) {
      // No input (an effect's outbox entry removed): nothing the set keeps may change without one.
      if ([...changes.puts, ...changes.removes].some(([coll]) => KEPT.has(String(coll)))) heard.broken = true;
      return;
    }
    const first = Math.min(...seqs);
    const last = Math.max(...seqs);
    if (last < heard.reach) return; // already in the set: it committed or rebuilt past it
    if (first !== heard.reach) {
      heard.broken = true;
      return;
    }
    heard.reach = last + 1;
    for (const [coll, a, b] of [...changes.puts, ...changes.removes]) {
      if (coll === 'pullRequests' || coll === 'impactedTargets' || coll === 'metricsPrs') heard.prs.add(Number(a));
      else if (coll === 'testRuns') heard.runs.add(String(a));
      else if (coll === 'metricsTotals') heard.totals = true;
      else if (coll === 'actors') {
        if (a === 'queue') heard.queueActor = true;
        else if (a === 'pr') heard.prs.add(Number(b));
        else if (a === 'run') heard.runs.add(String(b));
        else heard.broken = true;
      }
    }
  }

  /**
   * Brings the set to the store's version of `queue` by reading only what the commits heard since changed, when they
   * reach that version without a gap; false when it cannot (the caller rebuilds the set).
   */
  catchUp(tx: ReadTx, queue: QueueRecord): boolean {
    const heard = this.heard;
    const version = queue.runtime.counters.event;
    if (
      heard === undefined ||
      heard.broken ||
      queue.id !== this.queueId ||
      heard.reach !== version ||
      version === this.version
    )
      return false;
    this.heard = undefined;
    this.version = version;
    this.queue = cloneJson(queue);
    if (heard.queueActor) {
      const stored = tx.get('actors', [queue.id, 'queue']);
      this.queueSnapshot = stored === undefined ? undefined : fromStored('queue', stored);
    }
    if (heard.totals) this.metrics.totals = undefined;
    for (const number of heard.prs) {
      this.prs.delete(number);
      this.targets.delete(number);
      this.planViews.delete(number);
      this.metrics.clocks.delete(number);
    }
    const enqueued = new Set([...queue.runtime.lineup, ...queue.runtime.waiting]);
    for (const number of [...this.prs.keys()]) if (!enqueued.has(number)) this.prs.delete(number);
    for (const number of enqueued) {
      if (this.prs.has(number)) continue;
      const record = tx.get('pullRequests', [queue.id, number]);
      const snapshot = tx.get('actors', [queue.id, 'pr', number]);
      if (record !== undefined && snapshot !== undefined)
        this.prs.set(number, { record, snapshot: fromStored('pullRequest', snapshot, record) });
    }
    for (const id of heard.runs) this.runs.delete(id);
    const active = new Set(queue.runtime.activeRuns);
    for (const id of [...this.runs.keys()]) if (!active.has(id)) this.runs.delete(id);
    for (const id of active) {
      if (this.runs.has(id)) continue;
      const record = tx.get('testRuns', [queue.id, id]);
      const snapshot = tx.get('actors', [queue.id, 'run', id]);
      if (record !== undefined && snapshot !== undefined)
        this.runs.set(id, { record, snapshot: fromStored('testRun', snapshot) });
    }
    return true;
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
    // What was heard before this commit is in the store it read; what others commit next is heard from here.
    this.heard = undefined;
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

/** The collections whose records the set keeps (a commit that changes them without an input cannot be followed). */
const KEPT: ReadonlySet<string> = new Set([
  'queues',
  'actors',
  'pullRequests',
  'testRuns',
  'impactedTargets',
  'metricsPrs',
  'metricsTotals',
]);

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
