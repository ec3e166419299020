/**
 * The lifecycle of a pull request in a queue (spec 3.1). The machine says which moves are legal; the engine's
 * planner decides when to make them. Final: MERGED, FAILED, CANCELLED.
 */
import { assign, setup } from 'xstate';

export interface PullRequestContext {
  number: number;
  /** The run testing it now, or the last one that did. */
  runId: string | null;
  /** Why it is where it is (a failure, a cancel, a reason for waiting), for people. */
  reason: string | null;
}

export type PullRequestEvent =
  | { type: 'READY' }
  | { type: 'UNREADY'; reason: string }
  | { type: 'START_TEST'; runId: string }
  | { type: 'PASS' }
  /** `runId` null: a failure known without a run (a set that already failed in this bisection). */
  | { type: 'FAIL'; runId: string | null; reason: string }
  | { type: 'REQUEUE'; reason: string }
  /** Its run failed with others on a settled base: back to PENDING, in a group of a bisection. */
  | { type: 'BISECT'; reason: string }
  /** `direct`: merged without a test run; `vouchedBy`: a passing run behind it that contained it. */
  | { type: 'MERGE'; direct?: boolean; vouchedBy?: string }
  | { type: 'KICK'; reason: string }
  | { type: 'CANCEL'; reason: string };

/** Every state of an enqueued PR can be cancelled; a PR that left the queue cannot. */
const cancellable = { CANCEL: { target: 'CANCELLED', actions: 'recordReason' } } as const;

export const pullRequestMachine = setup({
  types: {
    context: {} as PullRequestContext,
    events: {} as PullRequestEvent,
    input: {} as { number: number },
  },
  guards: {
    isDirectMerge: ({ event }) => event.type === 'MERGE' && event.direct === true,
    isVouched: ({ event }) => event.type === 'MERGE' && event.vouchedBy !== undefined,
  },
  actions: {
    recordRun: assign({ runId: ({ event }) => ('runId' in event ? event.runId : null), reason: null }),
    recordReason: assign({ reason: ({ event }) => ('reason' in event ? event.reason : null) }),
    recordFailure: assign({
      runId: ({ context, event }) => (event.type === 'FAIL' ? event.runId : context.runId),
      reason: ({ event }) => ('reason' in event ? event.reason : null),
    }),
    clearReason: assign({ reason: null }),
  },
}).createMachine({
  id: 'pullRequest',
  context: ({ input }) => ({ number: input.number, runId: null, reason: null }),
  initial: 'NOT_READY',
  states: {
    NOT_READY: { on: { READY: { target: 'PENDING', actions: 'clearReason' }, ...cancellable } },
    PENDING: {
      on: {
        ...cancellable,
        UNREADY: { target: 'NOT_READY', actions: 'recordReason' },
        START_TEST: { target: 'TESTING', actions: 'recordRun' },
        FAIL: { target: 'PENDING_FAILURE', actions: 'recordFailure' },
        MERGE: [
          { guard: 'isDirectMerge', target: 'MERGED' },
          { guard: 'isVouched', target: 'MERGED' },
        ],
      },
    },
    TESTING: {
      on: {
        ...cancellable,
        PASS: { target: 'TESTS_PASSED', actions: 'clearReason' },
        FAIL: { target: 'PENDING_FAILURE', actions: 'recordFailure' },
        REQUEUE: { target: 'PENDING', actions: 'recordReason' },
        MERGE: { guard: 'isVouched', target: 'MERGED' },
      },
    },
    TESTS_PASSED: {
      on: {
        ...cancellable,
        MERGE: { target: 'MERGED' },
        REQUEUE: { target: 'PENDING', actions: 'recordReason' },
      },
    },
    PENDING_FAILURE: {
      on: {
        ...cancellable,
        KICK: { target: 'FAILED', actions: 'recordReason' },
        REQUEUE: { target: 'PENDING', actions: 'recordReason' },
        BISECT: { target: 'PENDING', actions: 'recordReason' },
        MERGE: { guard: 'isVouched', target: 'MERGED' },
      },
    },
    MERGED: { type: 'final' },
    FAILED: { type: 'final' },
    CANCELLED: { type: 'final' },
  },
});
