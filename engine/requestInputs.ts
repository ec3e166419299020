/**
 * The queue inputs the API's requests make (engine.durably), each resolved once its transaction is durable: on a store
 * with batched writes (LMDB with GREENLINE_LMDB_SYNC=batch, the service's default) it runs in the store's batch, off
 * the event loop's syncs (runtime/inputTransaction.ts); elsewhere it runs as the Engine's synchronous method of the
 * same name (the simulator, replays, PostgreSQL). Same inputs, same transactions, same errors as those methods.
 */
import type { CommitStatusInput, QueueKey, SubmitOptions } from './engineTypes.js';
import type { QueueInput } from './model/events.js';
import { targetsUpload, type ImpactedTargets } from './model/impactedTargets.js';
import { QUEUE_POLICY } from './model/policy.js';
import type { QueuePatch, QueueRecord } from './model/queues.js';
import { findQueue, openNewQueue } from './queueIndex.js';
import type { QueueRuntime } from './runtime/queueRuntime.js';

const byOf = (by: string | undefined) => (by === undefined ? {} : { by });

export class RequestInputs {
  constructor(private readonly runtime: QueueRuntime) {}

  createQueue(key: QueueKey, patch: QueuePatch, by?: string, policy: number | null = QUEUE_POLICY) {
    const input: QueueInput = { type: 'created', patch, ...byOf(by), ...(policy === null ? {} : { policy }) };
    return this.runtime.transactAsync(undefined, input, { open: (tx, now) => openNewQueue(tx, key, patch, now) });
  }

  updateQueue(key: QueueKey, patch: QueuePatch, by?: string): Promise<QueueRecord> {
    return this.runtime.transactAsync(key, { type: 'configured', patch, ...byOf(by) });
  }

  async submitPullRequest(key: QueueKey, number: number, options: SubmitOptions = {}): Promise<void> {
    await this.runtime.transactAsync(key, { type: 'submitted', number, ...options });
  }

  async cancelPullRequest(key: QueueKey, number: number, by?: string): Promise<void> {
    await this.runtime.transactAsync(key, { type: 'cancelled', number, ...byOf(by) });
  }

  async restartTestsOnPullRequest(key: QueueKey, number: number, by?: string): Promise<void> {
    await this.runtime.transactAsync(key, { type: 'restarted', number, ...byOf(by) });
  }

  async setImpactedTargets(key: QueueKey, pr: { number: number; sha: string }, targets: ImpactedTargets) {
    const upload = targetsUpload(pr.number, pr.sha, targets);
    const open = (tx: Parameters<typeof upload.write>[0], now: () => number) => {
      const queue = findQueue(tx, key);
      upload.write(tx, queue.id, now());
      return queue;
    };
    await this.runtime.transactAsync(undefined, upload.input, { open });
  }

  async setCommitStatus(org: string, status: CommitStatusInput): Promise<void> {
    await this.runtime.commitStatus(org, status, true);
  }
}
