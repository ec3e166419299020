/**
 * The moves the PR machine's transitions name (`PULL_REQUEST_MOVES`, machines/pullRequestMoves.ts), one function per
 * name: `QueueTx.write` moves the machine, writes the record's projection of it, then does each move the transition
 * named, in the order named, and writes what they return (writes.ts): timeline lines, comments and status checks,
 * the merge asked of the host, the cancel of the run testing it. A move reads through its scope and never writes
 * itself, so it reads as the machine's chart does (`KICK / … learnOutcome, leaveLineup, reportKicked`).
 */
import type { PullRequestEvent, PullRequestMove } from '../../machines/index.js';
import { estimate, learn } from './likelihoodTx.js';
import { askMerge, landMerge } from './merging.js';
import { awaitReadiness, comment, enterLineup, removeFromLineup, statusCheck } from './moves.js';
import { cancelRun } from './runMoves.js';
import { NONE, type MoveScope, type Write } from './writes.js';

/** A move of the PR `number`, after its machine took `event`: what it returns is written after it, in order. */
export type PrMove = (q: MoveScope, number: number, event: PullRequestEvent) => readonly Write[];

/** The reason the event gives (every event that names a report carries one). */
function reasonOf(event: PullRequestEvent): string {
  return 'reason' in event ? event.reason : '';
}

export const PR_MOVES: Readonly<Record<PullRequestMove, PrMove>> = {
  enterLineup: (q, number) => enterLineup(q, number),
  awaitReadiness: (q, number) => awaitReadiness(q, number),
  askMerge: (q, number, event) => (event.type === 'REQUEST_MERGE' ? askMerge(q, number, event) : NONE),
  landMerge: (q, number, event) => landMerge(q, number, event.type === 'MERGE' ? (event.head ?? '') : ''),
  learnOutcome: (q, number, event) => learn(q, number, event.type === 'KICK'),
  // Its machine left its bisection group with the move that ended its entry (CANCEL, KICK, MERGE).
  leaveLineup: (q, number) => removeFromLineup(q, number),
  // Its run tested it (maybe with others): the result no longer means anything.
  cancelItsRun: (q, number, event) => {
    const runId = q.prs.require(number).runId;
    const why =
      event.type === 'MERGE' ? `#${number} merged, vouched for by a run behind it` : `#${number} was cancelled`;
    return runId !== null && q.runs.inProgress(runId) ? cancelRun(q, runId, why, 'requeue') : NONE;
  },
  reportPassed: (q, number) => {
    // PASS is taken in TESTING only, where START_TEST recorded the run.
    const runId = q.prs.require(number).runId as string;
    return [{ to: 'timeline', number, text: { kind: 'passed', runId }, extra: { runId } }];
  },
  reportMerged: (q, number) => {
    const head = q.prs.require(number).mergedSha ?? '';
    return [
      { to: 'timeline', number, text: { kind: 'merged', branch: q.queue.branch, head }, extra: { sha: head } },
      ...comment(q, number, { kind: 'merged', branch: q.queue.branch, head }),
      ...statusCheck(q, number, { kind: 'merged' }),
    ];
  },
  reportKicked: (q, number, event) => {
    const reason = reasonOf(event);
    const runId = q.prs.require(number).runId;
    return [
      { to: 'timeline', number, text: { kind: 'failed', reason }, extra: runId === null ? {} : { runId } },
      ...comment(q, number, { kind: 'removed', reason }),
      ...statusCheck(q, number, { kind: 'failed' }),
    ];
  },
  reportCancelled: (q, number, event) => {
    const reason = reasonOf(event);
    return [
      { to: 'timeline', number, text: { kind: 'cancelled', reason } },
      ...statusCheck(q, number, { kind: 'cancelled', reason }),
    ];
  },
  reportRequeued: (_q, number, event) => [
    { to: 'timeline', number, text: { kind: 'requeued', reason: reasonOf(event) } },
  ],
  reportReady: (q, number) => {
    const record = q.prs.mark(number);
    const text = {
      kind: 'ready',
      title: record.title,
      author: record.author,
      sha: record.sha,
      estimate: estimate(q, number),
    } as const;
    record.readyLikelihood = record.likelihood;
    return [{ to: 'timeline', number, text, extra: { sha: record.sha } }];
  },
  reportUnready: (_q, number, event) => [
    { to: 'timeline', number, text: { kind: 'unready', reason: reasonOf(event) } },
  ],
  reportTesting: (q, number, event) => {
    if (event.type !== 'START_TEST') return NONE;
    const run = q.runs.require(event.runId);
    const others = run.prs.filter((other) => other !== number);
    return [
      {
        to: 'timeline',
        number,
        text: { kind: 'testing', runId: run.id, basePrs: run.basePrs, with: others },
        extra: { runId: run.id },
      },
      ...statusCheck(q, number, { kind: 'testing', runId: run.id }),
    ];
  },
  reportFailing: (q, number, event) => {
    if (event.type !== 'FAIL') return NONE;
    // Its machine counted the attempt (countAttempt) before: its failed attempts are one of the likelihood's features.
    const text = { kind: 'pendingFailure', reason: event.reason, estimate: estimate(q, number) } as const;
    return [{ to: 'timeline', number, text, extra: event.runId === null ? {} : { runId: event.runId } }];
  },
  reportBisecting: (_q, number, event) =>
    event.type === 'JOIN_GROUP'
      ? [{ to: 'timeline', number, text: { kind: 'bisecting', bisectionId: event.bisectionId, part: [...event.part] } }]
      : NONE,
};
