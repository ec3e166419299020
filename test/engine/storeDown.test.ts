/**
 * The engine's own work while the store is down (a database outage, simulated over the memory store): an effect
 * whose result cannot be committed waits and runs again once the store answers, counting no attempt (a long outage
 * must not make the git host's work "fail 10 times" and end a run), and nothing throws out of a timer or a runner.
 */
import { describe, expect, test } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { DependencyUnavailableError } from '../../engine/model/unavailable.js';
import { STORE_DOWN_RETRY_MS } from '../../engine/runtime/retryPolicy.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import { KEY } from './queueHarness.js';

/** The memory store, with every call failing as a store whose database is down while `down` is set. */
function outageStore(): { store: Store; setDown(down: boolean): void } {
  const inner = createMemoryStore();
  let down = false;
  const check = () => {
    if (down) throw new DependencyUnavailableError('store', 'connect ECONNREFUSED');
  };
  const store: Store = {
    kind: inner.kind,
    read: (fn) => (check(), inner.read(fn)),
    write: (fn) => (check(), inner.write(fn)),
    stats: () => (check(), inner.stats()),
    close: () => inner.close(),
  };
  return { store, setDown: (value) => void (down = value) };
}

describe('the engine while the store is down', () => {
  test('an effect whose result meets the outage runs again after it, with no attempt counted', async () => {
    const { store, setDown } = outageStore();
    const scheduler = new VirtualScheduler();
    const errors: string[] = [];
    const engine = new Engine(store, { scheduler, onError: (message) => errors.push(message) });
    engine.start();
    engine.createQueue(KEY, {});
    await engine.settle();
    // The submit commits; its first effect starts at once, and the store goes down before its result is committed.
    engine.submitPullRequest(KEY, 1);
    setDown(true);
    await engine.settle();
    expect(errors.some((message) => message.includes('cannot reach the store'))).toBe(true);
    expect(() => engine.getSubmittedPullRequest(KEY, 1)).toThrow(DependencyUnavailableError);
    // Still down at the first retry: it waits again (no unhandled failure, no attempt counted).
    scheduler.advanceBy(STORE_DOWN_RETRY_MS);
    await engine.settle();
    setDown(false);
    const attempts = store.read((tx) => [...tx.scan('outbox')].map(({ value }) => value.attempts));
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((n) => n === 0)).toBe(true);
    scheduler.advanceBy(STORE_DOWN_RETRY_MS);
    await engine.settle();
    for (let round = 0; round < 20 && store.read((tx) => tx.count('outbox')) > 0; round++) {
      scheduler.advanceBy(60_000);
      await engine.settle();
    }
    expect(engine.getSubmittedPullRequest(KEY, 1).pr.state).toBe('TESTING');
    engine.stop();
  });
});
