/**
 * The version of the queue policy a queue was created under. A queue's decisions are a function of its inputs, and
 * its event log replays them (engine/runtime/eventLogReplay.ts): a policy that decides differently in the same
 * situation would make a log recorded before it diverge. So a queue keeps the policy it was created under, recorded
 * in its `created` input (absent there: version 1) and in its runtime (absent: version 1).
 *
 * - 1: the bisections have a pool of their own (`bisectionConcurrency` runs), a batch is `batchingMinSize` PRs (or
 *   `batchingMaxSize`, when set), and a bisection group that passes goes back behind the main line's results.
 * - 2 (issue 28): one pool of CI slots, `concurrency` + `bisectionConcurrency`, where bisections take any free slot
 *   before new main-line work; batches grow with the backlog up to `batchingMaxSize` when it is set
 *   (absent: `batchingMinSize`, as under version 1); a group that passes keeps its place when its pass can stand, and otherwise waits behind the
 *   runs in progress for their outcome (planner/waitingPass.ts). In a log of version 1 the first
 *   of these changes the decision where a failed batch's bisection waited for a bisection slot while a main-line
 *   slot was free (the v1 fixture `log-v1-batch4` has one, at event 89): any policy that starts it there diverges,
 *   and one that does not keeps failed batches waiting for hours under load (issue 28).
 * - 3 (issue 28f): a group waits for a group of its own bisection being tested only while the main line is quiet
 *   (planner/starts.ts siblingsWait); under version 2 it always waited.
 */
export const QUEUE_POLICY = 3;

/** The policy of a queue, from its runtime (absent: 1, the policy before versions were recorded). */
export function policyOf(runtime: { policy?: number }): number {
  return runtime.policy ?? 1;
}
