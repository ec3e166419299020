/**
 * The engine's reads of queues (the façade's half that changes nothing): a queue, its PRs, runs, history, settings
 * and event log, each in one read transaction, from the queue's working set when that is live (queueReads.ts).
 * Engine (engine.ts) extends it with the inputs.
 */
import type { QueueInput } from './model/events.js';
import type { PullRequestRecord, TimelineEntry } from './model/pullRequests.js';
import type { QueueRecord, RepoRef } from './model/queues.js';
import type { TestRunRecord } from './model/testRuns.js';
import type { QueueFilter, QueueKey, TestRunDetails } from './engineTypes.js';
import { findQueue, listQueues, queuesOfRepo } from './queueIndex.js';
import * as reads from './queueReads.js';
import type { Scheduler } from './runtime/scheduler.js';
import type { Store } from './store/store.js';
import type { ServiceReads } from './serviceReads.js';
import type { TokenRecord } from './tokens.js';
import type { MetricsFilter, RenderedMetrics } from './metrics/index.js';
import type { StateCounts } from './reads.js';
import type { EndedPullRequest } from './history/endedIndex.js';
import { estimateQueue, type MergeEstimate } from './estimate/index.js';
import { readHistory, type HistoryPage, type HistoryQuery } from './history/endedIndex.js';

export abstract class EngineReads {
  protected abstract readonly store: Store;
  abstract readonly scheduler: Scheduler;
  /** Where a queue's record comes from: its working set when live, else the store. */
  protected abstract readonly queues: reads.QueueSource;
  /** What it answers of the service rather than of a queue (serviceReads.ts), each call passed on below. */
  protected abstract readonly service: ServiceReads;
  readonly durable = (): Promise<void> => this.service.durable();
  readonly pruneDeliveries = (retentionMs?: number, batch?: number): number =>
    this.service.pruneDeliveries(retentionMs, batch);
  readonly findToken = (presented: string): TokenRecord | undefined => this.service.findToken(presented);
  readonly token = (id: string): TokenRecord | undefined => this.service.token(id);
  readonly sessionKey = (): Buffer => this.service.sessionKey();
  readonly queueOrg = (queueId: string): string | undefined => this.service.queueOrg(queueId);
  readonly storeFull = (): string | undefined => this.service.storeFull();
  readonly ready = (): boolean => this.service.ready();
  readonly metrics = (org: string, filter?: MetricsFilter): Promise<RenderedMetrics> =>
    this.service.metrics(org, filter);
  readonly mergesInLastHour = (queueId: string): { at: number; inQueueMs: number | null }[] =>
    this.service.mergesInLastHour(queueId);
  readonly stateCounts = (org: string): StateCounts => this.service.stateCounts(org);
  readonly queueIds = (): string[] => this.service.queueIds();
  readonly endedSince = (queueId: string, since: number): EndedPullRequest[] => this.service.endedSince(queueId, since);

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
      return estimateQueue(
        tx,
        queue,
        enqueued,
        (runId) => reads.readRunRecord(tx, this.queues, queue.id, runId),
        this.scheduler.now(),
      );
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

  getSubmittedPullRequest(
    key: QueueKey,
    number: number,
    includeTimeline = false,
  ): { pr: PullRequestRecord; timeline?: TimelineEntry[] } {
    return this.store.read((tx) => reads.readPullRequest(tx, this.queues, key, number, includeTimeline));
  }

  /** The queue's ended PRs, newest first, a page at a time (history/endedIndex.ts). */
  history(key: QueueKey, query: HistoryQuery): HistoryPage | 'unknown cursor' {
    return this.store.read((tx) => readHistory(tx, findQueue(tx, key).id, query));
  }

  /**
   * The queue's pull requests, in it now or not, that a listing with this filter can hold (listPullRequests pages
   * them): without a filter, every one ever submitted; with one, read through the queue or the index of ended PRs.
   */
  listPullRequests(key: QueueKey, filter: reads.ListingFilter = {}): PullRequestRecord[] {
    return this.store.read((tx) => reads.readListingCandidates(tx, this.queues, key, filter));
  }

  /** The PR of a head branch the queue has (enqueued now, else the one that ended last), or undefined. */
  pullRequestOfBranch(key: QueueKey, branch: string): number | undefined {
    return this.store.read((tx) => reads.readPrOfBranch(tx, this.queues, key, branch));
  }

  /** The head branch of a PR, where the git host said it; undefined for a PR the queue never had too. */
  headBranchOf(key: QueueKey, number: number): string | undefined {
    return this.store.read((tx) => reads.readHeadBranch(tx, this.queues, key, number));
  }

  /** A test run, with the titles of the PRs it tests and, when any were uploaded, their impacted targets. */
  getTestRun(key: QueueKey, runId: string): TestRunDetails {
    return this.store.read((tx) => reads.readTestRun(tx, this.queues, key, runId));
  }

  /** A test run's record alone (what the simulator's CI asks when a run starts), from the working set when active. */
  testRun(queueId: string, runId: string): TestRunRecord | undefined {
    return this.store.read((tx) => reads.readRunRecord(tx, this.queues, queueId, runId));
  }

  /** The queue's event log, in order. */
  eventLog(queueId: string): { seq: number; at: string; input: QueueInput }[] {
    return this.store.read((tx) => reads.readEventLog(tx, queueId));
  }
}
