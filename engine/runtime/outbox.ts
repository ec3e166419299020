/**
 * The outbox runner: each queue's effects (calls to the git host and CI, decided in its transactions) run at the
 * edge, in order, one at a time per queue. An effect stays in the outbox until the input carrying its result commits
 * (or, for effects without a result, until it is done), so a crash repeats it; every effect is idempotent. A failed
 * effect is dropped, given up or tried again later as its kind's retry policy says (retryPolicy.ts).
 */
import type { Clock } from './clock.js';
import type { Effect, OutboxEntry } from '../model/effects.js';
import type { QueueInput } from '../model/events.js';
import { dependencyDown } from '../model/unavailable.js';
import { decideRetry, STORE_DOWN_RETRY_MS, type GivenUp } from './retryPolicy.js';
import type { Scheduler } from './scheduler.js';
import type { Key, Store } from '../store/store.js';

export interface OutboxDeps {
  store: Store;
  scheduler: Scheduler;
  clock: Clock;
  /** Whether the engine still runs (and drives the queue, when one is named); a stopped engine runs nothing more. */
  alive: (queueId?: string) => boolean;
  /** Does one effect: commits the input carrying its result (with `key`, which removes the entry), or removes it. */
  perform: (queueId: string, key: Key, effect: Effect) => Promise<void>;
  /** Commits an input for a queue, removing the outbox entry `key` in the same transaction. */
  dispatch: (queueId: string, input: QueueInput, key: Key) => void;
  /**
   * The queue's outbox was not run, or its run stopped: this process did not count as its driver then. Its next
   * refresh reads it (runtime/driverWork.ts: nothing else would kick it again).
   */
  skipped?: (queueId: string) => void;
  onError: (message: string, error: unknown) => void;
}

export class OutboxRunner {
  private readonly runners = new Map<string, Promise<void>>();
  /** Queues whose outbox waits for a retry timer after a failed effect. */
  private readonly retrying = new Set<string>();
  /** Queues kicked while their runner was at work, after its last look at the outbox: it looks again. */
  private readonly again = new Set<string>();

  constructor(private readonly deps: OutboxDeps) {}

  /** Runs the queue's outbox, unless a runner is at it already or it waits for a retry. */
  kick(queueId: string): void {
    if (!this.deps.alive(queueId)) {
      if (this.deps.alive()) this.deps.skipped?.(queueId);
      return;
    }
    if (this.runners.has(queueId)) {
      this.again.add(queueId);
      return;
    }
    // Every entry is put by a commit after which the outbox is kicked (this process's, or heard: driverWork.ts): one
    // put after the runner's last look kicked it meanwhile, so it looks again then, and only then.
    const runner = this.drain(queueId)
      .catch((error: unknown) => this.storeFailed(queueId, error))
      .finally(() => {
        this.runners.delete(queueId);
        if (this.again.delete(queueId) && !this.retrying.has(queueId)) this.kick(queueId);
      });
    this.runners.set(queueId, runner);
  }

  /**
   * The store failed the runner itself (reading the next effect, or committing an effect's result): the store is
   * down, not the effect. The queue's outbox runs again after STORE_DOWN_RETRY_MS, no attempt counted.
   */
  private storeFailed(queueId: string, error: unknown): void {
    if (this.retrying.has(queueId)) return;
    this.deps.onError(
      `the outbox of ${queueId} cannot reach the store; trying again in ${STORE_DOWN_RETRY_MS} ms`,
      error,
    );
    this.wait(queueId, STORE_DOWN_RETRY_MS);
  }

  private wait(queueId: string, delayMs: number): void {
    if (!this.deps.alive()) return;
    this.retrying.add(queueId);
    this.deps.scheduler.schedule(`${queueId}:retry`, this.deps.clock.now() + delayMs, () => {
      this.retrying.delete(queueId);
      this.kick(queueId);
    });
  }

  /** Resolves once no runner is at work (retry timers aside). */
  async settle(): Promise<void> {
    while (this.runners.size > 0) await Promise.all([...this.runners.values()]);
  }

  private async drain(queueId: string): Promise<void> {
    const deps = this.deps;
    const store = deps.store;
    for (;;) {
      if (!deps.alive(queueId)) return deps.skipped?.(queueId);
      this.again.delete(queueId);
      const next = store.read((tx) => [...tx.scan('outbox', { prefix: [queueId], limit: 1 })][0]);
      if (next === undefined) return;
      // An effect acts outside (the git host, CI) on what its transaction decided: only once that is on disk.
      await store.durable?.();
      if (!deps.alive(queueId)) return deps.skipped?.(queueId);
      try {
        await deps.perform(queueId, next.key, next.value.effect);
      } catch (error) {
        if (!deps.alive(queueId)) return deps.skipped?.(queueId);
        if (dependencyDown(error)?.dependency === 'store') throw error;
        const attempts = next.value.attempts + 1;
        const decision = decideRetry(next.value.effect, attempts, error);
        if (decision.action === 'drop') {
          store.write((tx) => void tx.remove('outbox', next.key));
          continue;
        }
        if (decision.action === 'giveUp' && this.giveUp(queueId, next.key, next.value, attempts, decision, error))
          continue;
        this.retryLater(queueId, next.key, next.value, attempts, decision.delayMs, error);
        return;
      }
    }
  }

  /** Whether the effect was given up: the input its policy makes committed, in a transaction that removed it. */
  private giveUp(
    queueId: string,
    key: Key,
    entry: OutboxEntry,
    attempts: number,
    givenUp: GivenUp,
    error: unknown,
  ): boolean {
    try {
      this.deps.dispatch(queueId, givenUp.input, key);
    } catch (failure) {
      this.deps.onError(`giving up on ${givenUp.what} of ${queueId} failed; retrying`, failure);
      return false;
    }
    this.deps.onError(
      `effect ${entry.effect.kind} of ${queueId} failed ${attempts} times; gave up on ${givenUp.what}`,
      error,
    );
    return true;
  }

  private retryLater(
    queueId: string,
    key: Key,
    entry: OutboxEntry,
    attempts: number,
    delayMs: number,
    error: unknown,
  ): void {
    const { store } = this.deps;
    this.deps.onError(`effect ${entry.effect.kind} of ${queueId} failed (attempt ${attempts}); retrying`, error);
    if (!this.deps.alive()) return;
    try {
      store.write((tx) => {
        if (tx.get('outbox', key) !== undefined) tx.put('outbox', key, { ...entry, attempts });
      });
    } catch (failure) {
      // The count is only for the backoff: when it cannot be written (a full store), the retry still waits.
      this.deps.onError(`recording attempt ${attempts} of effect ${entry.effect.kind} of ${queueId} failed`, failure);
    }
    this.wait(queueId, delayMs);
  }
}
