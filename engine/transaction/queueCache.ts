/**
 * What a queue transaction reads through and hands back: the queue's working set as the transaction sees it
 * (the runtime keeps one per queue across transactions: runtime/workingSet.ts), and what else is written with the
 * transaction (the runtime passes in the metrics recorder: metrics/recorder.ts). Declared here, on the side that
 * uses them, so that the transaction imports nothing of the runtime or of metrics.
 */
import type { PullRequestEvent } from '../../machines/index.js';
import type { PullRequestState } from '../../machines/vocabulary.js';
import type { ImpactedTargetsRecord } from '../model/impactedTargets.js';
import type { Snapshot } from '../model/machineSnapshots.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
import type { TestRunRecord } from '../model/testRuns.js';
import type { PlanPullRequest } from '../planner/planner.js';
import type { WriteTx } from '../store/store.js';

export interface Actor<R> {
  record: R;
  snapshot: Snapshot;
}

export interface CachedTargets {
  sha: string;
  record: ImpactedTargetsRecord | undefined;
}

export interface KeptView {
  record: PullRequestRecord;
  parallel: boolean;
  view: PlanPullRequest;
}

/** A queue's working set, as a transaction reads through it (copy-on-write) and, once committed, hands back to it. */
export interface QueueCache {
  readonly prs: Map<number, Actor<PullRequestRecord>>;
  readonly runs: Map<string, Actor<TestRunRecord>>;
  readonly queueSnapshot: Snapshot | undefined;
  readonly planViews: Map<number, KeptView>;
  /** Whether the set is the state of the queue as the store holds it now. */
  current(queue: QueueRecord): boolean;
  /** The targets read for the PR's head `sha`, if the set holds them (`{ record: undefined }`: none uploaded). */
  targetsAt(number: number, sha: string): CachedTargets | undefined;
  /** After the store committed: what the transaction changed or read. */
  absorb(
    queue: QueueRecord,
    queueSnapshot: Snapshot,
    prs: Iterable<[number, Actor<PullRequestRecord>]>,
    runs: Iterable<[string, Actor<TestRunRecord>]>,
    targets: Iterable<[number, CachedTargets | undefined]>,
  ): void;
}

/** What the transaction tells the recorder written with it (metrics): moves, runs, the commit. */
export interface TxRecorder {
  /** A PR's machine moved from `from` to `pr.state` with `event` (the record already shows the new state). */
  prMoved(pr: PullRequestRecord, from: PullRequestState, event: PullRequestEvent): void;
  runStarted(run: TestRunRecord): void;
  runFinished(runId: string): void;
  /** The transaction writes its input as event `eventSeq`: the recorder writes what it gathered. */
  commit(eventSeq: number): void;
  /** After the store committed: what the recorder keeps between transactions takes in what it wrote. */
  committed(): void;
}

/**
 * Makes the recorder of one transaction: `runOf` is the queue's run as the transaction sees it; `current` whether the
 * working set it reads through is current (else the recorder reads the store).
 */
export type TxRecorderFactory = (
  tx: WriteTx,
  queue: QueueRecord,
  now: number,
  runOf: (runId: string) => TestRunRecord | undefined,
  current: boolean,
) => TxRecorder;
