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
 * So are the other facts the failure policy (engine/planner/failurePolicy.ts) and the engine judge a PR by: its
 * anti-flake retests (`failureRetests`: RETEST counts, PASS and HEAD_PUSHED reset), the git host's refusals of its
 * merge (`mergeRefusals`), its failed attempts over every entry in the queue (`failedAttempts`, from the input) and
 * whether speculation isolated it (`speculated`). `pullRequestFacts` (pullRequestContext.ts) reads them all.
 *
 * The failure waits and the vouched merge are named guards, so the chart shows them; the engine decides them (the
 * rule is engine/planner/failurePolicy.ts) and the event says what it decided: `awaitsRunsBehind` (a run behind a
 * failing PR ended and it still waits for runs behind it, pendingFailureDepth), `awaitsFailureBelow` (its run failed
 * on a base holding a PR that had failed first: back to PENDING until that failure settles) and `vouchedByRunBehind`
 * (merged because a passing run behind it contained it).
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
import type { PullRequestContext, PullRequestEvent, PullRequestInput } from './pullRequestContext.js';

export type {
  PullRequestBisection,
  PullRequestContext,
  PullRequestEvent,
  PullRequestInput,
  PullRequestMerge,
} from './pullRequestContext.js';

/** A move in the machine: nothing (the engine does it). */
const named = (): void => {};
const MOVE_ACTIONS = Object.fromEntries(PULL_REQUEST_MOVES.map((move) => [move, named])) as Record<
  PullRequestMove,
  typeof named
>;

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
  { target: 'PENDING_FAILURE', actions: ['recordFailure', 'countAttempt', 'reportFailing'] },
] as const;
/** Back to the main line from a bisection group (a PR in none stays as it is). */
const groupable = { LEAVE_GROUP: { actions: 'leaveGroup' } } as const;
/** The git host's refusal of a merge asked in this state. */
const refusable = { MERGE_REFUSED: { guard: 'isMerging', actions: ['forgetMerge', 'countRefusal'] } } as const;
/** A restart asked through the API: where it leads from `target`, unless a merge is under way. */
const restartable = (target: 'NOT_READY' | 'PENDING' | 'TESTING') =>
  ({ RESTART: { guard: 'notMerging', target } }) as const;
/** A push to its head, taken in every enqueued state unless a merge is under way (which goes on with what was tested). */
const pushable = { HEAD_PUSHED: { guard: 'notMerging', actions: 'resetRunsBehind' } } as const;
/** A result (passed, or failing) that stood on a PR of its base that changed: tested again. */
const rebased = { BASE_CHANGED: { guard: 'testedOnIt', target: 'PENDING', actions: REQUEUED } } as const;

export const pullRequestMachine = setup({
  types: {
    context: {} as PullRequestContext,
    events: {} as PullRequestEvent,
    input: {} as PullRequestInput,
    tags: {} as PullRequestTag,
  },
  guards: {
    isConflict: ({ event }) => event.type === 'FAIL' && event.conflict === true,
    isDirectMerge: ({ event }) => event.type === 'MERGE' && event.direct === true,
    vouchedByRunBehind: ({ event }) => event.type === 'MERGE' && event.vouchedBy !== undefined,
    awaitsRunsBehind: ({ event }) => event.type === 'RUN_BEHIND_ENDED' && event.awaitsMore === true,
    awaitsFailureBelow: ({ event }) => event.type === 'REQUEUE' && event.failedFirst !== undefined,
    isMerging: ({ context }) => context.merge !== undefined,
    notMerging: ({ context }) => context.merge === undefined,
    mayMergeDirect: ({ context, event }) =>
      context.merge === undefined && event.type === 'REQUEST_MERGE' && event.direct === true,
    mayMergeVouched: ({ context, event }) =>
      context.merge === undefined && event.type === 'REQUEST_MERGE' && event.vouchedBy !== undefined,
    notSpeculated: ({ context }) => context.speculated !== true,
    testedOnIt: ({ context, event }) =>
      context.merge === undefined &&
      event.type === 'BASE_CHANGED' &&
      context.testedBase?.includes(event.number) === true,
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
      testedBase: ({ context, event }) =>
        event.type === 'FAIL' && event.testedBase !== undefined ? event.testedBase : context.testedBase,
      runsBehindEnded: 0,
      runsBehindFailed: 0,
    }),
    forgetTestedBase: assign({ testedBase: undefined }),
    countRunBehind: assign({
      runsBehindEnded: ({ context }) => (context.runsBehindEnded ?? 0) + 1,
      runsBehindFailed: ({ context, event }) =>
        event.type === 'RUN_BEHIND_ENDED' && event.failed
          ? (context.runsBehindFailed ?? 0) + 1
          : context.runsBehindFailed,
    }),
    // A push: what its old head earned or lost no longer counts (its failed attempts stay: they are the PR's).
    resetRunsBehind: assign({ runsBehindEnded: 0, runsBehindFailed: 0, failureRetests: 0, mergeRefusals: 0 }),
    countAttempt: assign({ failedAttempts: ({ context }) => (context.failedAttempts ?? 0) + 1 }),
    countRetest: assign({ failureRetests: ({ context }) => (context.failureRetests ?? 0) + 1 }),
    endRetests: assign({ failureRetests: 0 }),
    countRefusal: assign({
      mergeRefusals: ({ context, event }) =>
        event.type === 'MERGE_REFUSED' && event.counted === true
          ? (context.mergeRefusals ?? 0) + 1
          : context.mergeRefusals,
    }),
    markSpeculated: assign({ speculated: true as const }),
    ...MOVE_ACTIONS,
    clearReason: assign({ reason: null }),
    startMerge: assign({
      merge: ({ event }) =>
        event.type !== 'REQUEST_MERGE'
          ? undefined
          : { by: event.direct === true ? 'direct' : (event.vouchedBy ?? null) },
    }),
    forgetMerge: assign({ merge: undefined }),
    joinGroup: assign({
      bisection: ({ event }) =>
        event.type === 'JOIN_GROUP' ? { id: event.bisectionId, group: event.group } : undefined,
    }),
    leaveGroup: assign({ bisection: undefined }),
  },
}).createMachine({
  id: 'pullRequest',
  context: ({ input }) => ({
    number: input.number,
    runId: null,
    reason: null,
    ...(input.failedAttempts === undefined ? {} : { failedAttempts: input.failedAttempts }),
  }),
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
        ISOLATE: { guard: 'notSpeculated', actions: 'markSpeculated' },
        UNREADY: { target: 'NOT_READY', actions: ['recordReason', 'leaveGroup', 'awaitReadiness', 'reportUnready'] },
        START_TEST: { target: 'TESTING', actions: ['recordRun', 'reportTesting'] },
        FAIL: { target: 'PENDING_FAILURE', actions: ['recordFailure', 'countAttempt', 'reportFailing'] },
        REQUEST_MERGE: [
          { guard: 'mayMergeDirect', actions: ['startMerge', 'askMerge'] },
          { guard: 'mayMergeVouched', actions: ['startMerge', 'askMerge'] },
        ],
        MERGE: [
          { guard: 'isDirectMerge', target: 'MERGED', actions: MERGED },
          { guard: 'vouchedByRunBehind', target: 'MERGED', actions: MERGED },
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
        PASS: { target: 'TESTS_PASSED', actions: ['clearReason', 'endRetests', 'reportPassed'] },
        FAIL: FAILS,
        // Its run failed on a base holding a PR that had failed first: it waits for that failure to settle.
        REQUEUE: [
          { guard: 'awaitsFailureBelow', target: 'PENDING', actions: REQUEUED },
          { target: 'PENDING', actions: REQUEUED },
        ],
        REQUEST_MERGE: { guard: 'mayMergeVouched', actions: ['startMerge', 'askMerge'] },
        // Merged, vouched for by a run behind it, while its own run goes on: that run is cancelled.
        MERGE: { guard: 'vouchedByRunBehind', target: 'MERGED', actions: [...MERGED, 'cancelItsRun'] },
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
        // The pending-failure wait (pendingFailureDepth): it waits while runs behind it may still vouch for it.
        RUN_BEHIND_ENDED: [{ guard: 'awaitsRunsBehind', actions: 'countRunBehind' }, { actions: 'countRunBehind' }],
        KICK: {
          target: 'FAILED',
          actions: ['recordReason', 'leaveGroup', 'learnOutcome', 'leaveLineup', 'reportKicked'],
        },
        REQUEUE: { target: 'PENDING', actions: REQUEUED },
        RETEST: { target: 'PENDING', actions: ['recordReason', 'forgetTestedBase', 'countRetest'] },
        BISECT: { target: 'PENDING', actions: ['recordReason', 'forgetTestedBase'] },
        REQUEST_MERGE: { guard: 'mayMergeVouched', actions: ['startMerge', 'askMerge'] },
        MERGE: { guard: 'vouchedByRunBehind', target: 'MERGED', actions: MERGED },
      },
    },
    MERGED: { type: 'final', tags: tags('merged') },
    FAILED: { type: 'final', tags: tags('kicked') },
    CANCELLED: { type: 'final', tags: tags('cancelled') },
  },
});
