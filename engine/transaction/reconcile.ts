/** Asks the planner what to do and does it, until it has nothing more to say. */
import { pullRequestFacts, type PullRequestContext } from '../../machines/index.js';
import { planTargets } from '../model/impactedTargets.js';
import { bisectionConcurrencyOf, mainWindowOf, speculationAllowance } from '../model/queues.js';
import { policyOf } from '../model/policy.js';
import { plan, type Decision, type PlanPullRequest } from '../planner/planner.js';
import { bisect, failAtOnce, retest, split } from './bisectionMoves.js';
import { requestMerge } from './merging.js';
import { kick, modeApplied, requeue } from './moves.js';
import { cancelRun, startRun } from './runMoves.js';
import type { QueueTx } from './queueTx.js';
import type { MoveScope, Write } from './writes.js';
import { isolate } from './speculate.js';

/** A bound no real queue reaches; hitting it means the planner and the engine disagree (a bug). */
const MAX_ROUNDS = 10_000;
const BATCH_TIMER = 'batch';
const TIDY_MARGIN = 16;

export function reconcile(q: QueueTx): void {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { decisions, wakeAt } = plan({
      state: q.queueState,
      settings: q.queue.settings,
      bisectionConcurrency: bisectionConcurrencyOf(q.queue.settings),
      policy: policyOf(q.runtime),
      window: mainWindowOf(q.queue.settings, q.runtime),
      ...(q.queue.settings.optimizationMode === 'speculate_by_likelihood' ? { speculation: speculationInput(q) } : {}),
      lineup: q.runtime.lineup.map((number) => planView(q, number)),
      activeRuns: q.runtime.activeRuns.map((id) => {
        const run = q.runs.require(id);
        return { id, kind: run.kind, prs: run.prs };
      }),
      merged: new Set(q.runtime.merged),
      bisections: q.runtime.bisections,
      now: q.now,
    });
    if (decisions.length === 0) {
      if (wakeAt === null) q.out.clearTimer(BATCH_TIMER);
      else q.out.setTimer(BATCH_TIMER, wakeAt);
      tidy(q);
      return;
    }
    for (const decision of decisions) apply(q, decision);
  }
  throw new Error(`queue ${q.queue.id}: the planner did not settle after ${MAX_ROUNDS} rounds`);
}

/**
 * A PR as the planner sees it: the facts its machine holds (machines/pullRequestContext.ts), and what the record adds
 * (its batching wishes, readiness, targets, likelihood). The working set keeps the view of a PR nothing happened to
 * (its record and targets unchanged), so a plan costs little for the PRs deep in the line-up.
 */
function planView(q: QueueTx, number: number): PlanPullRequest {
  const kept = q.prs.keptPlanView(number);
  if (kept !== undefined) return kept;
  const actor = q.prs.actor(number);
  const { record: pr, snapshot } = actor;
  // The machine's facts, and what the record adds set on the same object (a spread into a new one costs more).
  const view = pullRequestFacts(
    snapshot.value,
    snapshot.context as PullRequestContext,
    snapshot.status === 'active',
  ) as PlanPullRequest;
  view.number = number;
  view.noBatch = pr.noBatch;
  view.readyAt = pr.readyAt;
  view.upToDate = pr.upToDate;
  view.targets = q.queue.settings.mode === 'parallel' ? planTargets(q.prs.targetsOf(number)) : null;
  view.likelihood = pr.readyLikelihood?.p ?? null;
  q.prs.keepPlanView(number, actor, view);
  return view;
}

function speculationInput(q: QueueTx): { allowance: number; failureShare: number } {
  const [resolved, kicked] = q.runtime.likelihood?.queue ?? [0, 0];
  return { allowance: speculationAllowance(q.queue.settings, q.runtime), failureShare: (kicked + 1) / (resolved + 20) };
}

function apply(q: QueueTx, decision: Decision): void {
  if (decision.kind !== 'settle') return q.write(writesOf(q, decision));
  const mode = q.queue.settings.mode;
  q.sendQueue({ type: 'SETTLED' });
  if (q.queue.settings.mode !== mode) modeApplied(q);
}

/** What a decision of the planner's asks of the moves: what they return, for the transaction to write. */
function writesOf(q: MoveScope, decision: Exclude<Decision, { kind: 'settle' }>): readonly Write[] {
  switch (decision.kind) {
    case 'cancelRun':
      return cancelRun(q, decision.runId, decision.reason, 'requeue');
    case 'requeue':
      return [requeue(decision.pr, decision.reason)];
    case 'kick':
      return [kick(q, decision.pr)];
    case 'retest':
      return retest(q, decision.pr);
    case 'bisect':
      return bisect(q, decision);
    case 'merge':
      return [requestMerge(decision.pr, decision)];
    case 'startRun':
      return startRun(q, decision);
    case 'isolate':
      return isolate(q, decision);
    case 'split':
      return split(q, decision.prs, decision.bisectionId);
    case 'failAtOnce':
      return [failAtOnce(decision.pr, decision.basePrs, decision.bisectionId)];
  }
}

/** Forgets merged PRs and bisections nothing refers to any more. */
function tidy(q: QueueTx): void {
  const runtime = q.runtime;
  const memories = Object.entries(runtime.bisections);
  // Forgetting costs a pass over the line-up, and keeping a little more is harmless (merged PRs and ended bisections
  // are never asked about again): tidy once what is kept has doubled since the last tidy, plus a margin.
  const kept = runtime.merged.length + memories.length;
  if (kept < 2 * (runtime.tidied ?? 0) + TIDY_MARGIN) return;
  const merged = new Set(runtime.merged);
  const referenced = new Set<number>();
  const bisections = new Set<string>();
  const groups = new Set<string>();
  const note = (base: readonly number[]) => {
    if (merged.size > 0) for (const number of base) if (merged.has(number)) referenced.add(number);
  };
  for (const number of runtime.lineup) {
    const pr = q.prs.require(number);
    if (pr.testedBase !== null) note(pr.testedBase);
    if (pr.bisectionId !== null) bisections.add(pr.bisectionId);
    if (pr.group !== null) groups.add(pr.group);
  }
  for (const id of runtime.activeRuns) note(q.runs.require(id).basePrs);
  if (referenced.size !== runtime.merged.length)
    runtime.merged = runtime.merged.filter((number) => referenced.has(number));
  for (const [id, memory] of memories) {
    if (!bisections.has(id)) delete runtime.bisections[id];
    else for (const group of Object.keys(memory.waits ?? {})) if (!groups.has(group)) delete memory.waits?.[group];
  }
  runtime.tidied = runtime.merged.length + Object.keys(runtime.bisections).length;
}
