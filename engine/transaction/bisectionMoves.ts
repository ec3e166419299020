/**
 * Bisection inside a queue's transaction: a failed set of several PRs on a settled base leaves the main line and is
 * split in halves (groups), each tested on the known-good line; a group that passes goes back to the main line
 * (rescue), one that fails is split again, a PR that fails alone is the culprit. With skip-redundant, the half that
 * waited for a passing half is known to fail without a run. Anti-flake retests and speculation's isolated PRs use
 * the same pool (a bisection of one). What a bisection remembers, and what it may infer from it, is pure:
 * engine/planner/bisectionMemory.ts; when to bisect, split or start a group's run is the planner's (failures.ts, starts.ts).
 */
import { hasPullRequestTag } from '../../machines/index.js';
import { policyOf } from '../model/policy.js';
import type { QueueSettings } from '../model/queues.js';
import { largestBatch } from '../planner/batches.js';
import {
  halves,
  knownToFail,
  newBisection,
  rememberFailure,
  type BisectionMemory,
} from '../planner/bisectionMemory.js';
import type { TestRunRecord } from '../model/testRuns.js';
import { afterResults, fail, requeue } from './moves.js';
import { mergesReach } from './overlap.js';
import type { QueueTx } from './queueTx.js';
import type { MoveScope, Write } from './writes.js';

/**
 * What testing a group's PRs again on the main line costs, in runs: their share of the batch they would join (a whole
 * run without batching). Its pass stands when the results behind it cost no more.
 */
export function retestCost(settings: QueueSettings, prs: number): number {
  return settings.batch ? prs / largestBatch(settings) : prs;
}

/** A PR known to fail without a run: the rest of a set that failed passed on the same base. */
export function failAtOnce(number: number, basePrs: number[], bisectionId: string): Write {
  return fail(
    number,
    null,
    `bisection ${bisectionId}: known to fail without a run (the set it was in failed, and the rest of that set passed)`,
    basePrs,
  );
}

/**
 * Anti-flake: a failed PR that the runs behind it did not vouch for is tested alone once more before it is kicked,
 * off the main line (a bisection of one, in the bisection pool), so that the PRs behind it go on without it.
 */
export function retest(q: MoveScope, number: number): Write[] {
  const pr = q.prs.require(number);
  // RETEST counts it in the machine (failureRetests); it leaves the PR's group as it was.
  const reason = `tested alone once more before it is kicked (pendingFailureDepth): retest ${(pr.failureRetests ?? 0) + 1}`;
  const bisectionId = pr.bisectionId ?? `r${q.runtime.counters.group}`;
  q.runtime.bisections[bisectionId] ??= newBisection();
  return [
    { to: 'pr', number, event: { type: 'RETEST', reason } },
    ...(pr.group === null ? split(q, [number], bisectionId) : []),
    { to: 'timeline', number, text: { kind: 'retesting', reason } },
  ];
}

/** A failed set of several PRs on a settled base leaves the main line: it is split in halves, in a bisection. */
export function bisect(
  q: MoveScope,
  decision: { prs: number[]; basePrs: number[]; bisectionId: string | null },
): Write[] {
  const bisectionId = decision.bisectionId ?? `b${q.runtime.counters.bisection++}`;
  const memory = (q.runtime.bisections[bisectionId] ??= newBisection());
  rememberFailure(memory, decision.prs, decision.basePrs);
  const reason = `${q.prs.require(decision.prs[0] as number).reason ?? 'its run failed'}; bisecting`;
  const writes: Write[] = decision.prs.map((number) => ({ to: 'pr', number, event: { type: 'BISECT', reason } }));
  return [...writes, ...split(q, decision.prs, bisectionId)];
}

/**
 * Splits a bisection group in halves. With skip-redundant the second half waits for the first half's verdict (which
 * may tell that it fails: see rescue); otherwise both are tested at once.
 */
export function split(q: MoveScope, prs: number[], bisectionId: string): Write[] {
  const memory = (q.runtime.bisections[bisectionId] ??= newBisection());
  const writes: Write[] = [];
  const groups = halves(prs)
    .filter((part) => part.length > 0)
    .map((part) => {
      const group = `g${q.runtime.counters.group++}`;
      // JOIN_GROUP names its move: reportBisecting.
      for (const number of part)
        writes.push({ to: 'pr', number, event: { type: 'JOIN_GROUP', bisectionId, group, part } });
      return group;
    });
  const [first, second] = groups;
  if (
    q.queue.settings.optimizationMode === 'bisection_skip_redundant_tests' &&
    first !== undefined &&
    second !== undefined
  ) {
    (memory.waits ??= {})[second] = { after: first, parent: [...prs] };
  }
  return writes;
}

/**
 * A bisection group passed: its PRs go back to the main line. Their pass stands, and they merge on it, when it can and
 * when that costs no more than testing them again: nothing merged since their run began but the PRs it was tested on,
 * no PR behind them is being merged, and the results behind them (predicted without them, so they would be tested
 * again on top of them) cost no more runs than the group's PRs would in the main line (`retestCost`). They then keep
 * their place (a group is tested on the head of the line: the target and the PRs ahead of it, which passed), behind
 * the rest of their own bisection. Otherwise they go behind the runs in progress (which they would invalidate), ahead
 * of the PRs still waiting, and are tested again. Either way the view of the line (planner/view.ts) checks that a
 * result's tested base is the base expected where it stands. With skip-redundant, the half that waited for them is
 * now known to fail, if their set failed on the same base.
 */
export function rescue(q: QueueTx, run: TestRunRecord, prs: number[]): void {
  const bisectionId = run.bisectionId as string;
  const memory = q.runtime.bisections[bisectionId];
  const group = q.prs.require(prs[0] as number).group;
  const mergedSince =
    memory === undefined || run.bisectionMark === undefined ? undefined : memory.merged.slice(run.bisectionMark);
  const moved =
    mergedSince === undefined ||
    mergesReach(
      q,
      mergedSince.filter((number) => !run.basePrs.includes(number)),
      run.prs,
    );
  const from = firstAt(q, prs);
  for (const number of prs) q.sendPr(number, { type: 'LEAVE_GROUP' });
  q.runtime.lineup = q.runtime.lineup.filter((number) => !prs.includes(number));
  const place = behindSiblings(q, bisectionId, from);
  // Queue policy 1 (model/policy.ts): it always went back behind the results.
  const policy = policyOf(q.runtime);
  const stands = policy >= 2 && !moved && resultsBehind(q, place) <= retestCost(q.queue.settings, prs.length);
  q.runtime.lineup.splice(stands ? place : afterResults(q), 0, ...prs);
  q.touchQueue();
  for (const number of prs) {
    q.out.timeline(number, { kind: 'rescued', bisectionId }, { runId: run.id });
    // Behind the results, a pass on a base that did not move is found not to hold by the planner (view.ts).
    if (moved)
      q.write([requeue(number, 'the target branch moved since its bisection run began: tested again on top of it')]);
  }
  if (memory !== undefined && group !== null) inferSecondHalf(q, memory, bisectionId, group, run);
}

/** The position of the group's first PR in the line-up. */
function firstAt(q: QueueTx, prs: readonly number[]): number {
  return Math.min(...prs.map((number) => q.runtime.lineup.indexOf(number)).filter((at) => at >= 0));
}

/**
 * Where a group whose pass stands goes, its PRs out of the line-up (`from`: where its first PR was): where it was,
 * but behind the groups of its own bisection that were behind it, whose runs are on the same base and would not hold
 * with it ahead of them.
 */
function behindSiblings(q: QueueTx, bisectionId: string, from: number): number {
  const lineup = q.runtime.lineup;
  let at = from;
  while (at < lineup.length) {
    const pr = q.prs.require(lineup[at] as number);
    if (pr.group === null || pr.bisectionId !== bisectionId) break;
    at++;
  }
  return at;
}

/**
 * The runs a group standing at `place` would cost: the results behind it (runs in progress, passes, failures still
 * pending), which were predicted without it and no longer hold. Infinite when a PR behind it is being merged: the
 * group cannot merge ahead of it.
 */
function resultsBehind(q: QueueTx, place: number): number {
  const runs = new Set<string>();
  for (const number of q.runtime.lineup.slice(place)) {
    const pr = q.prs.require(number);
    if (pr.mergeRequested) return Number.POSITIVE_INFINITY;
    if (hasPullRequestTag(pr.state, 'hasResult')) runs.add(pr.runId ?? `#${number}`);
  }
  return runs.size;
}

function inferSecondHalf(
  q: QueueTx,
  memory: BisectionMemory,
  bisectionId: string,
  group: string,
  run: TestRunRecord,
): void {
  for (const [second, wait] of Object.entries(memory.waits ?? {})) {
    if (wait.after !== group) continue;
    delete memory.waits?.[second];
    const members = q.runtime.lineup.filter((number) => q.prs.require(number).group === second);
    const whole = [...run.prs, ...members];
    const rest = new Set(wait.parent);
    if (members.length === 0 || whole.length !== rest.size || !whole.every((number) => rest.has(number))) continue;
    if (!knownToFail(memory, wait.parent, run.basePrs)) continue;
    rememberFailure(memory, members, run.basePrs);
    if (members.length > 1) q.write(split(q, members, bisectionId));
    else q.write([failAtOnce(members[0] as number, run.basePrs, bisectionId)]);
  }
}
