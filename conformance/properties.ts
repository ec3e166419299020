/**
 * The safety properties of an interleaving, on what was observed through the API only: each PR's states follow one
 * another as its lifecycle allows; a queue asked to drain never runs by itself; nothing broken merges; every merge is
 * the tree a succeeded run tested; nothing acknowledged is lost; no good PR is removed without a flake, nor before
 * anti-flake protection gave it its runs; a cancel answered 200 ends cancelled; no run is left in progress.
 */
import { FULL } from './alphabets.js';
import { machineGraph } from './paths.js';
import { ConformanceFailure } from './queueApi.js';
import { type Observation, targetsOf, type World } from './world.js';

/** The PR states each state can reach in the PR machine (every event): what an observed change may be. */
const REACHES: Map<string, Set<string>> = (() => {
  const next = new Map<string, Set<string>>();
  for (const edge of machineGraph(FULL.pullRequest).edges) {
    const [, from, to] = /^(\S+) --\S+--> (\S+)$/.exec(edge) ?? [];
    if (from !== undefined && to !== undefined) next.set(from, (next.get(from) ?? new Set()).add(to));
  }
  const closure = new Map<string, Set<string>>();
  for (const start of next.keys()) {
    const seen = new Set<string>([start]);
    const todo = [start];
    while (todo.length > 0) {
      for (const to of next.get(todo.pop() as string) ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        todo.push(to);
      }
    }
    closure.set(start, seen);
  }
  return closure;
})();

/** The safety properties on what was observed (`history`: every observation, in order) and the final one. */
/**
 * `pendingFailureDepth` is the queue's anti-flake depth N: with N ≥ 1 a PR is removed as failed only once N + 1
 * further runs that contained it failed after its first failure (its retests, and runs behind it with it in their
 * base), so at least N + 2 failed runs had it in their tree. Runs are only failed here by the suite's statuses.
 */
export function checkProperties(world: World, history: readonly Observation[], pendingFailureDepth: number): void {
  const last = history[history.length - 1] as Observation;
  // The states of each PR (by id) change only as the machine allows; final states never change.
  const seen = new Map<string, string>();
  for (const observation of history) {
    for (const [id, view] of observation.prs) {
      const before = seen.get(id);
      if (before !== undefined && before !== view.state && REACHES.get(before)?.has(view.state) !== true) {
        throw new ConformanceFailure(
          `PR #${view.number} (${id}) went from ${before} to ${view.state}, which its lifecycle does not allow`,
        );
      }
      seen.set(id, view.state);
    }
    // A queue asked to drain never runs again by itself: it drains, then pauses.
    if (observation.requested === 'draining' && observation.queue === 'running')
      throw new ConformanceFailure('the queue was asked to drain and is running');
  }
  const merged = [...last.prs.values()]
    .filter((view) => view.state === 'MERGED')
    .sort((a, b) => a.mergedAt - b.mergedAt);
  for (const view of merged) {
    if (world.bad[view.number - 1]) throw new ConformanceFailure(`PR #${view.number} is broken and merged`);
    // The tree it merged as: what merged before it. A run that vouches for it tested the target head of its start
    // (what had merged by then), its base and its own PRs: the same PRs, in the merge order.
    const before = merged.filter((other) => other !== view && other.mergedAt <= view.mergedAt);
    // Its own run, or (optimistic merging) a run behind it, with it in its base.
    const vouching = world
      .succeededRuns()
      .filter((run) => run.prs.includes(view.number) || run.base.includes(view.number));
    const fits = vouching.some((run) => {
      const order = [...run.base, ...run.prs];
      const ahead = order.slice(0, order.indexOf(view.number));
      const mergedAhead = ahead.every((n) => before.some((other) => other.number === n));
      // In a parallel run, a PR that impacts none of its targets is not part of its tree.
      const independent = (other: number) =>
        run.parallel && !targetsOf(other).some((target) => targetsOf(view.number).includes(target));
      const nothingElse = before.every(
        (other) => ahead.includes(other.number) || other.mergedAt <= run.createdAt || independent(other.number),
      );
      return mergedAhead && nothingElse;
    });
    if (!fits) {
      throw new ConformanceFailure(
        `PR #${view.number} merged on top of [${before.map((other) => other.number).join(', ')}], a tree no succeeded run tested (runs with it: ${JSON.stringify(vouching)})`,
      );
    }
  }
  for (const [id, number] of world.acknowledged) {
    const view = last.prs.get(id);
    if (view === undefined) throw new ConformanceFailure(`PR #${number} (${id}) was acknowledged and is gone`);
    if (!['MERGED', 'FAILED', 'CANCELLED'].includes(view.state))
      throw new ConformanceFailure(`PR #${number} (${id}) never finished: ${view.state}`);
    if (view.state === 'FAILED' && !world.bad[number - 1] && !world.flaked.has(number))
      throw new ConformanceFailure(`PR #${number} is good, saw no flake, and was removed as failed`);
    if (view.state === 'FAILED' && pendingFailureDepth > 0) {
      const failed = [...world.runs.values()].filter(
        (run) => run.status === 'failed' && (run.prs.includes(number) || run.base.includes(number)),
      ).length;
      if (failed < pendingFailureDepth + 2) {
        throw new ConformanceFailure(
          `PR #${number} was removed as failed after ${failed} failed runs with it, and pendingFailureDepth ${pendingFailureDepth} gives it ${pendingFailureDepth + 2}`,
        );
      }
    }
  }
  // Every PR is final: no run it saw may still be in progress (settle read each one last).
  for (const run of world.runs.values()) {
    if (run.status === 'in_progress')
      throw new ConformanceFailure(
        `run ${run.id} (PRs [${run.prs.join(', ')}]) is still in progress, and every PR is final`,
      );
  }
  for (const id of world.cancelled) {
    const view = last.prs.get(id);
    if (view !== undefined && view.state !== 'CANCELLED')
      throw new ConformanceFailure(`PR #${view.number} (${id}): its cancel was acknowledged, and it is ${view.state}`);
  }
}
