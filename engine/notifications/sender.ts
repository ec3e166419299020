/**
 * Sends the messages waiting in `webhookPending`, in the background: per endpoint one at a time, in order (a
 * message waits until the one before it to the same endpoint is delivered or given up, so a pull request's events
 * arrive in the order they happened), endpoints side by side. Each message is taken for this process for CLAIM_MS
 * before it is sent (several processes share a PostgreSQL store); a failure is tried again after backoff.ts's delay
 * (on the scheduler's clock: virtual in tests), and given up after MAX_ATTEMPTS. Delivery is at least once: a
 * process killed after the receiver took a message and before the result was written sends it again after a
 * restart, with the same `webhook-id` (receivers dedupe by it, as Standard Webhooks says).
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../runtime/clock.js';
import type { Scheduler } from '../runtime/scheduler.js';
import type { Key, Store } from '../store/store.js';
import { MAX_ATTEMPTS, retryDelayMs } from './backoff.js';
import { signingSecrets } from './endpoints.js';
import {
  KEPT_ATTEMPTS,
  NO_OUTCOMES,
  type AttemptRecord,
  type EndpointRecord,
  type MessageRecord,
  type Outcome,
} from './records.js';
import type { PostResult, Transport } from './transport.js';

/** How long a process keeps a message it took (longer than a delivery may take), should it die while sending. */
export const CLAIM_MS = 60_000;
const TIMER = 'webhooks:send';

export interface SenderDeps {
  store: Store;
  scheduler: Scheduler;
  /** The clock the signatures' timestamps are read from: receivers compare them with their own (the wall clock). */
  signClock: Clock;
  transport: Transport;
  onError: (message: string, error: unknown) => void;
  /** Backoff's jitter. */
  random?: () => number;
  /**
   * Looks for new messages this often even when not told of any (those of flaky-test transactions, and of other
   * processes sharing a PostgreSQL store); never unless given (tests and the simulator run virtual clocks to the end).
   */
  pollMs?: number;
}

interface Taken {
  key: Key;
  org: string;
  endpoint: EndpointRecord;
  message: MessageRecord;
}

export class WebhookSender {
  readonly processId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  /** The delivery under way per endpoint (one at a time each, so each endpoint's messages keep their order). */
  private readonly inFlight = new Map<string, Promise<void>>();
  private started = false;

  constructor(private readonly deps: SenderDeps) {}

  /**
   * Starts sending. `exclusive`: this process alone uses the store (LMDB), so messages a process before it took and
   * never finished (it was killed) are its own at once rather than when their claims run out.
   */
  start(exclusive: boolean): void {
    this.started = true;
    const claimed = (tx: Parameters<Parameters<Store['read']>[0]>[0]) =>
      [...tx.scan('webhookPending')].some(
        ({ key, value: org }) => (tx.get('webhookMessages', [org, ...key])?.claimedBy ?? '') !== '',
      );
    if (exclusive && this.deps.store.read(claimed)) {
      this.deps.store.write((tx) => {
        for (const { key, value: org } of [...tx.scan('webhookPending')]) {
          const messageKey = [org, ...key];
          const message = tx.get('webhookMessages', messageKey);
          if (message !== undefined && message.claimedBy !== '')
            tx.put('webhookMessages', messageKey, { ...message, claimedBy: '', claimedUntil: 0 });
        }
      });
    }
    this.kick();
  }

  stop(): void {
    this.started = false;
    this.deps.scheduler.cancel(TIMER);
  }

  /**
   * Sends what is due now: the head of each endpoint that has none in flight. Each endpoint goes at its own pace: one
   * that is slow or never answers (up to the transport's deadline) holds back only its own messages.
   */
  kick(): void {
    if (!this.started) return;
    let taken: Taken[];
    try {
      taken = this.claimHeads();
    } catch (error) {
      this.deps.onError('webhook messages wait: the store failed; trying again in 5 s', error);
      this.wake(this.deps.scheduler.now() + 5_000);
      return;
    }
    for (const one of taken) {
      const endpointId = one.endpoint.id;
      const delivery = this.deliver(one)
        .catch((error: unknown) =>
          this.deps.onError(`webhook message ${one.message.id}: recording its attempt failed; it is sent again`, error),
        )
        .finally(() => {
          this.inFlight.delete(endpointId);
          this.kick();
        });
      this.inFlight.set(endpointId, delivery);
    }
    this.sleep();
  }

  /** Resolves once no delivery is under way (timers aside). */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight.values()]);
  }

  /** Nothing more to send now: wakes when the next head is due (or to look for messages it was not told of). */
  private sleep(): void {
    let next: number | undefined;
    try {
      next = this.nextDue();
    } catch (error) {
      this.deps.onError('webhook messages wait: the store failed; trying again in 5 s', error);
      next = this.deps.scheduler.now() + 5_000;
    }
    const poll = this.deps.pollMs === undefined ? undefined : this.deps.scheduler.now() + this.deps.pollMs;
    const at = Math.min(next ?? Number.POSITIVE_INFINITY, poll ?? Number.POSITIVE_INFINITY);
    if (at !== Number.POSITIVE_INFINITY) this.wake(at);
  }

  /** The first pending message of each endpoint: [endpointId, seq] keys, one scan step per endpoint. */
  private heads(tx: Parameters<Parameters<Store['read']>[0]>[0]): Taken[] {
    const heads: Taken[] = [];
    let start: Key = [];
    for (;;) {
      const [first] = [...tx.scan('webhookPending', start.length === 0 ? { limit: 1 } : { start, limit: 1 })];
      if (first === undefined) return heads;
      const [endpointId] = first.key as [string, number];
      start = [endpointId, ''];
      const org = first.value;
      const endpoint = tx.get('webhookEndpoints', [org, endpointId]);
      const key = [org, ...first.key];
      const message = tx.get('webhookMessages', key);
      if (endpoint?.enabled && message !== undefined) heads.push({ key, org, endpoint, message });
    }
  }

  private claimHeads(): Taken[] {
    const now = this.deps.scheduler.now();
    const due = ({ endpoint, message }: Taken) =>
      !this.inFlight.has(endpoint.id) &&
      message.dueAt <= now &&
      (message.claimedBy === this.processId || message.claimedUntil <= now);
    // Most passes find nothing due: a read, without a durable write.
    if (!this.deps.store.read((tx) => this.heads(tx).some(due))) return [];
    return this.deps.store.write((tx) => {
      const taken = this.heads(tx).filter(due);
      for (const one of taken) {
        one.message = { ...one.message, claimedBy: this.processId, claimedUntil: now + CLAIM_MS };
        tx.put('webhookMessages', one.key, one.message);
      }
      return taken;
    });
  }

  private headers(endpoint: EndpointRecord, message: MessageRecord): Record<string, string> {
    if (endpoint.kind === 'slack') return {};
    const at = new Date(this.deps.signClock.now());
    const signatures = signingSecrets(endpoint, at.getTime()).map((secret) =>
      new Webhook(secret).sign(message.messageId, at, message.body),
    );
    return {
      'webhook-id': message.messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatures.join(' '),
    };
  }

  private async deliver({ key, endpoint, message }: Taken): Promise<void> {
    let result: PostResult;
    try {
      result = await this.deps.transport(endpoint.url, this.headers(endpoint, message), message.body);
    } catch (error) {
      result = { excerpt: error instanceof Error ? error.message : String(error), durationMs: 0 };
    }
    // Stopped meanwhile (a shutdown): the message goes back as it was, for the next start.
    if (!this.started) return this.putBack(key);
    this.record(key, result);
  }

  private record(key: Key, result: PostResult): void {
    const now = this.deps.scheduler.now();
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    this.deps.store.write((tx) => {
      const message = tx.get('webhookMessages', key);
      // Deleted meanwhile (its endpoint was), or already recorded by another process that took it after our claim ran out.
      if (message === undefined || message.status !== 'pending') return;
      const attempts = message.attempts + 1;
      const manual = message.redelivered === true ? { manual: true } : {};
      const attempt: AttemptRecord = {
        at: new Date(now).toISOString(),
        ...(result.status === undefined ? {} : { status: result.status }),
        excerpt: result.excerpt,
        durationMs: result.durationMs,
        ...manual,
      };
      const outcome: Outcome = ok ? 'delivered' : attempts >= MAX_ATTEMPTS ? 'failed' : 'retried';
      const { redelivered: _redelivered, ...rest } = message;
      const next: MessageRecord = {
        ...rest,
        attempts,
        log: [...message.log, attempt].slice(-KEPT_ATTEMPTS),
        status: outcome === 'retried' ? 'pending' : outcome,
        dueAt: outcome === 'retried' ? now + retryDelayMs(attempts, this.deps.random) : message.dueAt,
        claimedBy: '',
        claimedUntil: 0,
      };
      tx.put('webhookMessages', key, next);
      if (outcome !== 'retried') tx.remove('webhookPending', key.slice(1));
      const org = String(key[0]);
      const stats = tx.get('webhookOrgs', [org]) ?? { endpoints: 0, outcomes: { ...NO_OUTCOMES } };
      tx.put('webhookOrgs', [org], {
        ...stats,
        outcomes: { ...stats.outcomes, [outcome]: stats.outcomes[outcome] + 1 },
      });
    });
  }

  private putBack(key: Key): void {
    try {
      this.deps.store.write((tx) => {
        const message = tx.get('webhookMessages', key);
        if (message !== undefined && message.claimedBy === this.processId)
          tx.put('webhookMessages', key, { ...message, claimedBy: '', claimedUntil: 0 });
      });
    } catch {
      // the store is closing: the claim runs out
    }
  }

  /** When the earliest head is due (or its claim runs out). */
  private nextDue(): number | undefined {
    return this.deps.store.read((tx) => {
      let next: number | undefined;
      for (const { endpoint, message } of this.heads(tx)) {
        if (this.inFlight.has(endpoint.id)) continue;
        const at = Math.max(message.dueAt, message.claimedUntil);
        next = next === undefined ? at : Math.min(next, at);
      }
      return next;
    });
  }

  private wake(at: number): void {
    if (this.started) this.deps.scheduler.schedule(TIMER, Math.max(at, this.deps.scheduler.now()), () => this.kick());
  }
}
