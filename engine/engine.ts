/**
 * The engine's façade: what the API and the simulator call. Each call that changes state is one store transaction.
 * A queue belongs to one organization; to every other organization it does not exist.
 */
import { randomBytes } from 'node:crypto';
import { isEnqueued } from '../machines/vocabulary.js';
import { isoAt, type Clock } from './clock.js';
import { conflict, notFound } from './errors.js';
import type { PullRequestRecord } from './pullRequests.js';
import { applyPatch, newQueue, type QueuePatch, type QueueRecord, type RepoRef } from './queues.js';
import type { Key, ReadTx, Store } from './store/store.js';

/** Identifies a queue: its organization, repository and target branch. */
export interface QueueKey {
  org: string;
  repo: RepoRef;
  branch: string;
}

export interface QueueFilter {
  host?: string;
  owner?: string;
  name?: string;
}

/** The version of the stored data this build reads and writes. */
export const STORE_FORMAT = 1;

export class StoreFormatError extends Error {}

/**
 * Hosts, owners and repository names are case-insensitive on every git host, so a queue is found whatever case a
 * client writes them in; it keeps the spelling it was created with. Branch names are case-sensitive in git.
 */
function indexKey(key: QueueKey): Key {
  return [key.org, key.repo.host.toLowerCase(), key.repo.owner.toLowerCase(), key.repo.name.toLowerCase(), key.branch];
}

function describe(key: QueueKey): string {
  return `${key.repo.host}/${key.repo.owner}/${key.repo.name} branch ${key.branch}`;
}

export class Engine {
  constructor(
    readonly store: Store,
    readonly clock: Clock,
  ) {
    store.write((tx) => {
      const format = tx.get('meta', ['format']);
      if (format === undefined) tx.put('meta', ['format'], STORE_FORMAT);
      else if (format !== STORE_FORMAT) {
        throw new StoreFormatError(`the data folder holds store format ${String(format)}; this build reads ${STORE_FORMAT}`);
      }
    });
  }

  createQueue(key: QueueKey, patch: QueuePatch): QueueRecord {
    return this.store.write((tx) => {
      if (tx.get('queueIndex', indexKey(key)) !== undefined) {
        throw conflict(`a queue for ${describe(key)} already exists`);
      }
      const id = `q_${randomBytes(8).toString('hex')}`;
      const queue = newQueue({ id, org: key.org, repo: key.repo, branch: key.branch, now: isoAt(this.clock) }, patch);
      tx.put('queueIndex', indexKey(key), id);
      tx.put('queues', [id], queue);
      return queue;
    });
  }

  getQueue(key: QueueKey): { queue: QueueRecord; enqueued: PullRequestRecord[] } {
    return this.store.read((tx) => {
      const queue = findQueue(tx, key);
      return { queue, enqueued: enqueuedOf(tx, queue.id) };
    });
  }

  updateQueue(key: QueueKey, patch: QueuePatch): QueueRecord {
    return this.store.write((tx) => {
      const queue = findQueue(tx, key);
      const next = applyPatch(queue, patch, enqueuedOf(tx, queue.id).length > 0, isoAt(this.clock));
      tx.put('queues', [queue.id], next);
      return next;
    });
  }

  deleteQueue(key: QueueKey): void {
    this.store.write((tx) => {
      const queue = findQueue(tx, key);
      const enqueued = enqueuedOf(tx, queue.id).length;
      if (enqueued > 0) {
        throw conflict(`the queue for ${describe(key)} still has ${enqueued} enqueued pull request(s): cancel or merge them first`);
      }
      for (const { key: prKey } of [...tx.scan('pullRequests', { prefix: [queue.id] })]) tx.remove('pullRequests', prKey);
      tx.remove('queues', [queue.id]);
      tx.remove('queueIndex', indexKey(key));
    });
  }

  /** The organization's queues, optionally of one host or repository, ordered by host, owner, name and branch. */
  listQueues(org: string, filter: QueueFilter = {}): QueueRecord[] {
    const prefix: string[] = [org];
    for (const part of [filter.host, filter.owner, filter.name]) {
      if (part === undefined) break;
      prefix.push(part.toLowerCase());
    }
    return this.store.read((tx) =>
      [...tx.scan('queueIndex', { prefix })].flatMap(({ value }) => tx.get('queues', [value]) ?? []),
    );
  }
}

function findQueue(tx: ReadTx, key: QueueKey): QueueRecord {
  const id = tx.get('queueIndex', indexKey(key));
  const queue = id === undefined ? undefined : tx.get('queues', [id]);
  if (queue === undefined) throw notFound(`no queue for ${describe(key)}`);
  return queue;
}

function enqueuedOf(tx: ReadTx, queueId: string): PullRequestRecord[] {
  return [...tx.scan('pullRequests', { prefix: [queueId] })]
    .map((entry) => entry.value)
    .filter((pr) => isEnqueued(pr.state));
}
