/**
 * The reads of queues as a whole, held by the façade (engine.ts) and built from what they need, not from it: the
 * store, where a queue's records come from (its working set when live, else the store: queueReads.ts) and the clock.
 * Each read is one read transaction.
 */
import type { QueueInput } from './model/events.js';
import type { PullRequestRecord } from './model/pullRequests.js';
import type { QueueRecord, RepoRef } from './model/queues.js';
import type { QueueFilter, QueueKey } from './engineTypes.js';
import { findQueue, listQueues, queuesOfRepo } from './queueIndex.js';
import * as reads from './queueReads.js';
import type { Clock } from './runtime/clock.js';
import type { Store } from './store/store.js';
import { estimateQueue, type MergeEstimate } from './estimate/index.js';

export class QueueViews {
  constructor(
    private readonly store: Store,
    /** Where a queue's record comes from: its working set when live, else the store. */
    private readonly queues: reads.QueueSource,
    private readonly clock: Clock,
  ) {}

  /** How many PRs the queue holds, ready or not (from its working set when that is live). */
  queueDepth(key: QueueKey): number {
    return this.store.read((tx) => {
      const { runtime } = findQueue(tx, key, this.queues.load);
      return runtime.lineup.length + runtime.waiting.length;
    });
  }

  /** The queue and its enqueued PRs, from its working set when that is current (the records are not to be changed). */
  getQueue(key: QueueKey): { queue: QueueRecord; enqueued: PullRequestRecord[] } {
    return this.store.read((tx) => reads.readQueue(tx, this.queues, key));
  }

  /** When each ready PR of the queue will merge (median and 90th percentile, ms): estimate/index.ts. */
  estimates(key: QueueKey): Map<number, MergeEstimate> {
    return this.store.read((tx) => {
      const { queue, enqueued } = reads.readQueue(tx, this.queues, key);
      const runOf = (runId: string) => reads.readRunRecord(tx, this.queues, queue.id, runId);
      return estimateQueue(tx, queue, enqueued, runOf, this.clock.now());
    });
  }

  /** Every change of the queue's settings, oldest first: when, by which token (when one), and the settings sent. */
  settingsHistory(key: QueueKey): reads.SettingsChange[] {
    return this.store.read((tx) => reads.readSettingsHistory(tx, key));
  }

  /** The organization's queues, optionally of one host or repository, ordered by host, owner, name and branch. */
  listQueues(org: string, filter: QueueFilter = {}): QueueRecord[] {
    return this.store.read((tx) => listQueues(tx, org, filter));
  }

  /** Every organization's queues of a repository (a git host's webhook names the repository, not the organization). */
  queuesOfRepo(repo: RepoRef): QueueRecord[] {
    return this.store.read((tx) => queuesOfRepo(tx, repo));
  }

  /** The queue's event log, in order. */
  eventLog(queueId: string): { seq: number; at: string; input: QueueInput }[] {
    return this.store.read((tx) => reads.readEventLog(tx, queueId));
  }
}
