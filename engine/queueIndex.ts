/**
 * Queues by key: the index from organization, repository and branch to a queue's id, and the writes that create a
 * queue and delete one with every record it holds.
 */
import { createHash } from 'node:crypto';
import type { QueueFilter, QueueKey } from './engineTypes.js';
import { EngineError, engineError } from './model/errors.js';
import { DependencyUnavailableError } from './model/unavailable.js';
import type { GitHost } from './providers/types.js';
import { newQueue, type QueuePatch, type QueueRecord, type RepoRef } from './model/queues.js';
import type { Key, ReadTx, Store, WriteTx } from './store/store.js';
import { QUEUE_COLLECTIONS } from './store/queueCollections.js';

/**
 * Hosts, owners and repository names are case-insensitive on every git host, so a queue is found whatever case a
 * client writes them in; it keeps the spelling it was created with. Branch names are case-sensitive in git.
 */
function indexKey(key: QueueKey): Key {
  return [key.org, key.repo.host.toLowerCase(), key.repo.owner.toLowerCase(), key.repo.name.toLowerCase(), key.branch];
}

export function describeQueue(key: QueueKey): string {
  return `${key.repo.host}/${key.repo.owner}/${key.repo.name} branch ${key.branch}`;
}

export function sameRepo(a: RepoRef, b: RepoRef): boolean {
  return (
    a.host.toLowerCase() === b.host.toLowerCase() &&
    a.owner.toLowerCase() === b.owner.toLowerCase() &&
    a.name.toLowerCase() === b.name.toLowerCase()
  );
}

/** Reads a queue's record by id: from the store, or (the engine's) from a live working set. */
export type LoadQueue = (tx: ReadTx, queueId: string) => QueueRecord | undefined;

const fromStore: LoadQueue = (tx, queueId) => tx.get('queues', [queueId]);

/** The queue for `key` (not to be changed when `load` is a working set's). */
export function findQueue(tx: ReadTx, key: QueueKey, load: LoadQueue = fromStore): QueueRecord {
  const queue = load(tx, findQueueId(tx, key));
  if (queue === undefined) throw engineError('queue_not_found', { queue: describeQueue(key) });
  return queue;
}

export function findQueueId(tx: ReadTx, key: QueueKey): string {
  const id = tx.get('queueIndex', indexKey(key));
  if (id === undefined) throw engineError('queue_not_found', { queue: describeQueue(key) });
  return id;
}

/** A new queue's record, indexed under its key (createQueue's transaction; the 'created' input then applies). */
export function openNewQueue(tx: WriteTx, key: QueueKey, patch: QueuePatch, now: () => number): QueueRecord {
  if (tx.get('queueIndex', indexKey(key)) !== undefined)
    throw engineError('queue_exists', { queue: describeQueue(key) });
  const serial = Number(tx.get('meta', ['queueSerial']) ?? 0);
  tx.put('meta', ['queueSerial'], serial + 1);
  const id = `q_${createHash('sha256')
    .update(`${serial}\u0000${JSON.stringify(indexKey(key))}`)
    .digest('hex')
    .slice(0, 16)}`;
  // The state is the queue machine's to set (the 'created' input does it); every setting applies here.
  const { state: _state, ...settings } = patch;
  const queue = newQueue(
    { id, org: key.org, repo: key.repo, branch: key.branch, now: new Date(now()).toISOString() },
    settings,
  );
  tx.put('queueIndex', indexKey(key), id);
  return queue;
}

/** Deletes an empty queue and everything it holds; answers its id and the names of the timers it had. */
export function deleteQueueRecords(tx: WriteTx, key: QueueKey): { id: string; timers: string[] } {
  const queue = findQueue(tx, key);
  const enqueued = queue.runtime.lineup.length + queue.runtime.waiting.length;
  if (enqueued > 0) {
    throw engineError('queue_not_empty', { queue: describeQueue(key), enqueued });
  }
  for (const { value: run } of [...tx.scan('testRuns', { prefix: [queue.id] })]) {
    if (run.testBranchSha !== '') tx.remove('runsBySha', [queue.org, run.testBranchSha.toLowerCase()]);
  }
  const timers = [...tx.scan('timers', { prefix: [queue.id] })].map((entry) => String(entry.key[1]));
  for (const collection of QUEUE_COLLECTIONS) {
    for (const { key: entryKey } of [...tx.scan(collection, { prefix: [queue.id] })]) tx.remove(collection, entryKey);
  }
  tx.remove('queues', [queue.id]);
  tx.remove('queueIndex', indexKey(key));
  return { id: queue.id, timers };
}

/** The organization's queues, optionally of one host or repository, ordered by host, owner, name and branch. */
export function listQueues(tx: ReadTx, org: string, filter: QueueFilter): QueueRecord[] {
  const prefix: string[] = [org];
  for (const part of [filter.host, filter.owner, filter.name]) {
    if (part === undefined) break;
    prefix.push(part.toLowerCase());
  }
  return [...tx.scan('queueIndex', { prefix })].flatMap(({ value }) => tx.get('queues', [value]) ?? []);
}

/** Every organization's queues of a repository. */
export function queuesOfRepo(tx: ReadTx, repo: RepoRef): QueueRecord[] {
  return [...tx.scan('queues')].map(({ value }) => value).filter((queue) => sameRepo(queue.repo, repo));
}

/** Whether another organization than `org` has a queue for the repository (a repository this service keeps is one organization's). */
export function repositoryOfAnotherOrg(tx: ReadTx, key: QueueKey): boolean {
  return [...tx.scan('queues')].some(({ value }) => value.org !== key.org && sameRepo(value.repo, key.repo));
}

/**
 * Makes sure the git host has the queue's repository, for hosts that keep repositories themselves (the local host
 * creates a missing one, adopts an existing one). createQueue's caller awaits it first.
 */
export async function prepareRepository(store: Store, gitHost: GitHost, key: QueueKey): Promise<void> {
  if (gitHost.prepareRepository === undefined) return;
  // A repository this service keeps belongs to one organization: another one's queue would merge into it.
  if (store.read((tx) => repositoryOfAnotherOrg(tx, key))) {
    throw engineError('repo_of_another_org', { repo: `${key.repo.host}/${key.repo.owner}/${key.repo.name}` });
  }
  try {
    await gitHost.prepareRepository(key.repo, key.branch);
  } catch (error) {
    if (error instanceof EngineError) throw error;
    // The host failing (git, its disk): a 503 with retry-after, the cause logged, none of its paths answered.
    console.error('greenline: the git host could not prepare a repository:', error);
    throw new DependencyUnavailableError(
      'git host',
      `the git host could not prepare ${key.repo.owner}/${key.repo.name}; nothing was created`,
      30,
      { cause: error },
    );
  }
}
