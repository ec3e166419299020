/**
 * How large a batch may grow (pure). A batch starts once `batchingMinSize` PRs of its chain wait, or once the oldest
 * has waited `batchingMaxWaitTimeMinutes`; it then takes every ready PR of its chain up to the largest batch. Under a
 * backlog (the main line's slots busy while PRs arrive) batches grow, so the queue keeps up; below it they stay at
 * `batchingMinSize`, whose closed forms (sim/theory.ts) then hold.
 *
 * The bound: twice `batchingMinSize` unless `batchingMaxSize` says otherwise. A batch twice as large costs at most a
 * few percent more runs per change at the failure rates batching suits (halving at 10 % broken: 0.629 for 8, 0.669 for
 * 16; at 2 %: 0.241 and 0.213) and one more bisection level when it fails, and it doubles what one main-line slot
 * merges per CI run.
 */
import { QUEUE_POLICY } from '../model/policy.js';

export const DEFAULT_BATCH_GROWTH = 2;

/**
 * The largest batch: `batchingMaxSize` (absent: twice `batchingMinSize`), never below `batchingMinSize`. Under queue
 * policy 1 (model/policy.ts) an absent `batchingMaxSize` is `batchingMinSize`: batches did not grow.
 */
export function largestBatch(settings: { batchingMinSize: number; batchingMaxSize?: number }, policy: number = QUEUE_POLICY): number {
  const growth = policy >= 2 ? DEFAULT_BATCH_GROWTH : 1;
  return Math.max(settings.batchingMinSize, settings.batchingMaxSize ?? growth * settings.batchingMinSize);
}
