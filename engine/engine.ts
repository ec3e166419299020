/**
 * The engine's façade: what the API and the simulator call. It is the actor runtime of every queue: each input is
 * one store transaction that moves the machines (handlers, then the planner's decisions), writes their snapshots
 * and records, appends the input to the queue's log and puts side effects in an outbox. After commit, effects run
 * at the edge (git host, CI) and their results come back as inputs. On start it restores everything from the store.
 */
import { createHash } from 'node:crypto';
import type { CommitState } from '../machines/testRun.js';
import type { Clock } from './runtime/clock.js';
import type { Effect } from './model/effects.js';
import { EngineError } from './model/errors.js';
import type { QueueInput } from './model/events.js';
import { handle } from './transaction/handlers.js';
import { OutboxRunner } from './runtime/outbox.js';
import { digestOf, getTargets, normalizeTargets, putTargets, unionOf, type ImpactedTargets } from './model/impactedTargets.js';
import type { PullRequestRecord, TimelineEntry } from './model/pullRequests.js';
import { SimGitHost } from './providers/simGitHost.js';
import { externalCi, type CI, type CiRun, type GitHost, type StatusReporter } from './providers/types.js';
import { newQueue, type QueuePatch, type QueueRecord, type RepoRef } from './model/queues.js';
import { QueueTx, type TimerChange } from './transaction/queueTx.js';
import { reconcile } from './transaction/reconcile.js';
import type { TestRunRecord } from './model/runs.js';
import { WallScheduler, type Scheduler } from './runtime/scheduler.js';
import { WorkingSet } from './runtime/workingSet.js';
import { SOLE_OWNER, type QueueOwnership } from './runtime/ownership.js';
import type { Key, ReadTx, Store, WriteTx } from './store/store.js';
import { flakyTestsFor, type FlakyTests } from './flaky/index.js';
import { renderMetrics, type MetricsFilter, type RenderedMetrics } from './metrics/index.js';
import { mergesInLastHour, secretOf, stateCountsOf, type StateCounts } from './reads.js';
import { findToken, type TokenRecord } from './tokens.js';
import { forgetDelivery, pruneDeliveries, recordDelivery } from './deliveries.js';

/** Identifies a queue: its organization, repository and target branch. */
export interface QueueKey {
  org: string;
  repo: RepoRef;
  branch: string;
}

export interface QueueFilter {
  host?: string;
  owner?: string;
  name?: string;
}

export interface EngineOptions {
  /** Time and timers; the wall clock unless given. */
  scheduler?: Scheduler;
  gitHost?: GitHost;
  ci?: CI;
  /** Where failures of effects are reported (they are retried). */
  onError?: (message: string, error: unknown) => void;
  /**
   * Leave effects in the outbox instead of performing them. For replaying a recorded event log (`greenline replay`):
   * the log already holds what every effect brought back.
   */
  holdEffects?: boolean;
  /** Which queues this process drives (several processes on PostgreSQL); all of them unless given. */
  ownership?: QueueOwnership;
}

export interface SubmitOptions {
  priority?: number | string;
  noBatch?: boolean;
  skipTheLine?: boolean;
}

export interface CommitStatusInput {
  repo: RepoRef;
  sha: string;
  context: string;
  state: CommitState;
  url?: string;
  description?: string;
}

/** The version of the stored data this build reads and writes. */
export const STORE_FORMAT = 2;

export class StoreFormatError extends Error {}

export interface TestRunDetails {
  run: TestRunRecord;
  repo: RepoRef;
  titles: Map<number, string>;
  /** The union of the targets of every PR in the run (with its base), and of the tested PRs only. */
  impactedTargets?: { all: string[]; tested: string[] };
}

/** The collections that hold a queue's data under keys starting with its id. */
const QUEUE_COLLECTIONS = [
  'pullRequests',
  'timeline',
  'testRuns',
  'actors',
  'events',
  'timers',
  'outbox',
  'impactedTargets',
  'impactedTargetShas',
  'metricsLog',
  'metricsPrs',
  'metricsTotals',
  'mergedHeads',
] as const;


/**
 * Hosts, owners and repository names are case-insensitive on every git host, so a queue is found whatever case a
 * client writes them in; it keeps the spelling it was created with. Branch names are case-sensitive in git.
 */
function indexKey(key: QueueKey): Key {
  return [key.org, key.repo.host.toLowerCase(), key.repo.owner.toLowerCase(), key.repo.name.toLowerCase(), key.branch];
}

function describe(key: QueueKey): string {
  return `${key.repo.host}/${key.repo.owner}/${key.repo.name} branch ${key.branch}`;
}

function sameRepo(a: RepoRef, b: RepoRef): boolean {
  return a.host.toLowerCase() === b.host.toLowerCase() && a.owner.toLowerCase() === b.owner.toLowerCase() && a.name.toLowerCase() === b.name.toLowerCase();
}

export class Engine {
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly gitHost: GitHost;
  readonly ci: CI;
  private readonly onError: (message: string, error: unknown) => void;
  private readonly holdEffects: boolean;
  private readonly ownership: QueueOwnership;
  private alive = true;
  private started = false;
  private readonly outbox: OutboxRunner;
  /** Observers of every committed input (the simulator and tests use it). */
  private readonly listeners = new Set<(queueId: string, input: QueueInput) => void>();
  /** Each queue's working set: what its transactions read and changed, kept for the next ones (workingSet.ts). */
  private readonly workingSets = new Map<string, WorkingSet>();
  constructor(
    private readonly store: Store,
    options: EngineOptions = {},
  ) {
    this.scheduler = options.scheduler ?? new WallScheduler();
    this.clock = this.scheduler;
    this.gitHost = options.gitHost ?? new SimGitHost();
    this.ci = options.ci ?? externalCi;
    this.onError = options.onError ?? ((message, error) => console.error(`greenline: ${message}:`, error));
    this.holdEffects = options.holdEffects ?? false;
    this.ownership = options.ownership ?? SOLE_OWNER;
    this.outbox = new OutboxRunner({
      store,
      scheduler: this.scheduler,
      clock: this.clock,
      alive: (queueId) => this.alive && (queueId === undefined || this.ownership.owns(queueId)),
      perform: (queueId, key, effect) => this.perform(queueId, key, effect),
      dispatch: (queueId, input, key) => this.dispatch(queueId, input, key),
      onError: this.onError,
    });
    store.write((tx) => {
      const format = tx.get('meta', ['format']);
      if (format === undefined) tx.put('meta', ['format'], STORE_FORMAT);
      else if (format !== STORE_FORMAT) {
        throw new StoreFormatError(`the data folder holds store format ${String(format)}; this build reads ${STORE_FORMAT}`);
      }
    });
  }

  /**
   * Restores every queue: rebuilds its working set, re-arms deadlines, resumes CI on runs in progress, finishes
   * effects left in the outbox.
   */
  start(): void {
    this.started = true;
    this.restore((queueId) => this.ownership.owns(queueId));
  }

  /** This process now drives these queues (it took their leases): restores them as start() does. */
  adopt(queueIds: readonly string[]): void {
    const taken = new Set(queueIds);
    this.restore((queueId) => taken.has(queueId));
  }

  /** This process no longer drives these queues: their timers and CI runs here stop (their new driver resumes them). */
  release(queueIds: readonly string[]): void {
    for (const queueId of queueIds) {
      const { timers, runs } = this.store.read((tx) => ({
        timers: [...tx.scan('timers', { prefix: [queueId] })].map(({ key }) => String(key[1])),
        runs: tx.get('queues', [queueId])?.runtime.activeRuns ?? [],
      }));
      for (const name of [...timers, 'retry']) this.scheduler.cancel(`${queueId}:${name}`);
      for (const runId of runs) this.ci.stop(runId);
    }
  }

  /** Another process committed inputs to a queue this one drives: arms its timers and runs its outbox. */
  refresh(queueId: string): void {
    if (!this.alive || !this.ownership.owns(queueId)) return;
    const timers = this.store.read((tx) => [...tx.scan('timers', { prefix: [queueId] })]);
    for (const { key, value } of timers) this.arm(queueId, { name: String(key[1]), dueAt: value });
    this.kick(queueId);
  }

  private restore(only: (queueId: string) => boolean): void {
    this.store.read((tx) => {
      for (const { value: queue } of tx.scan('queues')) if (only(queue.id)) this.workingSets.set(queue.id, WorkingSet.rebuild(tx, queue));
    });
    const { timers, outboxQueues, runs } = this.store.read((tx) => ({
      timers: [...tx.scan('timers')]
        .map(({ key, value }) => ({ queueId: String(key[0]), name: String(key[1]), dueAt: value }))
        .filter((timer) => only(timer.queueId)),
      outboxQueues: new Set([...tx.scan('outbox')].map(({ key }) => String(key[0])).filter(only)),
      runs: [...tx.scan('queues')].filter(({ value: queue }) => only(queue.id)).flatMap(({ value: queue }) =>
        queue.runtime.activeRuns.flatMap((id) => {
          const run = tx.get('testRuns', [queue.id, id]);
          return run === undefined ? [] : [{ run, repo: queue.repo, deadlineAt: tx.get('timers', [queue.id, `run:${id}`]) }];
        }),
      ),
    }));
    for (const timer of timers) this.arm(timer.queueId, { name: timer.name, dueAt: timer.dueAt });
    // Deadlines that passed while the engine was down fire now, before CI and effects resume (a virtual clock fires a
    // timer armed in the past only when it next moves), earliest first.
    const now = this.clock.now();
    const overdue = timers.filter((timer) => timer.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
    for (const timer of overdue) this.fire(timer.queueId, timer.name);
    for (const { run, repo, deadlineAt } of runs) {
      if (run.testBranchSha === '') continue;
      this.startCi({
        org: run.org,
        repo,
        runId: run.id,
        branch: run.testBranch,
        sha: run.testBranchSha,
        startedAt: Date.parse(run.createdAt),
        baseSha: run.baseSha,
        ...(deadlineAt === undefined ? {} : { deadlineAt }),
      });
    }
    for (const queueId of outboxQueues) this.kick(queueId);
  }

  /** Stops doing anything: no timer fires, no effect runs, nothing more is written (a crash, for tests, or shutdown). */
  stop(): void {
    this.alive = false;
    this.scheduler.clear();
  }

  /** Resolves once no effect is left to run (timers aside). */
  async settle(): Promise<void> {
    await this.outbox.settle();
  }

  /** Runs the queue's outbox (not while effects are held, for a replay). */
  private kick(queueId: string): void {
    if (!this.holdEffects) this.outbox.kick(queueId);
  }

  onInput(listener: (queueId: string, input: QueueInput) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // Queues

  /** `by`: the id of the token making the change, recorded in the queue's log (its settings history). */
  createQueue(key: QueueKey, patch: QueuePatch, by?: string): QueueRecord {
    return this.transact(undefined, { type: 'created', patch, ...(by === undefined ? {} : { by }) }, (tx, now) => {
      if (tx.get('queueIndex', indexKey(key)) !== undefined) throw new EngineError('queue_exists', `a queue for ${describe(key)} already exists`);
      const serial = Number(tx.get('meta', ['queueSerial']) ?? 0);
      tx.put('meta', ['queueSerial'], serial + 1);
      const id = `q_${createHash('sha256').update(`${serial}\u0000${JSON.stringify(indexKey(key))}`).digest('hex').slice(0, 16)}`;
      // The state is the queue machine's to set (the 'created' input does it); every setting applies here.
      const { state: _state, ...settings } = patch;
      const queue = newQueue({ id, org: key.org, repo: key.repo, branch: key.branch, now: new Date(now()).toISOString() }, settings);
      tx.put('queueIndex', indexKey(key), id);
      return queue;
    });
  }

  /**
   * Makes sure the git host has the queue's repository, for hosts that keep repositories themselves (the local
   * host creates a missing one, adopts an existing one). createQueue's caller awaits it first.
   */
  async prepareRepository(key: QueueKey): Promise<void> {
    if (this.gitHost.prepareRepository === undefined) return;
    // A repository this service keeps belongs to one organization: another one's queue would merge into it.
    const taken = this.store.read((tx) =>
      [...tx.scan('queues')].some(({ value }) => value.org !== key.org && sameRepo(value.repo, key.repo)),
    );
    if (taken) throw new EngineError('repo_of_another_org', `${key.repo.host}/${key.repo.owner}/${key.repo.name} is a repository of another organization on this service`);
    await this.gitHost.prepareRepository(key.repo, key.branch);
  }

  /** The queue and its enqueued PRs, from its working set when that is current (the records are not to be changed). */
  getQueue(key: QueueKey): { queue: QueueRecord; enqueued: PullRequestRecord[] } {
    return this.store.read((tx) => {
      const queue = findQueue(tx, key);
      const cached = this.currentSet(queue);
      const numbers = [...queue.runtime.lineup, ...queue.runtime.waiting];
      return { queue, enqueued: numbers.flatMap((number) => cached?.prs.get(number)?.record ?? tx.get('pullRequests', [queue.id, number]) ?? []) };
    });
  }

  /** The queue's working set, if it is the state of the queue as the store holds it now. */
  private currentSet(queue: QueueRecord): WorkingSet | undefined {
    const set = this.workingSets.get(queue.id);
    return set?.current(queue) === true ? set : undefined;
  }

  /** The queue's working set, rebuilt from the store when it has none or the store changed under it. */
  private workingSetOf(tx: ReadTx, queue: QueueRecord): WorkingSet {
    const current = this.currentSet(queue);
    if (current !== undefined) return current;
    const set = WorkingSet.rebuild(tx, queue);
    this.workingSets.set(queue.id, set);
    return set;
  }

  /** For tests: the queue's working set as the engine holds it, and as rebuilt from the store now. */
  workingSetsOf(queueId: string): { live: WorkingSet | undefined; rebuilt: WorkingSet | undefined } {
    return this.store.read((tx) => {
      const queue = tx.get('queues', [queueId]);
      return { live: this.workingSets.get(queueId), rebuilt: queue === undefined ? undefined : WorkingSet.rebuild(tx, queue) };
    });
  }

  updateQueue(key: QueueKey, patch: QueuePatch, by?: string): QueueRecord {
    return this.transact(key, { type: 'configured', patch, ...(by === undefined ? {} : { by }) });
  }

  /** Every change of the queue's settings, oldest first: when, by which token (when one), and the settings sent. */
  settingsHistory(key: QueueKey): { seq: number; at: string; change: 'created' | 'configured'; by?: string; patch: QueuePatch }[] {
    return this.store.read((tx) => {
      const queue = findQueue(tx, key);
      return [...tx.scan('events', { prefix: [queue.id] })].flatMap(({ value: { seq, at, input } }) =>
        input.type === 'created' || input.type === 'configured'
          ? [{ seq, at, change: input.type, patch: input.patch, ...(input.by === undefined ? {} : { by: input.by }) }]
          : [],
      );
    });
  }

  deleteQueue(key: QueueKey): void {
    const queueId = this.store.write((tx) => {
      const queue = findQueue(tx, key);
      const enqueued = queue.runtime.lineup.length + queue.runtime.waiting.length;
      if (enqueued > 0) {
        throw new EngineError('queue_not_empty', `the queue for ${describe(key)} still has ${enqueued} enqueued pull request(s): cancel or merge them first`);
      }
      for (const { value: run } of [...tx.scan('testRuns', { prefix: [queue.id] })]) {
        if (run.testBranchSha !== '') tx.remove('runsBySha', [queue.org, run.testBranchSha.toLowerCase()]);
      }
      const timers = [...tx.scan('timers', { prefix: [queue.id] })].map((entry) => String(entry.key[1]));
      for (const collection of QUEUE_COLLECTIONS) {
        for (const { key: entryKey } of [...tx.scan(collection, { prefix: [queue.id] })]) tx.remove(collection, entryKey);
      }
      tx.remove('queues', [queue.id]);
      tx.remove('queueIndex', indexKey(key));
      return { id: queue.id, timers };
    });
    this.workingSets.delete(queueId.id);
    for (const name of queueId.timers) this.scheduler.cancel(`${queueId.id}:${name}`);
  }

  /** The organization's queues, optionally of one host or repository, ordered by host, owner, name and branch. */
  listQueues(org: string, filter: QueueFilter = {}): QueueRecord[] {
    const prefix: string[] = [org];
    for (const part of [filter.host, filter.owner, filter.name]) {
      if (part === undefined) break;
      prefix.push(part.toLowerCase());
    }
    return this.store.read((tx) =>
      [...tx.scan('queueIndex', { prefix })].flatMap(({ value }) => tx.get('queues', [value]) ?? []),
    );
  }

  /** Every organization's queues of a repository (a git host's webhook names the repository, not the organization). */
  queuesOfRepo(repo: RepoRef): QueueRecord[] {
    return this.store.read((tx) => [...tx.scan('queues')].map(({ value }) => value).filter((queue) => sameRepo(queue.repo, repo)));
  }

  /**
   * Records a webhook delivery by its id; false when it was recorded before (a redelivery, applied once). A delivery
   * that fails is forgotten (`forgetDelivery`), so that its redelivery is applied.
   */
  firstDelivery(deliveryId: string): boolean {
    return recordDelivery(this.store, deliveryId, this.clock.now());
  }

  forgetDelivery(deliveryId: string): void {
    forgetDelivery(this.store, deliveryId);
  }

  /** Forgets, in one bounded batch, delivery ids older than the retention (the webhook receiver calls it as it goes). */
  pruneDeliveries(retentionMs?: number, batch?: number): number {
    return pruneDeliveries(this.store, this.clock.now(), retentionMs, batch);
  }

  // Pull requests

  submitPullRequest(key: QueueKey, number: number, options: SubmitOptions = {}): void {
    this.transact(key, { type: 'submitted', number, ...options });
  }

  /** The git host reports a push to the queue's target branch (GitHub's push webhook). */
  targetPushed(key: QueueKey, sha: string): void {
    this.transact(key, { type: 'targetPushed', sha: sha.toLowerCase() });
  }

  /** The git host reports a push to a queued PR's branch (GitHub's pull_request.synchronize): it is tested again in its place. */
  pullRequestPushed(key: QueueKey, number: number, sha: string): void {
    this.transact(key, { type: 'prPushed', number, sha: sha.toLowerCase() });
  }

  cancelPullRequest(key: QueueKey, number: number): void {
    this.transact(key, { type: 'cancelled', number });
  }

  restartTestsOnPullRequest(key: QueueKey, number: number): void {
    this.transact(key, { type: 'restarted', number });
  }

  getSubmittedPullRequest(
    key: QueueKey,
    number: number,
    includeTimeline = false,
  ): { pr: PullRequestRecord; timeline?: TimelineEntry[] } {
    return this.store.read((tx) => {
      const queue = findQueue(tx, key);
      const pr = this.currentSet(queue)?.prs.get(number)?.record ?? tx.get('pullRequests', [queue.id, number]);
      if (pr === undefined) throw new EngineError('pr_not_found', `pull request #${number} was never submitted to the queue for ${describe(key)}`);
      if (!includeTimeline) return { pr };
      return { pr, timeline: [...tx.scan('timeline', { prefix: [queue.id, number] })].map((entry) => entry.value) };
    });
  }

  /** Every pull request ever submitted to the queue, in it now or not (listPullRequests pages them). */
  listPullRequests(key: QueueKey): PullRequestRecord[] {
    return this.store.read((tx) => {
      const queue = findQueue(tx, key);
      return [...tx.scan('pullRequests', { prefix: [queue.id] })].map((entry) => entry.value);
    });
  }

  /** A test run, with the titles of the PRs it tests and, when any were uploaded, their impacted targets. */
  getTestRun(key: QueueKey, runId: string): TestRunDetails {
    return this.store.read((tx) => {
      const queue = findQueue(tx, key);
      const set = this.currentSet(queue);
      const run = set?.runs.get(runId)?.record ?? tx.get('testRuns', [queue.id, runId]);
      if (run === undefined) throw new EngineError('test_run_not_found', `no test run ${runId} in the queue for ${describe(key)}`);
      const prs = new Map(
        [...run.basePrs, ...run.prs].map((number) => [number, set?.prs.get(number)?.record ?? tx.get('pullRequests', [queue.id, number])] as const),
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
    });
  }

  /** A test run's record alone (what the simulator's CI asks when a run starts), from the working set when active. */
  testRun(queueId: string, runId: string): TestRunRecord | undefined {
    return this.store.read((tx) => {
      const queue = tx.get('queues', [queueId]);
      if (queue === undefined) return undefined;
      return this.currentSet(queue)?.runs.get(runId)?.record ?? tx.get('testRuns', [queueId, runId]);
    });
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
    this.transact(undefined, input, (tx, now) => {
      const queue = findQueue(tx, key);
      putTargets(tx, queue.id, pr.number, sha, { targets: normalized, digest, uploadedAt: new Date(now()).toISOString() });
      return queue;
    });
  }

  /** A commit status on a test branch's SHA (POST /v1/setCommitStatus, or a CI provider). */
  setCommitStatus(org: string, status: CommitStatusInput): void {
    const found = this.store.read((tx) => {
      const ref = tx.get('runsBySha', [org, status.sha.toLowerCase()]);
      const queue = ref === undefined ? undefined : tx.get('queues', [ref[0]]);
      return ref !== undefined && queue !== undefined && sameRepo(queue.repo, status.repo) ? { queueId: ref[0], runId: ref[1] } : undefined;
    });
    if (found === undefined) throw new EngineError('commit_not_tested', `no test run of ${status.repo.owner}/${status.repo.name} has the SHA ${status.sha}`);
    this.dispatch(found.queueId, {
      type: 'status',
      runId: found.runId,
      context: status.context,
      state: status.state,
      url: status.url ?? '',
      description: status.description ?? '',
    });
  }

  /**
   * Applies one input of a recorded event log to the queue, as one transaction at the clock's time, exactly as the
   * runtime applied it (`greenline replay`): inputs only the runtime makes — timers, git host and CI results — too.
   * The log's first input, `created`, is replayed with `createQueue`.
   */
  replayInput(queueId: string, input: QueueInput): void {
    if (input.type === 'created') throw new EngineError('event_not_replayable', 'a queue is created with createQueue, not replayed into');
    this.dispatch(queueId, input);
  }

  /** Retention: deletes what a `prune` input names, if it ended long enough ago, as one transaction of the queue. */
  prune(queueId: string, input: Extract<QueueInput, { type: 'prune' }>): void {
    this.dispatch(queueId, input);
  }

  /** The queue's event log, in order. */
  eventLog(queueId: string): { seq: number; at: string; input: QueueInput }[] {
    return this.store.read((tx) => [...tx.scan('events', { prefix: [queueId] })].map((entry) => entry.value));
  }

  // What the API and the dashboard read besides queues and PRs (they never reach the store themselves)

  /** The stored token a presented one is (compared in constant time), or undefined. */
  findToken(presented: string): TokenRecord | undefined {
    return findToken(this.store, presented);
  }

  /** A stored token by id (a dashboard session checks that its token still exists). */
  token(id: string): TokenRecord | undefined {
    return this.store.read((tx) => tx.get('tokens', [id]));
  }

  /** A secret of the service, made at its first use and kept in the store (the dashboard signs sessions with it). */
  secret(name: string): Buffer {
    return secretOf(this.store, name);
  }

  /** The organization a queue belongs to. */
  queueOrg(queueId: string): string | undefined {
    return this.store.read((tx) => tx.get('queues', [queueId]))?.org;
  }

  /** The flaky-test service of this engine's store and clock. */
  get flakyTests(): FlakyTests {
    return flakyTestsFor(this.store, this.clock);
  }

  /** The organization's metrics, in the text exposition format (GET /v1/getMergeQueueMetrics). */
  metrics(org: string, filter?: MetricsFilter): Promise<RenderedMetrics> {
    return renderMetrics({
      store: this.store,
      org,
      ...(filter === undefined ? {} : { filter }),
      now: this.clock.now(),
      workingSet: (queue) => this.currentSet(queue),
    });
  }

  /** A queue's merges in the last hour, with their times in queue. */
  mergesInLastHour(queueId: string): { at: number; inQueueMs: number | null }[] {
    return mergesInLastHour(this.store, queueId, this.clock.now());
  }

  /** How many of the organization's queues, PRs and runs are in each state now. */
  stateCounts(org: string): StateCounts {
    return stateCountsOf(this.store, this.listQueues(org));
  }

  /** Whether the store is open and answers (a readiness check). */
  ready(): boolean {
    this.store.read((tx) => tx.get('meta', ['format']));
    return true;
  }

  /** Whether the engine was started and not stopped, and its store answers: it can take inputs. */
  running(): boolean {
    if (!this.started || !this.alive) return false;
    try {
      return this.ready();
    } catch {
      return false;
    }
  }

  // The runtime

  /**
   * One input to one queue: one transaction. The queue is found by `key` or `queueId`, or `open` finds or makes it
   * (with any writes that belong with the input).
   */
  private transact(
    key: QueueKey | undefined,
    input: QueueInput,
    open?: (tx: WriteTx, now: () => number) => QueueRecord,
    outboxKey?: Key,
    queueId?: string,
  ): QueueRecord {
    if (!this.alive) throw new EngineError('engine_stopped', 'the engine is stopped');
    const outcome = this.store.write((tx) => {
      // One time for the whole input, the event's and every record's (a replay sets the clock to the event's time),
      // read once the transaction holds the store (after its first read), so times follow the order of commits.
      let at: number | undefined;
      const now = (): number => (at ??= this.clock.now());
      const queue = open !== undefined ? open(tx, now) : key !== undefined ? findQueue(tx, key) : tx.get('queues', [queueId ?? '']);
      if (queue === undefined) throw new EngineError('queue_not_found', `queue ${queueId ?? ''} no longer exists`);
      const q = new QueueTx(tx, queue, now(), this.workingSetOf(tx, queue));
      handle(q, input);
      reconcile(q);
      q.commit(input);
      if (outboxKey !== undefined) tx.remove('outbox', outboxKey);
      return { q, queue: q.queue, timers: q.timerChanges, effects: q.effects.length };
    });
    // Committed: what the transaction changed is the queue's working set from now on.
    outcome.q.absorbInto(this.workingSets.get(outcome.queue.id) as WorkingSet);
    if (this.ownership.owns(outcome.queue.id)) {
      for (const timer of outcome.timers) this.arm(outcome.queue.id, timer);
      if (outcome.effects > 0) this.kick(outcome.queue.id);
    } else if (outcome.effects > 0 || outcome.timers.length > 0) {
      this.ownership.changed(outcome.queue.id);
    }
    for (const listener of this.listeners) listener(outcome.queue.id, input);
    return outcome.queue;
  }

  /** With `outboxKey` (an effect's result) the input is the driver's, so it is fenced by the queue's lease. */
  private dispatch(queueId: string, input: QueueInput, outboxKey?: Key): void {
    if (outboxKey === undefined) this.transact(undefined, input, undefined, outboxKey, queueId);
    else this.ownership.asOwner(queueId, () => this.transact(undefined, input, undefined, outboxKey, queueId));
  }

  private arm(queueId: string, timer: TimerChange): void {
    const key = `${queueId}:${timer.name}`;
    if (timer.dueAt === null) return this.scheduler.cancel(key);
    this.scheduler.schedule(key, timer.dueAt, () => this.fire(queueId, timer.name));
  }

  /** A timer fires: its input, if the timer is still stored and due (a timer fired twice does nothing the second time). */
  private fire(queueId: string, name: string): void {
    if (!this.alive || !this.ownership.owns(queueId)) return;
    const stored = this.store.read((tx) => tx.get('timers', [queueId, name]));
    if (stored === undefined || stored > this.clock.now()) return;
    this.guard(`timer ${name} of ${queueId}`, () => this.ownership.asOwner(queueId, () => this.dispatch(queueId, { type: 'timer', name })));
  }

  private guard(what: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      if (error instanceof EngineError && error.kind === 'not_found') return;
      this.onError(what, error);
    }
  }

  private async perform(queueId: string, key: Key, effect: Effect): Promise<void> {
    const done = () => this.ownership.asOwner(queueId, () => this.store.write((tx) => void tx.remove('outbox', key)));
    switch (effect.kind) {
      case 'fetchTargetHead': {
        const sha = await this.gitHost.targetHead(effect.repo, effect.branch);
        return this.dispatch(queueId, { type: 'targetHead', sha }, key);
      }
      case 'checkPullRequest': {
        const facts = (await this.gitHost.pullRequest(effect.repo, effect.number, effect.branch)) ?? null;
        return this.dispatch(queueId, { type: 'prChecked', number: effect.number, entryId: effect.entryId, facts }, key);
      }
      case 'buildTestBranch': {
        const result = await this.gitHost.buildTestBranch(effect.request);
        return this.dispatch(queueId, { type: 'branchBuilt', runId: effect.request.runId, result }, key);
      }
      case 'startCi':
        done();
        return this.startCi(effect.run);
      case 'endRun':
        this.ci.stop(effect.runId);
        await this.gitHost.deleteTestBranch(effect.repo, effect.branch);
        return done();
      case 'merge': {
        const result = await this.gitHost.merge(effect.request);
        return this.dispatch(queueId, { type: 'merged', number: effect.number, entryId: effect.entryId, result }, key);
      }
      case 'comment': {
        const note = await this.gitHost.comment(effect.repo, effect.number, effect.body);
        if (note === undefined) return done();
        return this.dispatch(queueId, { type: 'prNoted', number: effect.number, kind: 'comment', message: note.message }, key);
      }
      case 'stateLabel':
        await this.gitHost.setStateLabel?.(effect.repo, effect.number, effect.state);
        return done();
      case 'statusCheck': {
        const note = await this.gitHost.setStatusCheck(effect.repo, effect.sha, effect.state, effect.description, effect.number);
        if (note === undefined || effect.number === undefined) return done();
        return this.dispatch(queueId, { type: 'prNoted', number: effect.number, kind: 'status_check', message: note.message }, key);
      }
    }
  }

  private startCi(ciRun: CiRun): void {
    const report: StatusReporter = (status) => {
      if (!this.alive) return;
      this.guard(`CI status for ${ciRun.runId}`, () => this.setCommitStatus(status.org, status));
    };
    this.ci.start(ciRun, report);
  }
}

function findQueue(tx: ReadTx, key: QueueKey): QueueRecord {
  const id = tx.get('queueIndex', indexKey(key));
  const queue = id === undefined ? undefined : tx.get('queues', [id]);
  if (queue === undefined) throw new EngineError('queue_not_found', `no queue for ${describe(key)}`);
  return queue;
}

