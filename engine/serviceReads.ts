/**
 * What the engine answers of the service rather than of a queue: webhook deliveries seen, tokens, the service's
 * secrets, which organization a queue is of, the flaky-test service, and whether the store answers. The Engine
 * (engine.ts) holds one and passes these calls on, beside the queues; the API and the dashboard reach the store only through these.
 */
import type { Clock } from './runtime/clock.js';
import type { Scheduler } from './runtime/scheduler.js';
import type { Store } from './store/store.js';
import { DependencyUnavailableError } from './model/unavailable.js';
import { flakyTestsFor, type FlakyTests } from './flaky/index.js';
import { randomBytes } from 'node:crypto';
import { findToken, type TokenRecord } from './tokens.js';
import { DeviceCodes } from './deviceCodes.js';
import { pruneDeliveries, webhookInbox, type WebhookInbox } from './deliveries.js';
import { readEndedSince, type EndedPullRequest } from './history/endedIndex.js';
import { renderMetrics, type MetricsFilter, type RenderedMetrics } from './metrics/index.js';
import type { QueueRecord } from './model/queues.js';
import { listQueues } from './queueIndex.js';
import { mergesInLastHour, stateCountsOf, type StateCounts } from './reads.js';
import type { WorkingSet } from './runtime/workingSet.js';

export class ServiceReads {
  readonly clock: Clock;

  constructor(
    private readonly store: Store,
    readonly scheduler: Scheduler,
    /** The key dashboard sessions are signed with (serve: a key file, never the store); else one for this process. */
    private readonly signingKey: () => Buffer = ephemeralKey(),
    /** The queue's working set when it is current (the runtime's), for reads that may take it instead of the store. */
    private readonly current: (queue: QueueRecord) => WorkingSet | undefined = () => undefined,
  ) {
    this.clock = scheduler;
  }

  /**
   * Resolves once everything committed so far is on disk (group commit: store/groupCommit.ts); an answer is sent
   * only after it, so no client is told of a write a crash of the machine could still undo. A sync that fails
   * rejects with the store unavailable (503).
   */
  async durable(): Promise<void> {
    try {
      await this.store.durable?.();
    } catch (error) {
      throw new DependencyUnavailableError(
        'store',
        `the store could not make its writes durable: ${error instanceof Error ? error.message : String(error)}`,
        5,
        { cause: error },
      );
    }
  }

  /** A queue's PRs that ended since `since` (ms), oldest first (history/endedIndex.ts): the organization page's days. */
  endedSince(queueId: string, since: number): EndedPullRequest[] {
    return this.store.read((tx) => readEndedSince(tx, queueId, since));
  }

  /** Webhook deliveries accepted and waiting to be applied (deliveries.ts), for a git host's webhook receiver. */
  get webhookInbox(): WebhookInbox {
    return webhookInbox(this.store, this.clock);
  }

  /** Forgets, in one bounded batch, delivery ids older than the retention (the webhook receiver calls it as it goes). */
  pruneDeliveries(retentionMs?: number, batch?: number): number {
    return pruneDeliveries(this.store, this.clock.now(), retentionMs, batch);
  }

  /** The stored token a presented one is (compared in constant time), or undefined. */
  findToken(presented: string): TokenRecord | undefined {
    return findToken(this.store, presented);
  }

  /** The device sign-ins (RFC 8628) waiting in this store; a token is made when an approved one is polled. */
  get deviceCodes(): DeviceCodes {
    return new DeviceCodes(this.store, () => this.clock.now());
  }

  /** A stored token by id (a dashboard session checks that its token still exists). */
  token(id: string): TokenRecord | undefined {
    return this.store.read((tx) => tx.get('tokens', [id]));
  }

  /** The key the dashboard signs sessions with. It is not in the store: a backup or a dump of it cannot forge one. */
  sessionKey(): Buffer {
    return this.signingKey();
  }

  /** The organization a queue belongs to. */
  queueOrg(queueId: string): string | undefined {
    return this.store.read((tx) => tx.get('queues', [queueId]))?.org;
  }

  /** The id of every queue, whichever process drives it. */
  queueIds(): string[] {
    return this.store.read((tx) => [...tx.scan('queues')].map(({ key }) => String(key[0])));
  }

  /** The flaky-test service of this engine's store and clock. */
  get flakyTests(): FlakyTests {
    return flakyTestsFor(this.store, this.clock);
  }

  /** Why the store refuses writes now (it is full), or undefined when it takes them (or cannot tell). */
  storeFull(): string | undefined {
    return this.store.fullReason?.();
  }

  // What the API and the dashboard read besides queues and PRs (they never reach the store themselves)

  /** The organization's metrics, in the text exposition format (GET /v1/getMergeQueueMetrics). */
  metrics(org: string, filter?: MetricsFilter): Promise<RenderedMetrics> {
    return renderMetrics({
      store: this.store,
      org,
      ...(filter === undefined ? {} : { filter }),
      now: this.clock.now(),
      workingSet: this.current,
    });
  }

  /** A queue's merges in the last hour, with their times in queue. */
  mergesInLastHour(queueId: string): { at: number; inQueueMs: number | null }[] {
    return mergesInLastHour(this.store, queueId, this.clock.now());
  }

  /** How many of the organization's queues, PRs and runs are in each state now. */
  stateCounts(org: string): StateCounts {
    return stateCountsOf(
      this.store,
      this.store.read((tx) => listQueues(tx, org, {})),
    );
  }

  /** Whether the store is open and answers (a readiness check). */
  ready(): boolean {
    this.store.read((tx) => tx.get('meta', ['format']));
    return true;
  }
}

function ephemeralKey(): () => Buffer {
  const key = randomBytes(32);
  return () => key;
}
