/**
 * Keys a write transaction reads without a lock (queueScope.ts) that every input reads and almost nothing writes —
 * the queue index (a repository and branch to its queue's id) and the organizations' webhook record — kept by this
 * process, so that an input does not ask the database for them each time. What is kept may be stale (another process
 * made or deleted a queue, added a webhook endpoint): a write transaction that used a kept value sends it with its
 * commit, which checks, in the same round trip, that the database still holds exactly that, else the transaction
 * runs again with what the database holds (postgres/statements.ts, STALE_READ). A transaction that used one and
 * failed (the queue not found under a stale index entry) runs again too, without it. A key found stale once is not
 * kept again (it changes: the webhook record's delivery counts), so it costs at most one run more.
 */
import { DependencyUnavailableError, QueueBusyError } from '../../model/unavailable.js';
import { StorageFullError } from '../store.js';
import { LeaseLostError } from './errors.js';
import { RemoteError } from './syncWorker.js';

const KEPT: ReadonlySet<string> = new Set(['queueIndex', 'webhookOrgs']);
/** At most this many keys each (an index entry per queue; past it, all is forgotten and kept afresh). */
const MAX_KEYS = 10_000;

/** A kept value a transaction used: the collection, the latin1 key, and the JSON it had (null: absent). */
export interface Used {
  coll: string;
  enc: string;
  json: string | null;
  /** Read from the database by this transaction (its later reads of the key take it), not from what was kept. */
  read?: true;
}

/** An error of the store itself (not of what the transaction decided from what it read). */
export const storeFailure = (error: unknown): boolean =>
  error instanceof RemoteError ||
  error instanceof DependencyUnavailableError ||
  error instanceof QueueBusyError ||
  error instanceof LeaseLostError ||
  error instanceof StorageFullError;

/** A transaction that used kept values failed: it runs again reading them (postgresStore.ts), and fails as it fails then. */
export class KeptValueUsed extends Error {
  constructor(readonly failure: unknown) {
    super('a transaction that used kept values failed; it runs again without them', { cause: failure });
    this.name = 'KeptValueUsed';
  }
}

export class UnlockedCache {
  private readonly keys = new Map<string, string | null>();
  /** Keys found stale once: read from the database each time, as without this cache. */
  private readonly changing = new Set<string>();

  /** Whether reads of this key are kept. */
  keeps(coll: string, enc: string): boolean {
    return KEPT.has(coll) && !this.changing.has(`${coll}\u0000${enc}`);
  }

  /** The kept JSON (null: absent), or undefined: not kept. */
  get(coll: string, enc: string): string | null | undefined {
    return this.keys.get(`${coll}\u0000${enc}`);
  }

  /** What a read found, or what this process committed (null: absent). */
  keep(coll: string, enc: string, json: string | null): void {
    if (!this.keeps(coll, enc)) return;
    if (this.keys.size >= MAX_KEYS) this.keys.clear();
    this.keys.set(`${coll}\u0000${enc}`, json);
  }

  /** These kept values were used by a transaction that failed: they are read again; `stale`: and not kept again. */
  drop(used: Iterable<Used>, stale: boolean): void {
    for (const { coll, enc } of used) {
      const id = `${coll}\u0000${enc}`;
      this.keys.delete(id);
      if (stale && this.changing.size < MAX_KEYS) this.changing.add(id);
    }
  }
}
