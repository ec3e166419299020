/**
 * Queue leases for several Greenline processes on one PostgreSQL database. Each queue is driven by the process
 * holding its row in greenline_leases: an owner, an expiry and a fencing token (a sequence number, new at each
 * acquisition). Every `leaseMs / 3` a process renews its leases (and every `leaseMs / 4` on their own: renewal.ts),
 * heartbeats its membership, and takes queues whose
 * lease is missing or expired, up to its fair share (the queues over the live processes, rounded up); over its share
 * it hands one queue back per round, so queues spread as processes join. A process counts a lease as its own only
 * until `leaseMs` (less a margin) after it sent the renewal, by its own monotonic clock: it stops driving a queue
 * before the database lets another process take it. Writes made as the driver carry the token, which the store
 * checks in the same transaction (FOR SHARE on the lease row), so a paused former owner cannot write.
 * Every commit to a queue notifies the keys it changed (store/postgres/commitNotices.ts), and every process LISTENs:
 * the driver runs what another process's commit put in the queue's outbox or timers, and every process hears what
 * others committed (`committed`: working sets catch up, the dashboard's live feed). Every round also refreshes each
 * held queue, which bounds the delay when a notification is lost.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { QueueOwnership } from '../runtime/ownership.js';
import { decodeKey } from '../store/keyCodec.js';
import { DEFAULT_TIMEOUTS } from '../store/postgres/protocol.js';
import { QUEUE_CHANNEL } from '../store/postgres/schema.js';
import { COMMIT_CHANNEL, parseCommitNotice, sentBy, type CommitNotice } from '../store/postgres/commitNotices.js';
import { LeaseLostError, type PostgresStore } from '../store/postgresStore.js';
import { renewLeases, type Held } from './renewal.js';

export interface LeaseEvents {
  /** These queues are now driven here (restore them). */
  acquired(queueIds: string[]): void;
  /** These queues are no longer driven here. */
  lost(queueIds: string[]): void;
  /** A queue driven here was changed by another process (or a round came): run what is due. */
  refresh(queueId: string): void;
  /** Another process committed changes to a queue (any queue, driven here or not). */
  committed?(notice: CommitNotice): void;
  onError(message: string, error: unknown): void;
}

export interface LeaseOptions {
  url: string;
  store: PostgresStore;
  /** How long a lease lasts without renewal: the failover time (default 5000 ms). */
  leaseMs?: number;
  /** This process's id in greenline_members and greenline_leases (default: a random one). */
  memberId?: string;
}

export class QueueLeases implements QueueOwnership {
  readonly memberId: string;
  readonly leaseMs: number;
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** A renewal on its way (renew()): the next one waits for it. */
  private renewal: Promise<Set<string>> | undefined;
  private again = false;
  private stopped = false;
  private events: LeaseEvents | undefined;
  /** Queues another process held a live lease on at the last round. */
  private elsewhere = new Set<string>();

  constructor(private readonly options: LeaseOptions) {
    this.memberId = options.memberId ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
    this.leaseMs = options.leaseMs ?? 5000;
    // Bounded like the store's connections (postgres/protocol.ts): a round on a database that is down or stuck fails
    // in seconds and the next one tries again, rather than waiting for ever and stopping the rounds.
    const { connectMs, statementMs } = DEFAULT_TIMEOUTS;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: 2,
      application_name: `greenline-leases-${this.memberId}`,
      connectionTimeoutMillis: connectMs,
      statement_timeout: statementMs,
      query_timeout: statementMs + connectMs,
      keepAlive: true,
    });
    this.pool.on('error', (error) => this.events?.onError('lease connection failed', error));
  }

  owns(queueId: string): boolean {
    const lease = this.held.get(queueId);
    return lease !== undefined && performance.now() < lease.validUntil;
  }

  asOwner<R>(queueId: string, fn: () => R): R {
    const lease = this.held.get(queueId);
    if (lease === undefined || !this.owns(queueId))
      throw new LeaseLostError(`this process does not hold the lease of queue ${queueId}`);
    return this.options.store.withFences([{ queueId, token: lease.token }], fn);
  }

  changed(queueId: string): void {
    // The commit itself told the driver (its notice names the outbox and timer keys it wrote: heard()). A queue nobody
    // drives yet (just created) is taken at once rather than at the next round.
    if (!this.held.has(queueId) && !this.elsewhere.has(queueId)) this.soon();
  }

  /** A commit of another process: what it changed is heard, and the driver runs what it put in the outbox or timers. */
  private heard(payload: string | undefined): void {
    if (sentBy(payload, this.options.store.sender)) return;
    const notice = parseCommitNotice(payload);
    if (notice === undefined || notice.sender === this.options.store.sender) return;
    this.options.store.heard(notice);
    this.events?.committed?.(notice);
    const { queueId, changes } = notice;
    if (this.owns(queueId)) {
      const runs = ([coll]: readonly unknown[]) => coll === 'outbox' || coll === 'timers';
      if (changes === 'all' || changes.puts.some(runs) || changes.removes.some(runs)) this.events?.refresh(queueId);
    } else if (!this.held.has(queueId) && !this.elsewhere.has(queueId)) this.soon();
  }

  /** The queues this process drives now. */
  queues(): string[] {
    return [...this.held.keys()].filter((queueId) => this.owns(queueId));
  }

  async start(events: LeaseEvents): Promise<void> {
    this.events = events;
    await this.listen();
    this.soon();
    await this.running;
    this.timer = setInterval(() => this.soon(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
    // Renewals also go on their own, every quarter of the lease time: a round waits for its reads, takeovers and
    // refreshes in turn, each behind whatever the event loop has to do, and a busy process whose renewals waited for
    // them stopped counting as the driver of its own queues (its merges stalled while it went on taking submits).
    this.renewTimer = setInterval(
      () => {
        if (this.renewal === undefined && this.held.size > 0 && !this.stopped)
          void this.renew().catch((error: unknown) => this.events?.onError('lease renewal failed', error));
      },
      Math.max(50, Math.floor(this.leaseMs / 4)),
    );
    this.renewTimer.unref();
  }

  /**
   * Opens the LISTEN connection. When it breaks (the database restarted) it is dropped, and the next round opens it
   * again; notifications missed meanwhile are covered by the rounds' refresh of every held queue.
   */
  private async listen(): Promise<void> {
    const { connectMs } = DEFAULT_TIMEOUTS;
    const listener = new pg.Client({
      connectionString: this.options.url,
      application_name: `greenline-listen-${this.memberId}`,
      connectionTimeoutMillis: connectMs,
      keepAlive: true,
    });
    listener.on('notification', (message) => {
      if (message.channel === COMMIT_CHANNEL) return this.heard(message.payload);
      // Processes of an earlier version notify the driver on this channel.
      if (message.payload === undefined) return;
      if (this.owns(message.payload)) this.events?.refresh(message.payload);
      else if (!this.held.has(message.payload) && !this.elsewhere.has(message.payload)) this.soon();
    });
    const lost = (error?: unknown) => {
      if (this.listener !== listener) return;
      this.listener = undefined;
      void listener.end().catch(() => undefined);
      if (!this.stopped)
        this.events?.onError('the LISTEN connection was lost; it is opened again at the next round', error);
    };
    listener.on('error', lost);
    listener.on('end', () => lost());
    try {
      await listener.connect();
      await listener.query(`LISTEN ${QUEUE_CHANNEL}; LISTEN ${COMMIT_CHANNEL}`);
    } catch (error) {
      void listener.end().catch(() => undefined);
      throw error;
    }
    this.listener = listener;
  }

  /** Runs a round now, or right after the one running. */
  private soon(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.round()
      .catch((error: unknown) => this.events?.onError('lease round failed', error))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.soon();
        }
      });
  }

  private async round(): Promise<void> {
    if (this.listener === undefined) await this.listen();
    const ttl = `${this.leaseMs} milliseconds`;
    const kept = await this.renew();
    if (this.stopped) return;
    const lost = [...this.held.keys()].filter((queueId) => !kept.has(queueId));
    for (const queueId of lost) this.held.delete(queueId);
    if (lost.length > 0) this.events?.lost(lost);

    // The queues, the live leases and the live members, in one statement (its own, after the heartbeat: it counts).
    const { rows } = await this.pool.query<{ queues: Buffer[] | null; live: string[] | null; n: number }>(
      `SELECT (SELECT array_agg(k) FROM greenline_kv WHERE coll = 'queues') AS queues,
         (SELECT array_agg(queue_id) FROM greenline_leases WHERE expires_at > clock_timestamp()) AS live,
         (SELECT count(*)::int FROM greenline_members WHERE expires_at > clock_timestamp()) AS n`,
    );
    const [found] = rows;
    const all = (found?.queues ?? []).map((k) => String(decodeKey(k)[0]));
    // A queue deleted (by any process) is not driven any more: its lease goes.
    const existing = new Set(all);
    const gone = [...this.held.keys()].filter((queueId) => !existing.has(queueId));
    if (gone.length > 0) {
      await this.release(gone);
      await this.pool.query('DELETE FROM greenline_leases WHERE owner = $1 AND queue_id = ANY($2)', [
        this.memberId,
        gone,
      ]);
    }
    const share = Math.ceil(all.length / Math.max(1, found?.n ?? 1));
    const taken = new Set(found?.live ?? []);
    this.elsewhere = new Set([...taken].filter((queueId) => !this.held.has(queueId)));
    const free = all.filter((queueId) => !taken.has(queueId)).sort(() => Math.random() - 0.5);
    const acquired: string[] = [];
    for (const queueId of free) {
      if (this.held.size >= share || this.stopped) break;
      const sentAt = performance.now();
      const got = await this.pool.query<{ token: string }>(
        `INSERT INTO greenline_leases (queue_id, owner, token, expires_at)
         VALUES ($1, $2, nextval('greenline_lease_token'), clock_timestamp() + $3::interval)
         ON CONFLICT (queue_id) DO UPDATE SET owner = EXCLUDED.owner, token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
         WHERE greenline_leases.expires_at <= clock_timestamp()
         RETURNING token::text AS token`,
        [queueId, this.memberId, ttl],
      );
      const token = got.rows[0]?.token;
      if (token === undefined) continue;
      this.held.set(queueId, { token, validUntil: sentAt + this.leaseMs * 0.8 });
      acquired.push(queueId);
    }
    if (acquired.length > 0) this.events?.acquired(acquired);
    // Over the fair share (a process joined): hand one queue back per round.
    if (this.held.size > share && acquired.length === 0) {
      const [queueId] = [...this.held.keys()];
      if (queueId !== undefined) await this.release([queueId]);
    }
    for (const queueId of this.queues()) if (!acquired.includes(queueId)) this.events?.refresh(queueId);
  }

  /**
   * Renews the leases held (with the heartbeat), after any renewal on its way; returns the queues the database still
   * has as this process's with the tokens held. A lease counts from when the statement was sent.
   */
  private async renew(): Promise<Set<string>> {
    await this.renewal?.catch(() => undefined);
    const renewal = renewLeases(this.pool, this.memberId, this.leaseMs, this.held);
    this.renewal = renewal;
    try {
      return await renewal;
    } finally {
      if (this.renewal === renewal) this.renewal = undefined;
    }
  }

  /** Stops driving the queues, then lets the database hand them to others at once. */
  private async release(queueIds: string[]): Promise<void> {
    for (const queueId of queueIds) this.held.delete(queueId);
    this.events?.lost(queueIds);
    await this.pool.query(
      'UPDATE greenline_leases SET expires_at = clock_timestamp() WHERE owner = $1 AND queue_id = ANY($2)',
      [this.memberId, queueIds],
    );
  }

  /** Gives every lease back (a clean shutdown: other processes take the queues at once) and disconnects. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.renewTimer !== undefined) clearInterval(this.renewTimer);
    await this.renewal?.catch(() => undefined);
    await this.running;
    try {
      await this.release([...this.held.keys()]);
      await this.pool.query('DELETE FROM greenline_members WHERE id = $1', [this.memberId]);
    } catch (error) {
      this.events?.onError('giving the leases back failed', error);
    }
    await this.listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
