/**
 * Bisection inside a queue's transaction: a failed set of several PRs on a settled base leaves the main line and is
 * split in halves (groups), each tested on the known-good line; a group that passes goes back to the main line
 * (rescue), one that fails is split again, a PR that fails alone is the culprit. With skip-redundant, the half that
 * waited for a passing half is known to fail without a run. Anti-flake retests and speculation's isolated PRs use
 * the same pool (a bisection of one). What a bisection remembers, and what it may infer from it, is pure:
 * engine/planner/bisection.ts; when to bisect, split or start a group's run is the planner's (failures.ts, starts.ts).
 */
import { halves, knownToFail, newBisection, rememberFailure, type BisectionMemory } from '../planner/bisection.js';
import type { TestRunRecord } from '../model/runs.js';
import { afterResults, fail, requeue } from './moves.js';
import { mergesReach } from './overlap.js';
import type { QueueTx } from './queueTx.js';

/** A PR known to fail without a run: the rest of a set that failed passed on the same base. */
export function failAtOnce(q: QueueTx, number: number, basePrs: number[], bisectionId: string): void {
  fail(q, number, null, `bisection ${bisectionId}: known to fail without a run (the set it was in failed, and the rest of that set passed)`, basePrs);
}

/**
 * Anti-flake: a failed PR that the runs behind it did not vouch for is tested alone once more before it is kicked,
 * off the main line (a bisection of one, in the bisection pool), so that the PRs behind it go on without it.
 */
export function retest(q: QueueTx, number: number): void {
  const pr = q.markPr(number);
  pr.failureRetests = (pr.failureRetests ?? 0) + 1;
  const reason = `tested alone once more before it is kicked (pendingFailureDepth): retest ${pr.failureRetests}`;
  const bisectionId = pr.bisectionId ?? `r${q.runtime.counters.group}`;
  q.runtime.bisections[bisectionId] ??= newBisection();
  q.sendPr(number, { type: 'RETEST', reason });
  if (pr.group === null) split(q, [number], bisectionId);
  q.timeline(number, { kind: 'retesting', reason });
}

/** A failed set of several PRs on a settled base leaves the main line: it is split in halves, in a bisection. */
export function bisect(q: QueueTx, decision: { prs: number[]; basePrs: number[]; bisectionId: string | null }): void {
  const bisectionId = decision.bisectionId ?? `b${q.runtime.counters.bisection++}`;
  const memory = (q.runtime.bisections[bisectionId] ??= newBisection());
  rememberFailure(memory, decision.prs, decision.basePrs);
  const reason = `${q.requirePr(decision.prs[0] as number).reason ?? 'its run failed'}; bisecting`;
  for (const number of decision.prs) {
    q.sendPr(number, { type: 'BISECT', reason });
  }
  split(q, decision.prs, bisectionId);
}

/**
 * Splits a bisection group in halves. With skip-redundant the second half waits for the first half's verdict (which
 * may tell that it fails: see rescue); otherwise both are tested at once.
 */
export function split(q: QueueTx, prs: number[], bisectionId: string): void {
  const memory = (q.runtime.bisections[bisectionId] ??= newBisection());
  const groups = halves(prs)
    .filter((part) => part.length > 0)
    .map((part) => {
      const group = `g${q.runtime.counters.group++}`;
      // JOIN_GROUP names its move: reportBisecting.
      for (const number of part) q.sendPr(number, { type: 'JOIN_GROUP', bisectionId, group, part });
      return group;
    });
  const [first, second] = groups;
  if (q.queue.settings.optimizationMode === 'bisection_skip_redundant_tests' && first !== undefined && second !== undefined) {
    (memory.waits ??= {})[second] = { after: first, parent: [...prs] };
  }
}

/**
 * A bisection group passed: its PRs go back to the main line, behind the runs in progress (which they would
 * invalidate) and ahead of the PRs still waiting. Their pass stands if nothing merged since their run began but the
 * PRs it was tested on; otherwise they are tested again. With skip-redundant, the half that waited for them is now
 * known to fail, if their set failed on the same base.
 */
export function rescue(q: QueueTx, run: TestRunRecord, prs: number[]): void {
  const bisectionId = run.bisectionId as string;
  const memory = q.runtime.bisections[bisectionId];
  const group = q.requirePr(prs[0] as number).group;
  const mergedSince = memory === undefined || run.bisectionMark === undefined ? undefined : memory.merged.slice(run.bisectionMark);
  const stale =
    mergedSince === undefined ||
    mergesReach(
      q,
      mergedSince.filter((number) => !run.basePrs.includes(number)),
      run.prs,
    );
  for (const number of prs) q.sendPr(number, { type: 'LEAVE_GROUP' });
  q.runtime.lineup = q.runtime.lineup.filter((number) => !prs.includes(number));
  q.runtime.lineup.splice(afterResults(q), 0, ...prs);
  q.touchQueue();
  for (const number of prs) {
    q.timeline(number, { kind: 'rescued', bisectionId }, { runId: run.id });
    if (stale) requeue(q, number, 'the target branch moved since its bisection run began: tested again on top of it');
  }
  if (memory !== undefined && group !== null) inferSecondHalf(q, memory, bisectionId, group, run);
}

function inferSecondHalf(q: QueueTx, memory: BisectionMemory, bisectionId: string, group: string, run: TestRunRecord): void {
  for (const [second, wait] of Object.entries(memory.waits ?? {})) {
    if (wait.after !== group) continue;
    delete memory.waits?.[second];
    const members = q.runtime.lineup.filter((number) => q.requirePr(number).group === second);
    const whole = [...run.prs, ...members];
    const rest = new Set(wait.parent);
    if (members.length === 0 || whole.length !== rest.size || !whole.every((number) => rest.has(number))) continue;
    if (!knownToFail(memory, wait.parent, run.basePrs)) continue;
    rememberFailure(memory, members, run.basePrs);
    if (members.length > 1) split(q, members, bisectionId);
    else failAtOnce(q, members[0] as number, run.basePrs, bisectionId);
  }
}
