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

/** Runs `fn`; a not_found (the queue or run is gone) is ignored; with `again`, a store outage schedules it anew. */
export function guarded(deps: GuardDeps, what: string, fn: () => void, again?: { key: string; run: () => void }): void {
  try {
    fn();
  } catch (error) {
    if (error instanceof EngineError && error.kind === 'not_found') return;
    const retry = again !== undefined && dependencyDown(error)?.dependency === 'store';
    deps.onError(retry ? `${what}: the store is down; trying again in ${STORE_DOWN_RETRY_MS} ms` : what, error);
    if (retry) deps.scheduler.schedule(again.key, deps.scheduler.now() + STORE_DOWN_RETRY_MS, again.run);
  }
}
