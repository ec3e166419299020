/**
 * The lifecycle of a pull request in a queue (spec 3.1). The machine says which moves are legal; the engine's
 * planner decides when to make them. Final: MERGED, FAILED, CANCELLED.
 *
 * A merge asked of the git host is part of the lifecycle too: `REQUEST_MERGE` records it (context `merge`, with how
 * the PR was vouched for), `MERGE_REFUSED` forgets it, `MERGE` completes it. It runs alongside the state the PR is
 * in (an optimistic merge starts while the PR is still TESTING or PENDING_FAILURE, and its run may end meanwhile),
 * so it is context with guards rather than a state of its own: while it is under way the PR cannot be cancelled
 * (`CANCEL` is refused) or restarted (`RESTART`, the question the API asks, is refused), and no second merge starts.
 *
 * What a result rests on is context too: the base it was tested on (`testedBase`, recorded by START_TEST: a change to
 * a PR of it sends a passed or failing PR back to PENDING, the guard `testedOnIt`) and the runs behind a failing PR
 * that ended (`runsBehindEnded`, `runsBehindFailed`: counted by RUN_BEHIND_ENDED, reset by FAIL and HEAD_PUSHED).
 *
 * The actions of a transition also name the moves the engine makes when the PR takes it (`PULL_REQUEST_MOVES`:
 * leave the line-up, report the outcome, cancel the run testing it, land the merge, …). In the machine they do
 * nothing; the engine collects them from the transition and does each (engine/transaction/prMoves.ts), so the chart
 * shows what follows each move.
 *
 * Tags say what a state means to the rest of the program (`PULL_REQUEST_TAGS`, pullRequestTags.ts): the engine, the
 * planner, the API and the dashboard ask `hasPullRequestTag(state, tag)` instead of comparing state names.
 */
import { assign, setup } from 'xstate';
import type { PullRequestTag } from './pullRequestTags.js';
import { PULL_REQUEST_MOVES, type PullRequestMove } from './pullRequestMoves.js';

/** A merge asked of the git host: `by` is `direct`, the run behind that vouched for it, or null (its own run passed). */
export interface PullRequestMerge {
  by: string | null;
}

export interface PullRequestContext {
  number: number;
  /** The run testing it now, or the last one that did. */
  runId: string | null;
  /** Why it is where it is (a failure, a cancel, a reason for waiting), for people. */
  reason: string | null;
  /** The merge asked of the git host (absent: none is under way); kept once MERGED, as how it merged. */
  merge?: PullRequestMerge;
  /** The bisection it belongs to, and its group there, while a failed batch is split (absent: on the main line). */
  bisection?: PullRequestBisection;
  /**
   * The PRs ahead of it that its last result was tested on top of (START_TEST, or a failure known without a run);
   * absent: none since it entered the queue or was requeued. With its state, what that result means.
   */
  testedBase?: readonly number[];
  /** Runs behind it that contained it and ended while it waited in PENDING_FAILURE (absent: none). */
  runsBehindEnded?: number;
  /** Of those, the runs that failed (anti-flake counts them against it); absent until first counted or reset. */
  runsBehindFailed?: number;
}

/** Membership of a bisection group: off the main line, tested with the group's other members only. */
export interface PullRequestBisection {
  id: string;
  group: string;
}

export type PullRequestEvent =
  | { type: 'READY' }
  | { type: 'UNREADY'; reason: string }
  /** Into a run, tested on top of `testedBase` (the PRs ahead of it in that run; absent: none). */
  | { type: 'START_TEST'; runId: string; testedBase?: readonly number[] }
  | { type: 'PASS' }
  /**
   * `runId` null: a failure known without a run (a set that already failed in this bisection), on `testedBase`.
   * Its runs behind start counting again. `conflict`: it does not apply on its base (the engine kicks it at once).
   */
  | { type: 'FAIL'; runId: string | null; reason: string; testedBase?: readonly number[]; conflict?: true }
  | { type: 'REQUEUE'; reason: string }
  /** A run that contained it ended while it waits in PENDING_FAILURE (`failed`: with a failure). */
  | { type: 'RUN_BEHIND_ENDED'; failed: boolean }
  /** Its head moved (a push): unless a merge is under way, what its old head earned behind it no longer counts. */
  | { type: 'HEAD_PUSHED' }
  /**
   * PR `number` of the base its result was tested on changed (pushed to, or not ready any more): a result that stood
   * on it no longer counts, so it is tested again (guard `testedOnIt`: only a PR that passed or is failing, with no
   * merge under way, and tested on `number`).
   */
  | { type: 'BASE_CHANGED'; number: number; reason: string }
  /** Its run failed with others on a settled base: back to PENDING, in a group of a bisection. */
  | { type: 'BISECT'; reason: string }
  /** Ask the git host to merge it. `direct`: without a test run; `vouchedBy`: a passing run behind it that contained it. */
  | { type: 'REQUEST_MERGE'; direct?: boolean; vouchedBy?: string }
  /** The git host refused the merge: it is no longer under way. */
  | { type: 'MERGE_REFUSED' }
  /** Into a group of a bisection (a failed batch split, an anti-flake retest, a PR isolated by speculation). */
  | { type: 'JOIN_GROUP'; bisectionId: string; group: string; part: readonly number[] }
  /** Back to the main line (its group passed, or its head moved); leaving the queue leaves the group too. */
  | { type: 'LEAVE_GROUP' }
  /** The git host merged it, making `head` the target's head. `direct` and `vouchedBy` as for REQUEST_MERGE. */
  | { type: 'MERGE'; direct?: boolean; vouchedBy?: string; head?: string }
  /** Anti-flake: a failed PR nothing behind it vouched for goes back to PENDING, to be tested alone once more. */
  | { type: 'RETEST'; reason: string }
  | { type: 'KICK'; reason: string }
  | { type: 'CANCEL'; reason: string }
  /**
   * Asked (`snapshot.can`), not sent: a restart through the API, which a merge under way forbids. Its targets say
   * what the engine then does: a PR not ready is checked again, a waiting one stays, a testing one stays until its
   * run is cancelled (which requeues it), one with a result is requeued.
   */
  | { type: 'RESTART' };

/** A move in the machine: nothing (the engine does it). */
const named = (): void => {};
const MOVE_ACTIONS = Object.fromEntries(PULL_REQUEST_MOVES.map((move) => [move, named])) as Record<PullRequestMove, typeof named>;

const tags = (...list: PullRequestTag[]): PullRequestTag[] => list;

/** What a cancel does: the reason recorded, the group and the line-up left, people told. */
const CANCELLED = ['recordReason', 'leaveGroup', 'leaveLineup', 'reportCancelled'] as const;
/** Every enqueued state can be cancelled, unless a merge is under way; a PR that left the queue cannot. */
const cancellable = { CANCEL: { guard: 'notMerging', target: 'CANCELLED', actions: CANCELLED } } as const;
/** What a merge does: the group left, the target moved on, the model taught, the line-up left, people told. */
const MERGED = ['leaveGroup', 'landMerge', 'learnOutcome', 'leaveLineup', 'reportMerged'] as const;
/** Back to waiting for a run: the reason recorded, the base it was tested on forgotten, people told. */
const REQUEUED = ['recordReason', 'forgetTestedBase', 'reportRequeued'] as const;
/**
 * A failure while TESTING: its own (its run failed), counted as a failed attempt and told with its new likelihood
 * (`reportFailing`); or a conflict (`conflict`: it does not apply), which the engine kicks at once, without either.
 */
const FAILS = [
  { guard: 'isConflict', target: 'PENDING_FAILURE', actions: 'recordFailure' },
  { target: 'PENDING_FAILURE', actions: ['recordFailure', 'reportFailing'] },
] as const;
/** Back to the main line from a bisection group (a PR in none stays as it is). */
const groupable = { LEAVE_GROUP: { actions: 'leaveGroup' } } as const;
/** The git host's refusal of a merge asked in this state. */
const refusable = { MERGE_REFUSED: { guard: 'isMerging', actions: 'forgetMerge' } } as const;
/** A restart asked through the API: where it leads from `target`, unless a merge is under way. */
const restartable = (target: 'NOT_READY' | 'PENDING' | 'TESTING') => ({ RESTART: { guard: 'notMerging', target } }) as const;
/** A push to its head, taken in every enqueued state unless a merge is under way (which goes on with what was tested). */
const pushable = { HEAD_PUSHED: { guard: 'notMerging', actions: 'resetRunsBehind' } } as const;
/** A result (passed, or failing) that stood on a PR of its base that changed: tested again. */
const rebased = { BASE_CHANGED: { guard: 'testedOnIt', target: 'PENDING', actions: REQUEUED } } as const;

export const pullRequestMachine = setup({
  types: {
    context: {} as PullRequestContext,
    events: {} as PullRequestEvent,
    input: {} as { number: number },
    tags: {} as PullRequestTag,
  },
  guards: {
    isConflict: ({ event }) => event.type === 'FAIL' && event.conflict === true,
    isDirectMerge: ({ event }) => event.type === 'MERGE' && event.direct === true,
    isVouched: ({ event }) => event.type === 'MERGE' && event.vouchedBy !== undefined,
    isMerging: ({ context }) => context.merge !== undefined,
    notMerging: ({ context }) => context.merge === undefined,
    mayMergeDirect: ({ context, event }) => context.merge === undefined && event.type === 'REQUEST_MERGE' && event.direct === true,
    mayMergeVouched: ({ context, event }) => context.merge === undefined && event.type === 'REQUEST_MERGE' && event.vouchedBy !== undefined,
    testedOnIt: ({ context, event }) => context.merge === undefined && event.type === 'BASE_CHANGED' && context.testedBase?.includes(event.number) === true,
  },
  actions: {
    recordRun: assign({
      runId: ({ event }) => ('runId' in event ? event.runId : null),
      reason: null,
      testedBase: ({ event }) => (event.type === 'START_TEST' ? (event.testedBase ?? []) : undefined),
    }),
    recordReason: assign({ reason: ({ event }) => ('reason' in event ? event.reason : null) }),
    recordFailure: assign({
      runId: ({ context, event }) => (event.type === 'FAIL' ? event.runId : context.runId),
      reason: ({ event }) => ('reason' in event ? event.reason : null),
      testedBase: ({ context, event }) => (event.type === 'FAIL' && event.testedBase !== undefined ? event.testedBase : context.testedBase),
      runsBehindEnded: 0,
      runsBehindFailed: 0,
    }),
    forgetTestedBase: assign({ testedBase: undefined }),
    countRunBehind: assign({
      runsBehindEnded: ({ context }) => (context.runsBehindEnded ?? 0) + 1,
      runsBehindFailed: ({ context, event }) => (event.type === 'RUN_BEHIND_ENDED' && event.failed ? (context.runsBehindFailed ?? 0) + 1 : context.runsBehindFailed),
    }),
    resetRunsBehind: assign({ runsBehindEnded: 0, runsBehindFailed: 0 }),
    ...MOVE_ACTIONS,
    clearReason: assign({ reason: null }),
    startMerge: assign({
      merge: ({ event }) => (event.type !== 'REQUEST_MERGE' ? undefined : { by: event.direct === true ? 'direct' : (event.vouchedBy ?? null) }),
    }),
    forgetMerge: assign({ merge: undefined }),
    joinGroup: assign({
      bisection: ({ event }) => (event.type === 'JOIN_GROUP' ? { id: event.bisectionId, group: event.group } : undefined),
    }),
    leaveGroup: assign({ bisection: undefined }),
  },
}).createMachine({
  id: 'pullRequest',
  context: ({ input }) => ({ number: input.number, runId: null, reason: null }),
  initial: 'NOT_READY',
  states: {
    NOT_READY: {
      tags: tags('enqueued', 'notReady'),
      on: {
        ...pushable,
        READY: { target: 'PENDING', actions: ['clearReason', 'enterLineup', 'reportReady'] },
        CANCEL: { target: 'CANCELLED', actions: CANCELLED },
        RESTART: { target: 'NOT_READY' },
      },
    },
    PENDING: {
      tags: tags('enqueued', 'waiting'),
      on: {
        ...cancellable,
        ...refusable,
        ...restartable('PENDING'),
        ...groupable,
        ...pushable,
        JOIN_GROUP: { actions: ['joinGroup', 'reportBisecting'] },
        UNREADY: { target: 'NOT_READY', actions: ['recordReason', 'leaveGroup', 'awaitReadiness', 'reportUnready'] },
        START_TEST: { target: 'TESTING', actions: ['recordRun', 'reportTesting'] },
        FAIL: { target: 'PENDING_FAILURE', actions: ['recordFailure', 'reportFailing'] },
        REQUEST_MERGE: [
          { guard: 'mayMergeDirect', actions: ['startMerge', 'askMerge'] },
          { guard: 'mayMergeVouched', actions: ['startMerge', 'askMerge'] },
        ],
        MERGE: [
          { guard: 'isDirectMerge', target: 'MERGED', actions: MERGED },
          { guard: 'isVouched', target: 'MERGED', actions: MERGED },
        ],
      },
    },
    TESTING: {
      tags: tags('enqueued', 'testing', 'hasResult'),
      on: {
        // Cancelled while tested: its run's result no longer means anything.
        CANCEL: { guard: 'notMerging', target: 'CANCELLED', actions: [...CANCELLED, 'cancelItsRun'] },
        ...refusable,
        ...restartable('TESTING'),
        ...groupable,
        ...pushable,
        PASS: { target: 'TESTS_PASSED', actions: ['clearReason', 'reportPassed'] },
        FAIL: FAILS,
        REQUEUE: { target: 'PENDING', actions: REQUEUED },
        REQUEST_MERGE: { guard: 'mayMergeVouched', actions: ['startMerge', 'askMerge'] },
        // Merged, vouched for by a run behind it, while its own run goes on: that run is cancelled.
        MERGE: { guard: 'isVouched', target: 'MERGED', actions: [...MERGED, 'cancelItsRun'] },
      },
    },
    TESTS_PASSED: {
      tags: tags('enqueued', 'passed', 'hasResult'),
      on: {
        ...cancellable,
        ...refusable,
        ...restartable('PENDING'),
        ...groupable,
        ...pushable,
        ...rebased,
        REQUEST_MERGE: { guard: 'notMerging', actions: ['startMerge', 'askMerge'] },
        MERGE: { target: 'MERGED', actions: MERGED },
        REQUEUE: { target: 'PENDING', actions: REQUEUED },
      },
    },
    PENDING_FAILURE: {
      tags: tags('enqueued', 'failing', 'hasResult'),
      on: {
        ...cancellable,
        ...refusable,
        ...restartable('PENDING'),
        ...groupable,
        ...pushable,
        ...rebased,
        RUN_BEHIND_ENDED: { actions: 'countRunBehind' },
        KICK: { target: 'FAILED', actions: ['recordReason', 'leaveGroup', 'learnOutcome', 'leaveLineup', 'reportKicked'] },
        REQUEUE: { target: 'PENDING', actions: REQUEUED },
        RETEST: { target: 'PENDING', actions: ['recordReason', 'forgetTestedBase'] },
        BISECT: { target: 'PENDING', actions: ['recordReason', 'forgetTestedBase'] },
        REQUEST_MERGE: { guard: 'mayMergeVouched', actions: ['startMerge', 'askMerge'] },
        MERGE: { guard: 'isVouched', target: 'MERGED', actions: MERGED },
      },
    },
    MERGED: { type: 'final', tags: tags('merged') },
    FAILED: { type: 'final', tags: tags('kicked') },
    CANCELLED: { type: 'final', tags: tags('cancelled') },
  },
});
