/**
 * How large a batch may grow (pure). A batch starts once `batchingMinSize` PRs of its chain wait, or once the oldest
 * has waited `batchingMaxWaitTimeMinutes`; it then takes every ready PR of its chain up to the largest batch. With
 * `batchingMaxSize` set above `batchingMinSize`, batches grow under a backlog (the main line's slots busy while PRs
 * arrive), so the queue keeps up; below it they stay at `batchingMinSize`, whose closed forms (sim/theory.ts) hold.
 *
 * Absent, the largest batch is `batchingMinSize`: batches grow only where a team asks. Growing by default (to twice
 * `batchingMinSize`) was measured (issue 28, docs/failure-policy.md): it lowered runs per change below capacity, but a
 * saturated queue with many broken PRs (bench:speculation c10-batch4) fell from 21.9 to 18.9 merges/h, since a larger
 * batch costs more runs per change as the broken rate rises (halving at 10 %: 0.629 for 8, 0.669 for 16).
 */

/** The largest batch: `batchingMaxSize` (absent: `batchingMinSize`), never below `batchingMinSize`. */
export function largestBatch(settings: { batchingMinSize: number; batchingMaxSize?: number }): number {
  return Math.max(settings.batchingMinSize, settings.batchingMaxSize ?? settings.batchingMinSize);
}
