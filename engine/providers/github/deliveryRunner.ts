/**
 * Applies the webhook deliveries the receiver accepted (stored in the inbox and answered 202 at once), in the
 * background: one at a time, oldest first, each taken from the store for this process (several processes share a
 * PostgreSQL store), and removed once applied. What fails is tried again as retryPolicy.ts says for deliveries (with
 * backoff while GitHub's API is down, a few seconds after the store comes back), so GitHub's delivery never waits
 * for GitHub's own API. Deliveries a process accepted and never finished (it crashed) are taken by any process once
 * their claim runs out, and by this one at start.
 */
import { randomUUID } from 'node:crypto';
import type { ReceivedDelivery, WebhookInbox } from '../../deliveries.js';
import { decideDeliveryRetry, STORE_DOWN_RETRY_MS } from '../../runtime/retryPolicy.js';
import type { Scheduler } from '../../runtime/scheduler.js';

export interface DeliveryRunnerDeps {
  inbox: WebhookInbox;
  scheduler: Scheduler;
  /** Applies one delivery; throws when it failed. */
  apply: (delivery: ReceivedDelivery) => Promise<void>;
  onError: (message: string, error: unknown) => void;
}

/** How many deliveries one write takes. */
const BATCH = 20;
/** How often a running process looks for deliveries other processes accepted and left (crashed). */
const POLL_MS = 60_000;
const TIMER = 'github:webhook-inbox';

export class DeliveryRunner {
  private readonly processId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;

  constructor(private readonly deps: DeliveryRunnerDeps) {}

  /** Starts applying deliveries (the engine runs): those left from before first. */
  start(): void {
    this.started = true;
    this.kick();
  }

  stop(): void {
    this.started = false;
    this.deps.scheduler.cancel(TIMER);
  }

  /** Applies what is due now, or right after the pass under way. */
  kick(): void {
    if (!this.started) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: unknown) => {
        // The store failed (taking, finishing or deferring a delivery, or in applying one): look again shortly.
        this.deps.onError(
          `webhook deliveries wait: the store failed; trying again in ${STORE_DOWN_RETRY_MS} ms`,
          error,
        );
        this.wake(this.deps.scheduler.now() + STORE_DOWN_RETRY_MS);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves once no pass is under way (timers aside). */
  async settle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private async drain(): Promise<void> {
    const { inbox, scheduler } = this.deps;
    while (this.started) {
      const batch = inbox.claimDue(this.processId, BATCH);
      if (batch.length === 0) break;
      for (const [index, delivery] of batch.entries()) {
        if (!this.started) {
          // Stopped: the deliveries taken and not begun go back at once rather than when their claim runs out.
          for (const left of batch.slice(index)) this.putBack(left);
          return;
        }
        await this.applyOne(delivery);
      }
    }
    if (!this.started) return;
    const next = inbox.nextDue();
    this.wake(Math.min(next ?? Number.POSITIVE_INFINITY, scheduler.now() + POLL_MS));
  }

  private async applyOne(delivery: ReceivedDelivery & { attempts: number }): Promise<void> {
    const { inbox, scheduler, onError } = this.deps;
    try {
      await this.deps.apply(delivery);
    } catch (error) {
      // Stopped meanwhile (a shutdown): not the delivery's failure. It goes back to the inbox as it was, for the next
      // start (or, should that write fail too, for whichever process once its claim runs out).
      if (!this.started) return this.putBack(delivery);
      const attempts = delivery.attempts + 1;
      const decision = decideDeliveryRetry(attempts, error);
      const what = `webhook delivery ${delivery.id} (${delivery.name})`;
      if (decision.action === 'storeDown') throw error;
      if (decision.action === 'retry') {
        onError(`${what} failed (attempt ${attempts}); trying again in ${decision.delayMs} ms`, error);
        inbox.defer(delivery.id, attempts, scheduler.now() + decision.delayMs);
        return;
      }
      onError(
        decision.action === 'drop'
          ? `${what} was refused; not tried again`
          : `${what} failed ${attempts} times; given up`,
        error,
      );
    }
    inbox.finish(delivery.id);
  }

  /** Back in the inbox as it was, for the next start (or, should the store be closing, once its claim runs out). */
  private putBack(delivery: ReceivedDelivery & { attempts: number }): void {
    try {
      this.deps.inbox.defer(delivery.id, delivery.attempts, this.deps.scheduler.now());
    } catch {
      // the store is closing: the claim runs out
    }
  }

  private wake(at: number): void {
    if (this.started) this.deps.scheduler.schedule(TIMER, Math.max(at, this.deps.scheduler.now()), () => this.kick());
  }
}
