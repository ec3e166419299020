/**
 * Records what metrics need, inside the queue's store transaction. The queue's working set (QueueTx) tells it of
 * every PR state change, every run that starts or finishes, and commits it with the rest: the time-keyed log, the
 * per-PR clocks and the cumulative totals are written in that same transaction (see records.ts).
 *
 * Durations are measured on the engine's clock from the PR's state changes:
 * - a PR's ready time counts every state of its queue entry but NOT_READY (PENDING, TESTING, TESTS_PASSED,
 *   PENDING_FAILURE);
 * - its wait is its ready time until it first starts TESTING (or, if it never tests, until it leaves the queue);
 * - its test time is its time in TESTING, over every run it was tested in;
 * - its time in queue is its ready time from entering the queue to leaving it.
 */
import type { PullRequestEvent } from '../../machines/index.js';
import { isEnqueued, type PullRequestState } from '../../machines/vocabulary.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
import type { TestRunRecord } from '../model/testRuns.js';
import type { WriteTx } from '../store/store.js';
import type { TxRecorder, TxRecorderFactory } from '../transaction/queueCache.js';
import { BATCH_SIZE_BUCKETS, DURATION_BUCKETS } from './families.js';
import { cloneJson } from '../model/cloneJson.js';
import {
  observeInto,
  readTotals,
  WINDOW_MS,
  type Conclusion,
  type MetricsLogEntry,
  type MetricsTotals,
  type PrClock,
  type QueueType,
  type RunEnding,
} from './records.js';
import { hasPullRequestTag, hasTestRunTag, PR_IS } from '../../machines/index.js';

/** How an entry ended, by the tag of the final state it reached (undefined: it has not ended). */
const conclusionOf = (state: PullRequestState): Conclusion | undefined =>
  PR_IS.merged(state) ? 'merged' : PR_IS.kicked(state) ? 'failed' : PR_IS.cancelled(state) ? 'cancelled' : undefined;

/** What a queue's working set keeps of its metrics between transactions; a recorder copies what it changes. */
export interface MetricsCache {
  totals: MetricsTotals | undefined;
  clocks: Map<number, PrClock>;
}

/**
 * The recorder of each transaction of a queue whose working set keeps `kept` (its metrics): read through when the set
 * is current, and given what the transaction wrote once the store committed.
 */
export const recordMetrics =
  (kept: MetricsCache): TxRecorderFactory =>
  (tx, queue, now, runOf, current) =>
    new MetricsRecorder(tx, queue, now, runOf, current ? kept : undefined, kept);

export class MetricsRecorder implements TxRecorder {
  private readonly entries: MetricsLogEntry[] = [];
  private readonly clocks = new Map<number, PrClock | null>();
  private readonly finishedRuns: string[] = [];
  private totals: MetricsTotals | undefined;
  private readonly bisectionsBefore: number;

  constructor(
    private readonly tx: WriteTx,
    private readonly queue: QueueRecord,
    private readonly now: number,
    /** The queue's run, as this transaction sees it. */
    private readonly runOf: (runId: string) => TestRunRecord | undefined,
    /** The queue's working set's metrics, when the set is current (else the store is read). */
    private readonly cache?: MetricsCache,
    /** The working set's metrics, which take in what this transaction wrote once the store committed. */
    private readonly keep?: MetricsCache,
  ) {
    this.bisectionsBefore = queue.runtime.counters.bisection;
  }

  /** A PR's machine moved from `from` to `pr.state` with `event` (the record already shows the new state). */
  prMoved(pr: PullRequestRecord, from: PullRequestState, event: PullRequestEvent): void {
    const to = pr.state;
    const type = this.typeOf(pr, from);
    const clock = this.clockOf(pr, from);
    const elapsed = Math.max(0, this.now - clock.since);
    if (!hasPullRequestTag(clock.state, 'notReady')) clock.readyMs += elapsed;
    if (hasPullRequestTag(clock.state, 'testing')) clock.testMs += elapsed;
    clock.state = to;
    clock.since = this.now;
    if (hasPullRequestTag(from, 'notReady') && !hasPullRequestTag(to, 'notReady') && isEnqueued(to))
      clock.becameReady = true;

    const totals = this.loadTotals();
    if (PR_IS.testing(to)) {
      clock.tested = true;
      this.endWait(clock, type);
    }
    // A failed batch going to bisection is a restart too (through PENDING_FAILURE, where it waited for its base).
    if ((PR_IS.testing(from) && PR_IS.waiting(to)) || event.type === 'BISECT') {
      this.entries.push({ kind: 'restarted', type });
      totals.restarts[type]++;
    }
    if (PR_IS.failing(from) && event.type !== 'BISECT' && (PR_IS.waiting(to) || PR_IS.merged(to))) {
      totals.rescues[PR_IS.waiting(to) ? 'retested' : 'merged']++;
    }

    const conclusion = conclusionOf(to);
    if (conclusion === undefined) return;
    if (clock.becameReady) this.endWait(clock, type);
    this.entries.push({
      kind: 'concluded',
      type,
      conclusion,
      inQueueMs: clock.complete && clock.becameReady ? clock.readyMs : null,
      testMs: clock.complete && clock.tested ? clock.testMs : null,
    });
    totals.conclusions[type][conclusion]++;
    const histograms = totals.histograms[type];
    if (clock.complete && clock.becameReady)
      observeInto(histograms.timeInQueueSeconds, DURATION_BUCKETS, clock.readyMs / 1000);
    if (clock.complete && clock.tested) observeInto(histograms.testSeconds, DURATION_BUCKETS, clock.testMs / 1000);
    if (event.type === 'MERGE' && event.direct === true) totals.directMerges++;
    else if (event.type === 'MERGE' && event.vouchedBy !== undefined) totals.optimisticMerges++;
    this.clocks.set(pr.number, null);
  }

  runStarted(run: TestRunRecord): void {
    this.entries.push({ kind: 'runStarted', type: run.kind, size: run.prs.length });
    const totals = this.loadTotals();
    totals.runsStarted[run.kind]++;
    observeInto(totals.histograms[run.kind].batchSize, BATCH_SIZE_BUCKETS, run.prs.length);
  }

  /** The run reached a final status in this transaction; it is read at commit, with whatever the transaction added. */
  runFinished(runId: string): void {
    this.finishedRuns.push(runId);
  }

  /** Writes this transaction's observations; `eventSeq` is the sequence number of the input being committed. */
  commit(eventSeq: number): void {
    const queueId = this.queue.id;
    for (const runId of this.finishedRuns) {
      const run = this.runOf(runId);
      if (run === undefined || hasTestRunTag(run.status, 'inProgress')) continue;
      const status = run.status as RunEnding;
      const runMs = Math.max(0, Date.parse(run.endedAt ?? '') - Date.parse(run.createdAt)) || 0;
      const totals = this.loadTotals();
      this.entries.push({ kind: 'runFinished', type: run.kind, status, runMs });
      totals.runsFinished[run.kind][status]++;
      totals.runMs[run.kind][status] += runMs;
      // Written by the flaky-test integration when a run passes because its only failures are quarantined tests.
      const quarantined = Array.isArray(run.quarantinedFailures) ? run.quarantinedFailures.length : 0;
      totals.quarantinedFailures[run.kind] += quarantined;
    }
    const bisections = this.queue.runtime.counters.bisection - this.bisectionsBefore;
    if (bisections > 0) this.loadTotals().bisections += bisections;

    // Whatever is older than the window can no longer be read: drop it (each entry is removed once, by a later commit).
    // Before this commit's entries are written, which are never that old: the scan then has no writes of its own to
    // merge in.
    const cutoff = this.now - WINDOW_MS + 1;
    if (cutoff > 0) {
      for (const { key } of [...this.tx.scan('metricsLog', { prefix: [queueId], end: [queueId, cutoff] })])
        this.tx.remove('metricsLog', key);
    }
    this.entries.forEach((entry, index) => {
      this.tx.put('metricsLog', [queueId, this.now, eventSeq, index], entry);
    });
    for (const [number, clock] of this.clocks) {
      if (clock === null) this.tx.remove('metricsPrs', [queueId, number]);
      else this.tx.put('metricsPrs', [queueId, number], clock);
    }
    if (this.totals !== undefined) this.tx.put('metricsTotals', [queueId], this.totals);
  }

  private endWait(clock: PrClock, type: QueueType): void {
    if (clock.waitObserved || !clock.complete) return;
    clock.waitObserved = true;
    this.entries.push({ kind: 'waited', type, waitMs: clock.readyMs });
    observeInto(this.loadTotals().histograms[type].waitSeconds, DURATION_BUCKETS, clock.readyMs / 1000);
  }

  /** Where the PR was when it moved: in the run it was testing in, else in a bisection or not. */
  private typeOf(pr: PullRequestRecord, from: PullRequestState): QueueType {
    if (PR_IS.testing(from) && pr.runId !== null) {
      const run = this.runOf(pr.runId);
      if (run !== undefined) return run.kind;
    }
    return pr.bisectionId !== null ? 'bisection' : 'main';
  }

  private clockOf(pr: PullRequestRecord, from: PullRequestState): PrClock {
    let clock = this.clocks.get(pr.number) ?? undefined;
    if (clock === undefined && !this.clocks.has(pr.number)) {
      const cached = this.cache?.clocks.get(pr.number);
      clock = cached !== undefined ? { ...cached } : this.tx.get('metricsPrs', [this.queue.id, pr.number]);
    }
    if (clock === undefined || clock.entryId !== pr.id) {
      // A new entry starts in NOT_READY, whose time never counts: its clock starts at its first move. An entry met
      // in another state began before metrics were recorded.
      clock = {
        entryId: pr.id,
        state: from,
        since: this.now,
        readyMs: 0,
        testMs: 0,
        becameReady: false,
        tested: false,
        waitObserved: false,
        complete: PR_IS.notReady(from) && pr.readyAt === null,
      };
    }
    this.clocks.set(pr.number, clock);
    return clock;
  }

  private loadTotals(): MetricsTotals {
    const cached = this.cache?.totals;
    this.totals ??=
      cached !== undefined ? cloneJson(cached) : readTotals(this.tx.get('metricsTotals', [this.queue.id]));
    return this.totals;
  }

  committed(): void {
    if (this.keep !== undefined) this.absorbInto(this.keep);
  }

  /** After the store committed: the totals and clocks this transaction wrote are the working set's from now on. */
  absorbInto(cache: MetricsCache): void {
    if (this.totals !== undefined) cache.totals = this.totals;
    for (const [number, clock] of this.clocks) {
      if (clock === null) cache.clocks.delete(number);
      else cache.clocks.set(number, clock);
    }
  }
}
