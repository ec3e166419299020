/**
 * What the API and the dashboard read besides queues and PRs, through the engine's façade (they never reach the
 * store): the last hour of a queue, and how many PRs, runs and queues
 * are in each state.
 */
import { WINDOW_MS } from './metrics/index.js';
import type { QueueRecord } from './model/queues.js';
import type { Store } from './store/store.js';

/** A queue's merges in the last hour: when each merged and its time in queue (ms; null when not known). */
export function mergesInLastHour(
  store: Store,
  queueId: string,
  now: number,
): { at: number; inQueueMs: number | null }[] {
  const from = Math.max(0, now - WINDOW_MS + 1);
  return store.read((tx) => {
    const merges: { at: number; inQueueMs: number | null }[] = [];
    for (const { key, value } of tx.scan('metricsLog', { prefix: [queueId], start: [queueId, from] })) {
      const at = Number(key[1]);
      if (at > now || value.kind !== 'concluded' || value.conclusion !== 'merged') continue;
      merges.push({ at, inQueueMs: value.inQueueMs });
    }
    return merges;
  });
}

export interface StateCounts {
  pullRequest: Map<string, number>;
  testRun: Map<string, number>;
  queue: Map<string, number>;
  bisection: Map<string, number>;
}

/** How many of these queues, and of their PRs and runs, are in each state now. */
export function stateCountsOf(store: Store, queues: readonly QueueRecord[]): StateCounts {
  const counts: StateCounts = { pullRequest: new Map(), testRun: new Map(), queue: new Map(), bisection: new Map() };
  const add = (map: Map<string, number>, state: string) => map.set(state, (map.get(state) ?? 0) + 1);
  store.read((tx) => {
    for (const queue of queues) {
      add(counts.queue, queue.state);
      for (const { value } of tx.scan('pullRequests', { prefix: [queue.id] })) add(counts.pullRequest, value.state);
      for (const { value } of tx.scan('testRuns', { prefix: [queue.id] })) add(counts.testRun, value.status);
      // A bisection's machine is stored while it runs (engine/transaction/bisectionActors.ts).
      for (const { value } of tx.scan('actors', { prefix: [queue.id, 'bisection'] }))
        add(counts.bisection, value.value);
    }
  });
  return counts;
}
