/**
 * The engine's façade: what the API, the dashboard, the CLI and the simulator call. Each call is an input to one queue
 * (one store transaction, run by the queue runtime: runtime/queueRuntime.ts) or a read. On start it restores every
 * queue this process drives from the store.
 *
 * Where the rest is: the types callers pass (engineTypes.ts), queues by key, created and deleted (queueIndex.ts), the
 * reads of one queue (queueReads.ts), effects done at the edge (runtime/performEffect.ts), the outbox and its retry
 * policy (runtime/outbox.ts, runtime/retryPolicy.ts), the store format (storeFormat.ts), and what it answers of the
 * service rather than of a queue (serviceReads.ts: deliveries, tokens, secrets, flaky tests).
 */
import { engineError } from './model/errors.js';
import { QUEUE_POLICY } from './model/policy.js';
import type { QueueInput } from './model/events.js';
import { putOutsideEffect, type OutsideEffect, type PutOutcome } from './runtime/outsideEffects.js';
import { digestOf, normalizeTargets, putTargets, type ImpactedTargets } from './model/impactedTargets.js';
import type { PullRequestRecord, TimelineEntry } from './model/pullRequests.js';
import type { QueuePatch, QueueRecord, RepoRef } from './model/queues.js';
import type { TestRunRecord } from './model/testRuns.js';
import type { CommitStatusInput, EngineOptions, QueueFilter, QueueKey, SubmitOptions, TestRunDetails } from './engineTypes.js';
import { SimGitHost } from './providers/sim/simGitHost.js';
import { externalCi, type CI, type GitHost } from './providers/types.js';
import { deleteQueueRecords, findQueue, listQueues, openNewQueue, prepareRepository, queuesOfRepo } from './queueIndex.js';
import * as reads from './queueReads.js';
import { SOLE_OWNER, type QueueOwnership } from './runtime/ownership.js';
import { QueueRuntime } from './runtime/queueRuntime.js';
import { WallScheduler, type Scheduler } from './runtime/scheduler.js';
import type { Clock } from './runtime/clock.js';
import type { WebhookInbox } from './deliveries.js';
import type { FlakyTests } from './flaky/index.js';
import type { TokenRecord } from './tokens.js';
import type { HeardChanges, WorkingSet } from './runtime/workingSet.js';
import type { Store } from './store/store.js';
import { checkStoreFormat } from './storeFormat.js';
import type { MetricsFilter, RenderedMetrics } from './metrics/index.js';
import type { StateCounts } from './reads.js';
import { ServiceReads } from './serviceReads.js';
import { estimateQueue, type MergeEstimate } from './estimate/index.js';
import { backfillEndedIndex, readHistory, type EndedPullRequest, type HistoryPage, type HistoryQuery } from './history/endedIndex.js';
import type { DeviceCodes } from './deviceCodes.js';
import { Webhooks } from './notifications/service.js';

export type { CommitStatusInput, EngineOptions, QueueFilter, QueueKey, SubmitOptions, TestRunDetails } from './engineTypes.js';

export { STORE_FORMAT, StoreFormatError } from './storeFormat.js';

export class Engine {
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  /** What it answers of the service rather than of a queue (serviceReads.ts): held, each call passed on below. */
  private readonly service: ServiceReads;
  readonly durable = (): Promise<void> => this.service.durable();
  readonly pruneDeliveries = (retentionMs?: number, batch?: number): number => this.service.pruneDeliveries(retentionMs, batch);
  readonly findToken = (presented: string): TokenRecord | undefined => this.service.findToken(presented);
  readonly token = (id: string): TokenRecord | undefined => this.service.token(id);
  readonly sessionKey = (): Buffer => this.service.sessionKey();
  readonly queueOrg = (queueId: string): string | undefined => this.service.queueOrg(queueId);
  readonly storeFull = (): string | undefined => this.service.storeFull();
  readonly ready = (): boolean => this.service.ready();
  readonly metrics = (org: string, filter?: MetricsFilter): Promise<RenderedMetrics> => this.service.metrics(org, filter);
  readonly mergesInLastHour = (queueId: string): { at: number; inQueueMs: number | null }[] => this.service.mergesInLastHour(queueId);
  readonly stateCounts = (org: string): StateCounts => this.service.stateCounts(org);
  readonly queueIds = (): string[] => this.service.queueIds();
  readonly endedSince = (queueId: string, since: number): EndedPullRequest[] => this.service.endedSince(queueId, since);
  readonly gitHost: GitHost;
  readonly ci: CI;
  private readonly ownership: QueueOwnership;
  private started = false;
  private readonly runtime: QueueRuntime;
  readonly webhooks: Webhooks; // outgoing webhooks: endpoints, messages, the sender (notifications/)
  private readonly current = (queue: QueueRecord): WorkingSet | undefined => this.runtime.currentSet(queue);
  /** Queue records and working sets for reads: the live working set's record, not a parse, when it has one. */
  private readonly queues: reads.QueueSource = { load: (tx, queueId) => this.runtime.queueRecord(tx, queueId), current: this.current };

  constructor(
    private readonly store: Store,
    options: EngineOptions = {},
  ) {
    this.scheduler = options.scheduler ?? new WallScheduler();
    this.clock = this.scheduler;
    this.service = new ServiceReads(store, this.scheduler, options.sessionKey, this.current);
    this.gitHost = options.gitHost ?? new SimGitHost();
    this.ci = options.ci ?? externalCi;
    this.ownership = options.ownership ?? SOLE_OWNER;
    const onError = options.onError ?? ((message, error) => console.error(`greenline: ${message}:`, error));
    this.webhooks = new Webhooks(store, this.scheduler, options.webhooks ?? {}, onError);
    this.runtime = new QueueRuntime({
      store,
      scheduler: this.scheduler,
      gitHost: this.gitHost,
      ci: this.ci,
      onError,
      notify: (queueId, key, effect) => this.webhooks.perform(this.ownership, queueId, key, effect),
      holdEffects: options.holdEffects ?? false,
      ownership: this.ownership,
      predictor: options.predictor,
    });
    checkStoreFormat(store);
    backfillEndedIndex(store);
  }

  /** Webhook deliveries accepted and waiting to be applied (deliveries.ts), for a git host's webhook receiver. */
  get webhookInbox(): WebhookInbox {
    return this.service.webhookInbox;
  }

  /** Device sign-ins (RFC 8628) waiting for a person or a poll (deviceCodes.ts). */
  get deviceCodes(): DeviceCodes {
    return this.service.deviceCodes;
  }

  /** The flaky-test service of this engine's store and clock. */
  get flakyTests(): FlakyTests {
    return this.service.flakyTests;
  }

  /**
   * Restores every queue: rebuilds its working set, re-arms deadlines, resumes CI on runs in progress, finishes
   * effects left in the outbox.
   */
  start(): void {
    this.started = true;
    this.runtime.restore((queueId) => this.ownership.owns(queueId));
    this.webhooks.start(this.store.kind !== 'postgres');
  }

  /** This process now drives these queues (it took their leases): restores them as start() does. */
  adopt(queueIds: readonly string[]): void {
    const taken = new Set(queueIds);
    this.runtime.restore((queueId) => taken.has(queueId));
  }

  /** This process no longer drives these queues: their timers and CI runs here stop (their new driver resumes them). */
  release(queueIds: readonly string[]): void {
    this.runtime.release(queueIds);
  }

  /** Another process committed inputs to a queue this one drives: arms its timers and runs its outbox. */
  refresh(queueId: string): void {
    this.runtime.refresh(queueId);
  }

  /** Stops doing anything: no timer fires, no effect runs, nothing more is written (a crash, for tests, or shutdown). */
  stop(): void {
    this.webhooks.stop();
    this.runtime.stop();
  }

  /** Resolves once no effect is left to run (timers aside). */
  async settle(): Promise<void> {
    await this.runtime.settle();
    await this.webhooks.settle();
  }

  /** An effect decided outside the queue's transactions (a check run), put in its outbox (runtime/outsideEffects.ts). */
  putEffect(queueId: string, slot: string, effect: OutsideEffect): PutOutcome {
    return putOutsideEffect({ store: this.store, ownership: this.ownership, runtime: this.runtime, now: this.scheduler.now() }, queueId, slot, effect);
  }

  onInput(listener: (queueId: string, input: QueueInput) => void): () => void {
    return this.runtime.onInput(listener);
  }

  /** Follows the commits to every queue: this process's inputs and (on PostgreSQL) what other processes committed. */
  onCommit(listener: (queueId: string) => void): () => void {
    return this.runtime.onCommit(listener);
  }

  /** Another process committed these changes to the queue (engine/cluster/leases.ts hears them). */
  heard(queueId: string, changes: HeardChanges): void {
    this.runtime.heard(queueId, changes);
  }

  // Queues

  /**
   * `by`: the id of the token making the change, recorded in the queue's log (its settings history). `policy`: the
   * queue policy (model/policy.ts), the current one unless a replay gives the recorded one (null: none recorded, 1).
   */
  createQueue(key: QueueKey, patch: QueuePatch, by?: string, policy: number | null = QUEUE_POLICY): QueueRecord {
    const input: QueueInput = { type: 'created', patch, ...(by === undefined ? {} : { by }), ...(policy === null ? {} : { policy }) };
    return this.runtime.transact(undefined, input, (tx, now) => openNewQueue(tx, key, patch, now));
  }

  /**
   * Makes sure the git host has the queue's repository, for hosts that keep repositories themselves (the local
   * host creates a missing one, adopts an existing one). createQueue's caller awaits it first.
   */
  async prepareRepository(key: QueueKey): Promise<void> {
    await prepareRepository(this.store, this.gitHost, key);
  }

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
      return estimateQueue(tx, queue, enqueued, (runId) => reads.readRunRecord(tx, this.queues, queue.id, runId), this.scheduler.now());
    });
  }

  /** For tests: the queue's working set as the engine holds it, and as rebuilt from the store now. */
  workingSetsOf(queueId: string): { live: WorkingSet | undefined; rebuilt: WorkingSet | undefined } {
    return this.runtime.workingSetsOf(queueId);
  }

  updateQueue(key: QueueKey, patch: QueuePatch, by?: string): QueueRecord {
    return this.runtime.transact(key, { type: 'configured', patch, ...(by === undefined ? {} : { by }) });
  }

  /** Every change of the queue's settings, oldest first: when, by which token (when one), and the settings sent. */
  settingsHistory(key: QueueKey): reads.SettingsChange[] {
    return this.store.read((tx) => reads.readSettingsHistory(tx, key));
  }

  deleteQueue(key: QueueKey): void {
    const deleted = this.store.write((tx) => deleteQueueRecords(tx, key));
    this.runtime.forget(deleted.id, deleted.timers);
  }

  /** The organization's queues, optionally of one host or repository, ordered by host, owner, name and branch. */
  listQueues(org: string, filter: QueueFilter = {}): QueueRecord[] {
    return this.store.read((tx) => listQueues(tx, org, filter));
  }

  /** Every organization's queues of a repository (a git host's webhook names the repository, not the organization). */
  queuesOfRepo(repo: RepoRef): QueueRecord[] {
    return this.store.read((tx) => queuesOfRepo(tx, repo));
  }

  // Pull requests

  submitPullRequest(key: QueueKey, number: number, options: SubmitOptions = {}): void {
    this.runtime.transact(key, { type: 'submitted', number, ...options });
  }

  /** The git host reports a push to the queue's target branch (GitHub's push webhook). */
  targetPushed(key: QueueKey, sha: string): void {
    this.runtime.transact(key, { type: 'targetPushed', sha: sha.toLowerCase() });
  }

  /** The git host reports a push to a queued PR's branch (GitHub's pull_request.synchronize): it is tested again in its place. */
  pullRequestPushed(key: QueueKey, number: number, sha: string): void {
    this.runtime.transact(key, { type: 'prPushed', number, sha: sha.toLowerCase() });
  }

  cancelPullRequest(key: QueueKey, number: number, by?: string): void {
    this.runtime.transact(key, { type: 'cancelled', number, ...(by === undefined ? {} : { by }) });
  }

  restartTestsOnPullRequest(key: QueueKey, number: number, by?: string): void {
    this.runtime.transact(key, { type: 'restarted', number, ...(by === undefined ? {} : { by }) });
  }

  getSubmittedPullRequest(key: QueueKey, number: number, includeTimeline = false): { pr: PullRequestRecord; timeline?: TimelineEntry[] } {
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

  /**
   * Impacted targets for a PR's head SHA (POST /v1/setImpactedTargets). The PR need not be queued yet; the last
   * upload for a SHA wins.
   */
  setImpactedTargets(key: QueueKey, pr: { number: number; sha: string }, targets: ImpactedTargets): void {
    const normalized = normalizeTargets(targets);
    const digest = digestOf(normalized);
    const sha = pr.sha.toLowerCase();
    const input: QueueInput = { type: 'targetsSet', number: pr.number, sha, targets: normalized === 'ALL' ? 'ALL' : normalized.length, digest };
    this.runtime.transact(undefined, input, (tx, now) => {
      const queue = findQueue(tx, key);
      putTargets(tx, queue.id, pr.number, sha, { targets: normalized, digest, uploadedAt: new Date(now()).toISOString() });
      return queue;
    });
  }

  /** A commit status on a test branch's SHA (POST /v1/setCommitStatus, or a CI provider). */
  setCommitStatus(org: string, status: CommitStatusInput): void {
    this.runtime.commitStatus(org, status);
  }

  /**
   * Applies one input of a recorded event log to the queue, as one transaction at the clock's time, exactly as the
   * runtime applied it (`greenline replay`): inputs only the runtime makes — timers, git host and CI results — too.
   * The log's first input, `created`, is replayed with `createQueue`.
   */
  replayInput(queueId: string, input: QueueInput): void {
    if (input.type === 'created') throw engineError('event_not_replayable');
    this.runtime.dispatch(queueId, input);
  }

  /** Retention: deletes what a `prune` input names, if it ended long enough ago, as one transaction of the queue. */
  prune(queueId: string, input: Extract<QueueInput, { type: 'prune' }>): void {
    this.runtime.dispatch(queueId, input);
  }

  /** The queue's event log, in order. */
  eventLog(queueId: string): { seq: number; at: string; input: QueueInput }[] {
    return this.store.read((tx) => reads.readEventLog(tx, queueId));
  }

  /** Whether the engine was started and not stopped, and its store answers: it can take inputs. */
  running(): boolean {
    if (!this.started || !this.runtime.alive) return false;
    try {
      return this.ready();
    } catch {
      return false;
    }
  }
}
