/**
 * Which queues this process drives. With one process (LMDB, memory) it drives every queue. With several processes
 * on one PostgreSQL database (engine/cluster/leases.ts) each queue is driven by the process holding its lease: only
 * it arms the queue's timers, runs its outbox and its CI, and its writes as the driver are fenced (they commit only
 * while the lease is still its own). Any process may commit an input from a request to any queue (write
 * transactions are serialised by the store); the driver is then told, to run what the input decided.
 */
export interface QueueOwnership {
  /** Whether this process drives the queue now. */
  owns(queueId: string): boolean;
  /** Runs `fn` so that its writes commit only while this process still holds the queue (else it throws). */
  asOwner<R>(queueId: string, fn: () => R): R;
  /** An input was committed to a queue this process does not drive: its driver should run what it decided. */
  changed(queueId: string): void;
}

/** One process drives every queue. */
export const SOLE_OWNER: QueueOwnership = {
  owns: () => true,
  asOwner: (_queueId, fn) => fn(),
  changed: () => undefined,
};
