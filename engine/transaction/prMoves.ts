/**
 * The moves the PR machine's transitions name (`PULL_REQUEST_MOVES`, machines/pullRequestMoves.ts), one function per name:
 * `QueueTx.sendPr` moves the machine, writes the record's projection of it, then does each move the transition
 * named, in the order named. A handler (or the reconciler) asks the machine and sends the event; what follows the
 * event is here, and reads as the machine's chart does (`KICK / … learnOutcome, leaveLineup, reportKicked`).
 */
import type { PullRequestEvent, PullRequestMove } from '../../machines/index.js';
import { estimate, learn } from './likelihoodTx.js';
import { askMerge, landMerge } from './merging.js';
import { awaitReadiness, comment, enterLineup, removeFromLineup, statusCheck } from './moves.js';
import type { QueueTx } from './queueTx.js';
import { cancelRun } from './runMoves.js';

/** A move of the PR `number`, after its machine took `event`. */
export type PrMove = (q: QueueTx, number: number, event: PullRequestEvent) => void;

/** The reason the event gives (every event that names a report carries one). */
function reasonOf(event: PullRequestEvent): string {
  return 'reason' in event ? event.reason : '';
}

export const PR_MOVES: Readonly<Record<PullRequestMove, PrMove>> = {
  enterLineup: (q, number) => enterLineup(q, number),
  awaitReadiness: (q, number) => awaitReadiness(q, number),
  askMerge: (q, number, event) => {
    if (event.type === 'REQUEST_MERGE') askMerge(q, number, event);
  },
  landMerge: (q, number, event) => landMerge(q, number, event.type === 'MERGE' ? (event.head ?? '') : ''),
  learnOutcome: (q, number, event) => learn(q, number, event.type === 'KICK'),
  // Its machine left its bisection group with the move that ended its entry (CANCEL, KICK, MERGE).
  leaveLineup: (q, number) => removeFromLineup(q, number),
  // Its run tested it (maybe with others): the result no longer means anything.
  cancelItsRun: (q, number, event) => {
    const runId = q.prs.require(number).runId;
    const why =
      event.type === 'MERGE' ? `#${number} merged, vouched for by a run behind it` : `#${number} was cancelled`;
    if (runId !== null && q.runs.inProgress(runId)) cancelRun(q, runId, why, 'requeue');
  },
  reportPassed: (q, number) => {
    // PASS is taken in TESTING only, where START_TEST recorded the run.
    const runId = q.prs.require(number).runId as string;
    q.out.timeline(number, { kind: 'passed', runId }, { runId });
  },
  reportMerged: (q, number) => {
    const head = q.prs.require(number).mergedSha ?? '';
    q.out.timeline(number, { kind: 'merged', branch: q.queue.branch, head }, { sha: head });
    comment(q, number, { kind: 'merged', branch: q.queue.branch, head });
    statusCheck(q, number, { kind: 'merged' });
  },
  reportKicked: (q, number, event) => {
    const reason = reasonOf(event);
    const runId = q.prs.require(number).runId;
    q.out.timeline(number, { kind: 'failed', reason }, runId === null ? {} : { runId });
    comment(q, number, { kind: 'removed', reason });
    statusCheck(q, number, { kind: 'failed' });
  },
  reportCancelled: (q, number, event) => {
    const reason = reasonOf(event);
    q.out.timeline(number, { kind: 'cancelled', reason });
    statusCheck(q, number, { kind: 'cancelled', reason });
  },
  reportRequeued: (q, number, event) => q.out.timeline(number, { kind: 'requeued', reason: reasonOf(event) }),
  reportReady: (q, number) => {
    const record = q.prs.mark(number);
    q.out.timeline(
      number,
      { kind: 'ready', title: record.title, author: record.author, sha: record.sha, estimate: estimate(q, number) },
      { sha: record.sha },
    );
    record.readyLikelihood = record.likelihood;
  },
  reportUnready: (q, number, event) => q.out.timeline(number, { kind: 'unready', reason: reasonOf(event) }),
  reportTesting: (q, number, event) => {
    if (event.type !== 'START_TEST') return;
    const run = q.runs.require(event.runId);
    q.out.timeline(
      number,
      { kind: 'testing', runId: run.id, basePrs: run.basePrs, with: run.prs.filter((other) => other !== number) },
      { runId: run.id },
    );
    statusCheck(q, number, { kind: 'testing', runId: run.id });
  },
  reportFailing: (q, number, event) => {
    if (event.type !== 'FAIL') return;
    // Its machine counted the attempt (countAttempt) before: its failed attempts are one of the likelihood's features.
    q.out.timeline(
      number,
      { kind: 'pendingFailure', reason: event.reason, estimate: estimate(q, number) },
      event.runId === null ? {} : { runId: event.runId },
    );
  },
  reportBisecting: (q, number, event) => {
    if (event.type === 'JOIN_GROUP')
      q.out.timeline(number, { kind: 'bisecting', bisectionId: event.bisectionId, part: [...event.part] });
  },
};
