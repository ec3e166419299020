/**
 * Scrapes that arrive together share one collect and render. A scrape is answered from a render that starts in a
 * later turn of the event loop (setImmediate) than the one it arrived in, and every scrape of the same store,
 * organization and filter that arrives before that render starts joins it: under N scrapers at once one render
 * answers many, instead of N renders of every queue of the organization one after another on the loop. Each answer
 * still shows everything committed before its scrape arrived (the render reads the store after it), with the latest
 * clock of the scrapes it answers.
 */
import type { Store } from '../store/store.js';
import type { RenderedMetrics } from './render.js';

interface Pending<R> {
  now: number;
  workingSet: unknown;
  promise: Promise<RenderedMetrics>;
  request: R;
}

/** The scrapes waiting for a render, per store and per organization and filter. */
const waiting = new WeakMap<Store, Map<string, Pending<unknown>>>();

/** Renders `request` with `render` in a later turn, shared with the same scrapes arriving before it starts. */
export function sharedRender<
  R extends { store: Store; org: string; filter?: unknown; now: number; workingSet?: unknown },
>(request: R, render: (request: R) => Promise<RenderedMetrics>): Promise<RenderedMetrics> {
  const byKey = waiting.get(request.store) ?? new Map<string, Pending<unknown>>();
  waiting.set(request.store, byKey);
  const key = JSON.stringify([request.org, request.filter ?? {}]);
  const joined = byKey.get(key) as Pending<R> | undefined;
  if (joined !== undefined && joined.workingSet === request.workingSet) {
    joined.now = Math.max(joined.now, request.now);
    return joined.promise;
  }
  const pending: Pending<R> = {
    now: request.now,
    workingSet: request.workingSet,
    request,
    promise: Promise.resolve(undefined as never),
  };
  pending.promise = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    // Started: later scrapes wait for the next render, which reads what was committed after this one began.
    if (byKey.get(key) === pending) byKey.delete(key);
    return render({ ...pending.request, now: pending.now });
  });
  if (joined === undefined) byKey.set(key, pending);
  return pending.promise;
}
