/**
 * The engine's façade: what the API, the dashboard, the CLI and the simulator call. Each call is an input to one queue
 * (one store transaction, run by the queue runtime: runtime/queueRuntime.ts) or a read. On start it restores every
 * queue this process drives from the store.
 *
 * It holds its parts and passes each call on: the queue runtime (inputs) and the reads of queues (queueViews.ts), of
 * their PRs and runs (pullRequestViews.ts) and of the service (serviceReads.ts), each built from the store, the working
 * sets and the clock. Elsewhere: the types callers pass (engineTypes.ts), queues by key (queueIndex.ts).
 */
import { engineError } from './model/errors.js';
import { QUEUE_POLICY } from './model/policy.js';
import type { QueueInput } from './model/events.js';
import { putOutsideEffect, type OutsideEffect, type PutOutcome } from './runtime/outsideEffects.js';
import { targetsUpload, type ImpactedTargets } from './model/impactedTargets.js';
import type { QueuePatch, QueueRecord, RepoRef } from './model/queues.js';
import type { CommitStatusInput, EngineOptions, QueueFilter, QueueKey, SubmitOptions } from './engineTypes.js';
import { SimGitHost } from './providers/sim/simGitHost.js';
import { externalCi, type CI, type GitHost } from './providers/types.js';
import { deleteQueueRecords, findQueue, openNewQueue, prepareRepository } from './queueIndex.js';
import type { ListingFilter, QueueSource } from './queueReads.js';
import { SOLE_OWNER, type QueueOwnership } from './runtime/ownership.js';
import { QueueRuntime } from './runtime/queueRuntime.js';
import { WallScheduler, type Scheduler } from './runtime/scheduler.js';
import type { Clock } from './runtime/clock.js';
import type { WebhookInbox } from './deliveries.js';
import type { FlakyTests } from './flaky/index.js';
import type { HeardChanges, WorkingSet } from './runtime/workingSet.js';
import type { Store } from './store/store.js';
import { checkStoreFormat } from './storeFormat.js';
import { ServiceReads } from './serviceReads.js';
import { backfillEndedIndex, type HistoryQuery } from './history/endedIndex.js';
import { QueueViews } from './queueViews.js';
import { PullRequestViews } from './pullRequestViews.js';
import type { MetricsFilter } from './metrics/index.js';
import type { DeviceCodes } from './deviceCodes.js';
import { Webhooks } from './notifications/service.js';
import { RequestInputs } from './requestInputs.js';

export type {
  CommitStatusInput,
  EngineOptions,
  QueueFilter,
  QueueKey,
  SubmitOptions,
  TestRunDetails,
} from './engineTypes.js';

export { STORE_FORMAT, StoreFormatError } from './storeFormat.js';

export class Engine {
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  /** The reads it holds, each built from what it needs: the service's, the queues', their PRs' and runs'. */
  private readonly service: ServiceReads;
  private readonly queueViews: QueueViews;
  private readonly prViews: PullRequestViews;
  readonly gitHost: GitHost;
  readonly ci: CI;
  private readonly ownership: QueueOwnership;
  private started = false;
  private readonly runtime: QueueRuntime;
  readonly webhooks: Webhooks; // outgoing webhooks: endpoints, messages, the sender (notifications/)
  readonly durably: RequestInputs; // the API's queue inputs, resolved once durable (requestInputs.ts)

  constructor(
    private readonly store: Store,
    options: EngineOptions = {},
  ) {
    this.scheduler = options.scheduler ?? new WallScheduler();
    this.clock = this.scheduler;
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
      sampleEstimates: options.sampleEstimates ?? true,
    });
    this.durably = new RequestInputs(this.runtime);
    const sets = this.runtime.workingSets;
    const current = (queue: QueueRecord): WorkingSet | undefined => sets.current(queue);
    // Queue records for reads: the live working set's record, not a parse, when it has one.
    const queues: QueueSource = { load: (tx, queueId) => sets.queueRecord(tx, queueId), current };
    this.service = new ServiceReads(store, this.scheduler, options.sessionKey, current);
    this.queueViews = new QueueViews(store, queues, this.clock);
    this.prViews = new PullRequestViews(store, queues);
    checkStoreFormat(store);
    backfillEndedIndex(store);
  }

  // Reads, passed on to the part that holds each (documented there): the queues' (queueViews.ts), their PRs' and runs'
  // (pullRequestViews.ts), the service's (serviceReads.ts).
  readonly getQueue = (key: QueueKey) => this.queueViews.getQueue(key);
  readonly queueDepth = (key: QueueKey) => this.queueViews.queueDepth(key);
  readonly estimates = (key: QueueKey) => this.queueViews.estimates(key);
  readonly settingsHistory = (key: QueueKey) => this.queueViews.settingsHistory(key);
  readonly listQueues = (org: string, filter?: QueueFilter) => this.queueViews.listQueues(org, filter);
  readonly queuesOfRepo = (repo: RepoRef) => this.queueViews.queuesOfRepo(repo);
  readonly eventLog = (queueId: string) => this.queueViews.eventLog(queueId);
  readonly getSubmittedPullRequest = (key: QueueKey, number: number, includeTimeline?: boolean) =>
    this.prViews.getSubmittedPullRequest(key, number, includeTimeline);
  readonly history = (key: QueueKey, query: HistoryQuery) => this.prViews.history(key, query);
  readonly listPullRequests = (key: QueueKey, filter?: ListingFilter) => this.prViews.listPullRequests(key, filter);
  readonly pullRequestOfBranch = (key: QueueKey, branch: string) => this.prViews.pullRequestOfBranch(key, branch);
  readonly headBranchOf = (key: QueueKey, number: number) => this.prViews.headBranchOf(key, number);
  readonly getTestRun = (key: QueueKey, runId: string) => this.prViews.getTestRun(key, runId);
  readonly testRun = (queueId: string, runId: string) => this.prViews.testRun(queueId, runId);
  readonly durable = () => this.service.durable();
  readonly pruneDeliveries = (retentionMs?: number, batch?: number) => this.service.pruneDeliveries(retentionMs, batch);
  readonly findToken = (presented: string) => this.service.findToken(presented);
  readonly token = (id: string) => this.service.token(id);
  readonly sessionKey = () => this.service.sessionKey();
  readonly queueOrg = (queueId: string) => this.service.queueOrg(queueId);
  readonly storeFull = () => this.service.storeFull();
  readonly ready = () => this.service.ready();
  readonly metrics = (org: string, filter?: MetricsFilter) => this.service.metrics(org, filter);
  readonly mergesInLastHour = (queueId: string) => this.service.mergesInLastHour(queueId);
  readonly stateCounts = (org: string) => this.service.stateCounts(org);
  readonly queueIds = () => this.service.queueIds();
  readonly endedSince = (queueId: string, since: number) => this.service.endedSince(queueId, since);

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

  /** Whether this process drives the queue now (always, with one process; the lease's holder, with several). */
  readonly drives = (queueId: string): boolean => this.ownership.owns(queueId);
  /** This process no longer drives these queues: their timers and CI runs here stop (their new driver resumes them). */
  readonly release = (queueIds: readonly string[]): void => this.runtime.release(queueIds);
  /** Another process committed inputs to a queue this one drives: arms its timers and runs its outbox. */
  readonly refresh = (queueId: string): void => this.runtime.refresh(queueId);

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
    return putOutsideEffect(
      { store: this.store, ownership: this.ownership, runtime: this.runtime, now: this.scheduler.now() },
      queueId,
      slot,
      effect,
    );
  }

  /** Follows the inputs this process applies to every queue. */
  readonly onInput = (listener: (queueId: string, input: QueueInput) => void) => this.runtime.onInput(listener);
  /** Follows the commits to every queue: this process's inputs and (on PostgreSQL) what other processes committed. */
  readonly onCommit = (listener: (queueId: string) => void) => this.runtime.onCommit(listener);
  /** Another process committed these changes to the queue (engine/cluster/leases.ts hears them). */
  readonly heard = (queueId: string, changes: HeardChanges): void => this.runtime.heard(queueId, changes);

  // Queues

  /**
   * `by`: the id of the token making the change, recorded in the queue's log (its settings history). `policy`: the
   * queue policy (model/policy.ts), the current one unless a replay gives the recorded one (null: none recorded, 1).
   */
  createQueue(key: QueueKey, patch: QueuePatch, by?: string, policy: number | null = QUEUE_POLICY): QueueRecord {
    const input: QueueInput = {
      type: 'created',
      patch,
      ...(by === undefined ? {} : { by }),
      ...(policy === null ? {} : { policy }),
    };
    return this.runtime.transact(undefined, input, (tx, now) => openNewQueue(tx, key, patch, now));
  }

  /** The git host has the queue's repository (the local host makes or adopts it); createQueue's caller awaits it. */
  async prepareRepository(key: QueueKey): Promise<void> {
    await prepareRepository(this.store, this.gitHost, key);
  }

  /** For tests: the queue's working set as the engine holds it, and as rebuilt from the store now. */
  workingSetsOf(queueId: string): { live: WorkingSet | undefined; rebuilt: WorkingSet | undefined } {
    return this.runtime.workingSets.compare(queueId);
  }

  updateQueue(key: QueueKey, patch: QueuePatch, by?: string): QueueRecord {
    return this.runtime.transact(key, { type: 'configured', patch, ...(by === undefined ? {} : { by }) });
  }

  deleteQueue(key: QueueKey): void {
    const deleted = this.store.write((tx) => deleteQueueRecords(tx, key));
    this.runtime.forget(deleted.id, deleted.timers);
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

  /**
   * Impacted targets for a PR's head SHA (POST /v1/setImpactedTargets). The PR need not be queued yet; the last
   * upload for a SHA wins.
   */
  setImpactedTargets(key: QueueKey, pr: { number: number; sha: string }, targets: ImpactedTargets): void {
    const upload = targetsUpload(pr.number, pr.sha, targets);
    this.runtime.transact(undefined, upload.input, (tx, now) => {
      const queue = findQueue(tx, key);
      upload.write(tx, queue.id, now());
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
