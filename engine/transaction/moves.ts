/**
 * The moves of one PR inside a queue's transaction, each through its machine: enter the line-up when ready, requeue,
 * kick, cancel, fail; and the line-up's order. Requeue, kick, cancel and fail return what to write (writes.ts), which
 * the caller writes (`q.write`); what follows each is named by the machine's transition and done by prMoves.ts. Runs
 * (runMoves.ts), bisections (bisectionMoves.ts) and merges (merging.ts) have modules of their own. Handlers (inputs
 * from outside) and the reconciler (the planner's decisions) use these.
 */
import { isEnqueued } from '../../machines/vocabulary.js';
import { hasPullRequestTag } from '../../machines/index.js';
import type { QueueTx } from './queueTx.js';
import { commentText, statusCheckText, type CommentText, type StatusCheckText } from '../model/texts.js';
import { NONE, type MoveScope, type Write } from './writes.js';

export const PRIORITIES: Record<string, number> = { urgent: 0, high: 10, medium: 100, low: 200 };
export const DEFAULT_PRIORITY = 'medium';

/** A sort value for the line-up: skipTheLine first, then priority value (0 highest). */
function rank(q: MoveScope, number: number): number {
  const pr = q.prs.enqueued(number) ?? q.prs.require(number);
  return pr.skipTheLine ? -1 : pr.priorityValue;
}

function interrupts(q: MoveScope, number: number): boolean {
  const pr = q.prs.require(number);
  return pr.skipTheLine || pr.priorityValue === 0;
}

/**
 * Puts a ready PR in its place. `urgent` and skipTheLine go to the front (behind others like them and behind a merge
 * under way), interrupting runs in progress; other PRs go behind every PR already testing, before waiting PRs of a
 * lower priority.
 */
export function insertIntoLineup(q: MoveScope, number: number): void {
  const lineup = q.runtime.lineup;
  let at = 0;
  if (interrupts(q, number)) {
    while (at < lineup.length) {
      const other = q.prs.require(lineup[at] as number);
      if (!other.mergeRequested && !interrupts(q, other.number)) break;
      at++;
    }
  } else {
    at = afterResults(q);
    while (at < lineup.length && rank(q, lineup[at] as number) <= rank(q, number)) at++;
  }
  lineup.splice(at, 0, number);
  q.touchQueue();
}

/** The place right behind every PR of the line-up that is testing, has a result, is being merged or bisected. */
export function afterResults(q: MoveScope): number {
  let at = 0;
  q.runtime.lineup.forEach((other, index) => {
    const pr = q.prs.enqueued(other) ?? q.prs.require(other);
    if (!hasPullRequestTag(pr.state, 'waiting') || pr.group !== null || pr.mergeRequested) at = index + 1;
  });
  return at;
}

/** What readiness says of impacted targets: required in parallel mode, present for the PR's head SHA or not. */
export function targetReadiness(
  q: MoveScope,
  number: number,
): { requiresImpactedTargets: boolean; hasImpactedTargets: boolean } {
  return {
    requiresImpactedTargets: q.queue.settings.mode === 'parallel',
    hasImpactedTargets: q.prs.targetsOf(number) !== undefined,
  };
}

/**
 * A NOT_READY PR whose git facts are good enters the line-up, unless the queue is parallel and its impacted targets
 * for its head SHA are missing. Returns whether it did.
 */
export function becomeReady(q: QueueTx, number: number): boolean {
  const pr = q.prs.require(number);
  const { readiness } = pr;
  if (
    !hasPullRequestTag(pr.state, 'notReady') ||
    readiness.gitHubMergeability !== 'mergeable' ||
    !readiness.doesBaseBranchMatch
  )
    return false;
  if (q.queue.settings.mode === 'parallel' && q.prs.targetsOf(number) === undefined) return false;
  // READY names its moves: enterLineup, then reportReady.
  q.sendPr(number, { type: 'READY' });
  return true;
}

/** The move `enterLineup`: ready now, out of the PRs waiting to be ready, into its place in the line-up. */
export function enterLineup(q: MoveScope, number: number): readonly Write[] {
  q.prs.mark(number).readyAt = q.now;
  q.runtime.waiting = q.runtime.waiting.filter((other) => other !== number);
  insertIntoLineup(q, number);
  return NONE;
}

/** The move `awaitReadiness`: out of the line-up, back among the PRs waiting to be ready. */
export function awaitReadiness(q: MoveScope, number: number): readonly Write[] {
  q.runtime.lineup = q.runtime.lineup.filter((other) => other !== number);
  if (!q.runtime.waiting.includes(number)) q.runtime.waiting.push(number);
  q.touchQueue();
  return NONE;
}

/** A new mode applied: every queued PR's readiness says what the mode asks, and PRs it no longer holds back enter. */
export function modeApplied(q: QueueTx): void {
  for (const number of [...q.runtime.lineup, ...q.runtime.waiting]) {
    const pr = q.prs.require(number);
    const targets = targetReadiness(q, number);
    if (
      pr.readiness.requiresImpactedTargets !== targets.requiresImpactedTargets ||
      pr.readiness.hasImpactedTargets !== targets.hasImpactedTargets
    ) {
      q.prs.mark(number).readiness = { ...pr.readiness, ...targets };
    }
  }
  for (const number of [...q.runtime.waiting]) becomeReady(q, number);
}

/** The move `leaveLineup`: out of the line-up and the PRs waiting to be ready. */
export function removeFromLineup(q: MoveScope, number: number): readonly Write[] {
  const runtime = q.runtime;
  runtime.lineup = runtime.lineup.filter((other) => other !== number);
  runtime.waiting = runtime.waiting.filter((other) => other !== number);
  return NONE;
}

/**
 * Back to waiting for a run: REQUEUE (its machine forgets the base it was tested on, and reportRequeued says why).
 * `failedFirst`: its run failed on a base holding that PR, which had failed first (it waits for it to settle).
 */
export function requeue(number: number, reason: string, failedFirst?: number): Write {
  return {
    to: 'pr',
    number,
    event: { type: 'REQUEUE', reason, ...(failedFirst === undefined ? {} : { failedFirst }) },
  };
}

/** Kicked for its failure: KICK, whose moves teach the likelihood model, leave the line-up and tell people. */
export function kick(q: MoveScope, number: number): Write {
  return { to: 'pr', number, event: { type: 'KICK', reason: q.prs.require(number).reason ?? 'its tests failed' } };
}

/**
 * Cancelled (closed, dequeued, refused too often, its run cancelled): CANCEL, whose moves leave the line-up, tell
 * people and cancel the run testing it. A merge under way cannot be cancelled (the machine refuses): a run of it
 * that ended without a verdict leaves it waiting for the git host's answer.
 */
export function cancelPr(q: MoveScope, number: number, reason: string): readonly Write[] {
  const pr = q.prs.require(number);
  if (!isEnqueued(pr.state)) return NONE;
  if (q.prs.can(number, { type: 'CANCEL', reason })) return [{ to: 'pr', number, event: { type: 'CANCEL', reason } }];
  return hasPullRequestTag(pr.state, 'testing') ? [requeue(number, reason)] : NONE;
}

/** A comment on the PR, if the queue's settings ask for comments. */
export function comment(q: MoveScope, number: number, text: CommentText): readonly Write[] {
  if (!q.queue.settings.commentsEnabled) return NONE;
  return [{ to: 'effect', effect: { kind: 'comment', repo: q.queue.repo, number, body: commentText(text) } }];
}

/** The queue's status check on the PR's head, if the queue's settings ask for it. */
export function statusCheck(q: MoveScope, number: number, text: StatusCheckText): readonly Write[] {
  const pr = q.prs.require(number);
  if (!q.queue.settings.statusCheckEnabled || pr.sha === '') return NONE;
  const effect = { kind: 'statusCheck', repo: q.queue.repo, sha: pr.sha, ...statusCheckText(text), number } as const;
  return [{ to: 'effect', effect }];
}

/** The PR failed (its machine starts counting the runs behind it again); `testedBase`: known to fail on it without a run. */
export function fail(number: number, runId: string | null, reason: string, testedBase?: number[]): Write {
  // FAIL names its move: reportFailing.
  return {
    to: 'pr',
    number,
    event: { type: 'FAIL', runId, reason, ...(testedBase === undefined ? {} : { testedBase }) },
  };
}
