/**
 * What the engine answers of the service rather than of a queue: webhook deliveries seen, tokens, the service's
 * secrets, which organization a queue is of, the flaky-test service, and whether the store answers. The Engine
 * (engine.ts) adds the queues; the API and the dashboard reach the store only through these.
 */
import type { Clock } from './runtime/clock.js';
import type { Scheduler } from './runtime/scheduler.js';
import type { Store } from './store/store.js';
import { DependencyUnavailableError } from './model/unavailable.js';
import { flakyTestsFor, type FlakyTests } from './flaky/index.js';
import { randomBytes } from 'node:crypto';
import { createToken, findToken, type TokenRecord, type TokenScope } from './tokens.js';
import { pruneDeliveries, webhookInbox, type WebhookInbox } from './deliveries.js';

export class ServiceReads {
  readonly clock: Clock;

  constructor(
    protected readonly store: Store,
    readonly scheduler: Scheduler,
    /** The key dashboard sessions are signed with (serve: a key file, never the store); else one for this process. */
    private readonly signingKey: () => Buffer = ephemeralKey(),
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
      throw new DependencyUnavailableError('store', `the store could not make its writes durable: ${error instanceof Error ? error.message : String(error)}`, 5, { cause: error });
    }
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

  /** A new token of `org`, for a device a person approved (the device authorization flow); its text is shown once. */
  issueDeviceToken(org: string, scope: TokenScope): { token: string; record: TokenRecord } {
    return createToken(this.store, org, new Date(this.clock.now()).toISOString(), scope, 'device');
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

  /** The flaky-test service of this engine's store and clock. */
  get flakyTests(): FlakyTests {
    return flakyTestsFor(this.store, this.clock);
  }

  /** Why the store refuses writes now (it is full), or undefined when it takes them (or cannot tell). */
  storeFull(): string | undefined {
    return this.store.fullReason?.();
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
