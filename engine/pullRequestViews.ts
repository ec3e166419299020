/**
 * The reads of a queue's pull requests and test runs, held by the façade (engine.ts) and built from what they need,
 * not from it: the store and where a queue's records come from (its working set when live: queueReads.ts). Each read
 * is one read transaction.
 */
import type { PullRequestRecord, TimelineEntry } from './model/pullRequests.js';
import type { TestRunRecord } from './model/testRuns.js';
import type { QueueKey, TestRunDetails } from './engineTypes.js';
import { findQueue } from './queueIndex.js';
import * as reads from './queueReads.js';
import type { Store } from './store/store.js';
import { readHistory, type HistoryPage, type HistoryQuery } from './history/endedIndex.js';

export class PullRequestViews {
  constructor(
    private readonly store: Store,
    /** Where a queue's records come from: its working set when live, else the store. */
    private readonly queues: reads.QueueSource,
  ) {}

  /** A PR of the queue, enqueued or ended, with its timeline when asked. */
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
}
