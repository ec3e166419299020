/**
 * The lifecycle of a test run (spec 3.3): a test branch tested by CI, decided by its required statuses. The
 * deadline is data: the engine's scheduler sends TIMEOUT when the clock reaches `deadlineAt`.
 *
 * With no required status from any source, every status reported on the run counts as required: it fails on any
 * failure or error, and passes once at least one status is reported and every reported status is a success.
 */
import { assign, setup } from 'xstate';
import type { TestRunStatus } from './vocabulary.js';

/** What a run status means, for the code outside the machine: `inProgress`, `ended` and the verdicts. */
export const TEST_RUN_TAGS = ['inProgress', 'ended', 'succeeded', 'failed', 'cancelled'] as const;
export type TestRunTag = (typeof TEST_RUN_TAGS)[number];
const tags = (...list: TestRunTag[]): TestRunTag[] => list;

export type CommitState = 'pending' | 'success' | 'failure' | 'error';

export interface TestRunContext {
  runId: string;
  requiredStatuses: string[];
  /** The latest state of each status context reported on the test branch's SHA. */
  statuses: Record<string, CommitState>;
  /** Milliseconds since the epoch: testing times out then. */
  deadlineAt: number;
  reason: string | null;
}

export type TestRunEvent =
  | { type: 'STATUS'; context: string; state: CommitState }
  | { type: 'TIMEOUT'; at: number }
  | { type: 'CANCEL'; reason: string };

type StatusEvent = Extract<TestRunEvent, { type: 'STATUS' }>;

function statusesWith(context: TestRunContext, event: StatusEvent): Record<string, CommitState> {
  return { ...context.statuses, [event.context]: event.state };
}

/** The statuses that decide the run: the required ones, or every reported one when none is required. */
function deciding(context: TestRunContext, statuses: Record<string, CommitState>): (CommitState | undefined)[] {
  return context.requiredStatuses.length > 0
    ? context.requiredStatuses.map((name) => statuses[name])
    : Object.values(statuses);
}

export const testRunMachine = setup({
  types: {
    context: {} as TestRunContext,
    events: {} as TestRunEvent,
    input: {} as { runId: string; requiredStatuses: string[]; deadlineAt: number },
    tags: {} as TestRunTag,
  },
  guards: {
    requiredStatusFailed: ({ context, event }) =>
      event.type === 'STATUS' &&
      deciding(context, statusesWith(context, event)).some((state) => state === 'failure' || state === 'error'),
    allRequiredStatusesPassed: ({ context, event }) => {
      if (event.type !== 'STATUS') return false;
      const states = deciding(context, statusesWith(context, event));
      return states.length > 0 && states.every((state) => state === 'success');
    },
    deadlinePassed: ({ context, event }) => event.type === 'TIMEOUT' && event.at >= context.deadlineAt,
  },
  actions: {
    recordStatus: assign({
      statuses: ({ context, event }) => (event.type === 'STATUS' ? statusesWith(context, event) : context.statuses),
    }),
    recordFailedStatus: assign({
      statuses: ({ context, event }) => (event.type === 'STATUS' ? statusesWith(context, event) : context.statuses),
      reason: ({ event }) =>
        event.type === 'STATUS' ? `required status ${event.context} reported ${event.state}` : null,
    }),
    recordTimeout: assign({
      reason: ({ context }) => `no result before the testing timeout (${new Date(context.deadlineAt).toISOString()})`,
    }),
    recordReason: assign({ reason: ({ event }) => (event.type === 'CANCEL' ? event.reason : null) }),
  },
}).createMachine({
  id: 'testRun',
  context: ({ input }) => ({ ...input, statuses: {}, reason: null }),
  initial: 'in_progress',
  states: {
    in_progress: {
      tags: tags('inProgress'),
      on: {
        STATUS: [
          { guard: 'requiredStatusFailed', target: 'failed', actions: 'recordFailedStatus' },
          { guard: 'allRequiredStatusesPassed', target: 'succeeded', actions: 'recordStatus' },
          { actions: 'recordStatus' },
        ],
        TIMEOUT: { guard: 'deadlinePassed', target: 'cancelled', actions: 'recordTimeout' },
        CANCEL: { target: 'cancelled', actions: 'recordReason' },
      },
    },
    succeeded: { type: 'final', tags: tags('ended', 'succeeded') },
    failed: { type: 'final', tags: tags('ended', 'failed') },
    cancelled: { type: 'final', tags: tags('ended', 'cancelled') },
  },
});

/** Each state's tags, read once from the machine's definition (plain objects: a lookup is two property reads). */
const TAGS_OF: Readonly<Record<string, Readonly<Record<string, true>>>> = Object.fromEntries(
  Object.values(testRunMachine.root.states).map((node) => [
    node.key,
    Object.fromEntries(node.tags.map((tag) => [tag, true])),
  ]),
);

/** Whether the machine tags the run status `status` with `tag`. */
export function hasTestRunTag(status: TestRunStatus, tag: TestRunTag): boolean {
  return TAGS_OF[status]?.[tag] === true;
}
