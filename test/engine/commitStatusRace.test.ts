/**
 * A commit status finds its run (runsBySha) in its own transaction, once it holds the queue: a run pruned between a
 * read that found it and the status's write is not given the status. Before, the run was looked up in a read ahead
 * of the write (on PostgreSQL without the queue's lock): the status then met a run without a record, a plain error
 * (a 500), instead of `commit_not_tested`.
 */
import { expect, test } from 'vitest';
import { EngineError } from '../../engine/model/errors.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store, WriteTx } from '../../engine/store/store.js';
import { KEY, QueueHarness } from './queueHarness.js';

/** A store on which `meanwhile` commits right before the next write begins: another process's commit, in a race. */
function racedStore(inner: Store): { store: Store; before(meanwhile: (tx: WriteTx) => void): void } {
  let pending: ((tx: WriteTx) => void) | undefined;
  const store: Store = Object.create(inner) as Store;
  store.write = <R>(fn: (tx: WriteTx) => R): R => {
    const meanwhile = pending;
    pending = undefined;
    if (meanwhile !== undefined) inner.write(meanwhile);
    return inner.write(fn);
  };
  store.read = inner.read.bind(inner);
  return { store, before: (meanwhile) => (pending = meanwhile) };
}

test('a status whose run was pruned as it arrived is answered commit_not_tested, and nothing is changed', async () => {
  const raced = racedStore(createMemoryStore());
  const h = new QueueHarness(raced.store);
  await h.create();
  await h.submit(1);
  const run = h.runOf(1);
  h.engine.cancelPullRequest(KEY, 1);
  await h.engine.settle();
  expect(h.runs().find((candidate) => candidate.id === run.id)?.status).not.toBe('in_progress');
  // The ended run is pruned (as retention does: engine/transaction/prune.ts) while the status is on its way.
  raced.before((tx) => {
    tx.remove('testRuns', [h.queueId, run.id]);
    tx.remove('actors', [h.queueId, 'run', run.id]);
    tx.remove('runsBySha', [KEY.org, run.testBranchSha.toLowerCase()]);
  });
  const events = () => raced.store.read((tx) => tx.count('events', { prefix: [h.queueId] }));
  const before = events();
  let thrown: unknown;
  try {
    h.engine.setCommitStatus(KEY.org, { repo: KEY.repo, sha: run.testBranchSha, context: 'ci', state: 'success' });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(EngineError);
  expect((thrown as EngineError).code).toBe('commit_not_tested');
  expect(events()).toBe(before);
});
