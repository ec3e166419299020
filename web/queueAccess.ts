/**
 * How the dashboard finds what a signed-in organization may see, through the engine's façade and its store reads.
 * Another organization's queue, PR or run is "not found", exactly as in the API.
 */
import type { Engine, QueueKey } from '../engine/engine.js';
import { engineError } from '../engine/model/errors.js';
import type { QueueRecord } from '../engine/model/queues.js';

export function keyOf(queue: QueueRecord): QueueKey {
  return { org: queue.org, repo: queue.repo, branch: queue.branch };
}

/** The organization's queue with this id; not found for any other organization's. */
export function queueById(engine: Engine, org: string, queueId: string): QueueRecord {
  const queue = engine.listQueues(org).find((candidate) => candidate.id === queueId);
  if (queue === undefined) throw engineError('queue_not_found', { queueId });
  return queue;
}

export function queueName(queue: QueueRecord): string {
  return `${queue.repo.owner}/${queue.repo.name} → ${queue.branch}`;
}

export function queuePath(queue: QueueRecord): string {
  return `/queues/${encodeURIComponent(queue.id)}`;
}
