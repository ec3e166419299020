/**
 * What the API and the dashboard read of one queue: the queue with its enqueued PRs, a PR with its timeline, every PR,
 * a test run with its PRs' titles and impacted targets, the settings history and the event log. Each read takes the
 * records from the queue's working set when that is current (`QueueSource`), else from the store.
 */
import type { QueueKey, TestRunDetails } from './engineTypes.js';
import { engineError } from './model/errors.js';
import type { QueueInput } from './model/events.js';
import { getTargets, unionOf } from './model/impactedTargets.js';
import type { PullRequestRecord, TimelineEntry } from './model/pullRequests.js';
import type { QueuePatch, QueueRecord } from './model/queues.js';
import type { TestRunRecord } from './model/testRuns.js';
import { describeQueue, findQueue, type LoadQueue } from './queueIndex.js';
import type { WorkingSet } from './runtime/workingSet.js';
import type { ReadTx } from './store/store.js';
import { ENDED_INDEX_COMPLETE, lastEndedOfBranch, readEndedSince } from './history/endedIndex.js';
import { FINAL_PULL_REQUEST_STATES, type PullRequestState } from '../machines/vocabulary.js';

/** Where a read finds a queue's records: its working set when that is current, else the store. */
export interface QueueSource {
  /** The queue's record (the live working set's: not to be changed). */
  load: LoadQueue;
  /** The queue's working set, if it is the state of the queue as the store holds it now. */
  current: (queue: QueueRecord) => WorkingSet | undefined;
}

export function readQueue(
  tx: ReadTx,
  source: QueueSource,
  key: QueueKey,
): { queue: QueueRecord; enqueued: PullRequestRecord[] } {
  const queue = findQueue(tx, key, source.load);
  const cached = source.current(queue);
  const numbers = [...queue.runtime.lineup, ...queue.runtime.waiting];
  return {
    queue,
    enqueued: numbers.flatMap(
      (number) => cached?.prs.get(number)?.record ?? tx.get('pullRequests', [queue.id, number]) ?? [],
    ),
  };
}

export function readPullRequest(
  tx: ReadTx,
  source: QueueSource,
  key: QueueKey,
  number: number,
  includeTimeline: boolean,
): { pr: PullRequestRecord; timeline?: TimelineEntry[] } {
  const queue = findQueue(tx, key, source.load);
  const pr = source.current(queue)?.prs.get(number)?.record ?? tx.get('pullRequests', [queue.id, number]);
  if (pr === undefined) throw engineError('pr_not_found', { number, queue: describeQueue(key) });
  if (!includeTimeline) return { pr };
  return { pr, timeline: [...tx.scan('timeline', { prefix: [queue.id, number] })].map((entry) => entry.value) };
}

export function readPullRequests(tx: ReadTx, key: QueueKey): PullRequestRecord[] {
  const queue = findQueue(tx, key);
  return [...tx.scan('pullRequests', { prefix: [queue.id] })].map((entry) => entry.value);
}

/**
 * The PR of `branch` the queue has: the one enqueued now, else the one that ended last (the index of ended PRs, newest
 * first, read until it is found); undefined when it has none.
 */
export function readPrOfBranch(tx: ReadTx, source: QueueSource, key: QueueKey, branch: string): number | undefined {
  const enqueued = readQueue(tx, source, key).enqueued.filter((pr) => pr.headBranch === branch);
  if (enqueued.length > 0) return Math.min(...enqueued.map((pr) => pr.number));
  if (tx.get('meta', ENDED_INDEX_COMPLETE) !== undefined)
    return lastEndedOfBranch(tx, findQueue(tx, key, source.load).id, branch);
  // A store whose index could not be filled (full at start): every record is read.
  const ended = readPullRequests(tx, key).filter((pr) => pr.headBranch === branch);
  return ended.sort((a, b) => Date.parse(b.stateChangedAt) - Date.parse(a.stateChangedAt))[0]?.number;
}

/** The head branch of PR `number` of the queue, where the git host said it; undefined for an unknown PR too. */
export function readHeadBranch(tx: ReadTx, source: QueueSource, key: QueueKey, number: number): string | undefined {
  const queue = findQueue(tx, key, source.load);
  return (source.current(queue)?.prs.get(number)?.record ?? tx.get('pullRequests', [queue.id, number]))?.headBranch;
}

/** What a listing filters on (pullRequestListing.ts): the states asked for, and when the PRs concluded (ms, inclusive). */
export interface ListingFilter {
  states?: readonly PullRequestState[];
  since?: number;
  until?: number;
}

/**
 * The records a listing with this filter can hold, read without walking every PR the queue ever had (90 days of a busy
 * queue is hundreds of thousands): the enqueued PRs when every state asked for is an enqueued one; the PRs that
 * concluded in the range, from the index of ended PRs (history/endedIndex.ts), when a range is given; else every
 * record. A superset of the listing's rows: pagePullRequests still filters, orders and pages them.
 */
export function readListingCandidates(
  tx: ReadTx,
  source: QueueSource,
  key: QueueKey,
  filter: ListingFilter,
): PullRequestRecord[] {
  if (filter.states?.every((state) => !FINAL_PULL_REQUEST_STATES.includes(state))) {
    return readQueue(tx, source, key).enqueued;
  }
  const ranged = filter.since !== undefined || filter.until !== undefined;
  // A store whose index could not be filled (full at start) has it incomplete: it is read whole.
  if (!ranged || tx.get('meta', ENDED_INDEX_COMPLETE) === undefined) return readPullRequests(tx, key);
  const queue = findQueue(tx, key, source.load);
  return readEndedSince(tx, queue.id, filter.since ?? 0, filter.until).flatMap(
    (ended) => tx.get('pullRequests', [queue.id, ended.number]) ?? [],
  );
}

export function readTestRun(tx: ReadTx, source: QueueSource, key: QueueKey, runId: string): TestRunDetails {
  const queue = findQueue(tx, key, source.load);
  const set = source.current(queue);
  const run = set?.runs.get(runId)?.record ?? tx.get('testRuns', [queue.id, runId]);
  if (run === undefined) throw engineError('test_run_not_found', { runId, queue: describeQueue(key) });
  const prs = new Map(
    [...run.basePrs, ...run.prs].map(
      (number) => [number, set?.prs.get(number)?.record ?? tx.get('pullRequests', [queue.id, number])] as const,
    ),
  );
  const titles = new Map(run.prs.map((number) => [number, prs.get(number)?.title ?? '']));
  const targetsOf = (number: number, sha: string) => {
    const cached = set?.targetsAt(number, sha);
    return (cached !== undefined ? cached.record : getTargets(tx, queue.id, number, sha))?.targets;
  };
  const targets = new Map([...prs].map(([number, pr]) => [number, targetsOf(number, pr?.sha ?? '')]));
  const details: TestRunDetails = { run, repo: queue.repo, titles };
  if ([...targets.values()].some((set) => set !== undefined)) {
    details.impactedTargets = {
      all: unionOf([...targets.values()]),
      tested: unionOf(run.prs.map((number) => targets.get(number))),
    };
  }
  return details;
}

/** A test run's record alone, by queue id. */
export function readRunRecord(
  tx: ReadTx,
  source: QueueSource,
  queueId: string,
  runId: string,
): TestRunRecord | undefined {
  const queue = source.load(tx, queueId);
  if (queue === undefined) return undefined;
  return source.current(queue)?.runs.get(runId)?.record ?? tx.get('testRuns', [queueId, runId]);
}

export interface SettingsChange {
  seq: number;
  at: string;
  change: 'created' | 'configured';
  by?: string;
  patch: QueuePatch;
}

export function readSettingsHistory(tx: ReadTx, key: QueueKey): SettingsChange[] {
  const queue = findQueue(tx, key);
  return [...tx.scan('events', { prefix: [queue.id] })].flatMap(({ value: { seq, at, input } }) =>
    input.type === 'created' || input.type === 'configured'
      ? [{ seq, at, change: input.type, patch: input.patch, ...(input.by === undefined ? {} : { by: input.by }) }]
      : [],
  );
}

export function readEventLog(tx: ReadTx, queueId: string): { seq: number; at: string; input: QueueInput }[] {
  return [...tx.scan('events', { prefix: [queueId] })].map((entry) => entry.value);
}
