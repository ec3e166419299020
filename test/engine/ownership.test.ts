/**
 * The engine's ownership hooks (several processes on one store): a process that does not drive a queue commits its
 * inputs but neither arms its timers nor runs its outbox, and tells the driver; a process that takes the queue over
 * (`adopt`) restores it as a start does: the outbox runs and deadlines fire.
 */
import { expect, test } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import type { QueueOwnership } from '../../engine/runtime/ownership.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';

test('a queue driven elsewhere is only written; adopt runs its outbox and re-arms its deadlines', async () => {
  const store = createMemoryStore();
  const scheduler = new VirtualScheduler();
  let driving = false;
  const changed: string[] = [];
  const ownership: QueueOwnership = {
    owns: () => driving,
    asOwner: (_queueId, fn) => {
      if (!driving) throw new Error('not the driver');
      return fn();
    },
    changed: (queueId) => changed.push(queueId),
  };
  const engine = new Engine(store, { scheduler, gitHost: new SimGitHost(), ownership, onError: () => undefined });
  engine.start();
  const key = { org: 'acme', repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, branch: 'main' };
  const queueId = engine.createQueue(key, { concurrency: 1, testingTimeoutMinutes: 10, requiredStatuses: ['ci'] }).id;
  engine.submitPullRequest(key, 1);
  await engine.settle();
  // Committed, announced to the driver, and nothing run here.
  expect(changed).toContain(queueId);
  expect(store.read((tx) => tx.count('outbox', { prefix: [queueId] }))).toBeGreaterThan(0);
  expect(engine.getSubmittedPullRequest(key, 1).pr.state).toBe('NOT_READY');

  driving = true;
  engine.adopt([queueId]);
  await engine.settle();
  scheduler.advanceBy(1);
  await engine.settle();
  expect(store.read((tx) => tx.count('outbox', { prefix: [queueId] }))).toBe(0);
  const pr = engine.getSubmittedPullRequest(key, 1).pr;
  expect(pr.state).toBe('TESTING');
  // The run's deadline was armed by adopt: no status comes, and it fires.
  expect(store.read((tx) => tx.count('timers', { prefix: [queueId] }))).toBeGreaterThan(0);
  scheduler.advanceBy(11 * 60_000);
  await engine.settle();
  expect(engine.eventLog(queueId).some((event) => event.input.type === 'timer')).toBe(true);
  engine.stop();
});
