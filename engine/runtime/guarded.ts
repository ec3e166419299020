/**
 * Work the runtime does on its own (a timer firing, a CI status arriving), where no caller is left to answer: a
 * failure is logged, and when it is the store being down the work runs again a little later instead of being lost
 * until a restart.
 */
import { EngineError } from '../model/errors.js';
import { dependencyDown } from '../model/unavailable.js';
import { STORE_DOWN_RETRY_MS } from './retryPolicy.js';
import type { Scheduler } from './scheduler.js';

export interface GuardDeps {
  scheduler: Scheduler;
  onError: (message: string, error: unknown) => void;
}

/**
 * Runs `fn`; a not_found (the queue or run is gone) is ignored; with `again`, a store outage schedules it anew. A `fn`
 * that returns a promise (an input in the store's batch) is followed the same way when it rejects.
 */
export function guarded(
  deps: GuardDeps,
  what: string,
  fn: () => void | Promise<void>,
  again?: { key: string; run: () => void },
): void {
  const failed = (error: unknown): void => {
    if (error instanceof EngineError && error.kind === 'not_found') return;
    const retry = again !== undefined && dependencyDown(error)?.dependency === 'store';
    deps.onError(retry ? `${what}: the store is down; trying again in ${STORE_DOWN_RETRY_MS} ms` : what, error);
    if (retry) deps.scheduler.schedule(again.key, deps.scheduler.now() + STORE_DOWN_RETRY_MS, again.run);
  };
  try {
    const result = fn();
    if (result instanceof Promise) result.catch(failed);
  } catch (error) {
    failed(error);
  }
}
