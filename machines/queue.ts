/**
 * The lifecycle of a queue (spec 3.2). `paused`: nothing starts testing, nothing merges. `draining`: nothing new
 * starts, passed PRs merge, then it pauses. `switching_modes`: like draining until in-flight runs end, then the new
 * mode applies and the queue goes back to the state it was asked for. The engine sends SETTLED when no run is in
 * flight and no passed PR is waiting to merge.
 */
import { assign, setup } from 'xstate';
import type { QueueMode, QueueState, RequestableQueueState } from './vocabulary.js';

/**
 * What a queue state means, for the code outside the machine (the planner, the handlers): `startsWork` (new runs,
 * direct merges, speculation start), `merges` (passed PRs merge), `settles` (SETTLED is awaited once nothing is in
 * flight), `refusesSubmissions` (no new PR enters).
 */
export const QUEUE_TAGS = ['startsWork', 'merges', 'settles', 'refusesSubmissions'] as const;
export type QueueTag = (typeof QUEUE_TAGS)[number];
const tags = (...list: QueueTag[]): QueueTag[] => list;

export interface QueueContext {
  mode: QueueMode;
  /** The mode a switch waits to apply. */
  pendingMode: QueueMode | null;
  /** The state to enter when a mode switch completes. */
  resumeTo: RequestableQueueState;
}

export type QueueEvent =
  | { type: 'PAUSE' }
  | { type: 'RESUME' }
  | { type: 'DRAIN' }
  | { type: 'SWITCH_MODE'; mode: QueueMode }
  | { type: 'SETTLED' };

export const queueMachine = setup({
  types: {
    context: {} as QueueContext,
    events: {} as QueueEvent,
    input: {} as { mode: QueueMode },
    tags: {} as QueueTag,
  },
  guards: {
    isNewMode: ({ context, event }) => event.type === 'SWITCH_MODE' && event.mode !== context.mode,
    resumesRunning: ({ context }) => context.resumeTo === 'running',
    resumesPaused: ({ context }) => context.resumeTo === 'paused',
  },
  actions: {
    startSwitch: assign({
      pendingMode: ({ event }) => (event.type === 'SWITCH_MODE' ? event.mode : null),
      resumeTo: (_, params: { resumeTo: RequestableQueueState }) => params.resumeTo,
    }),
    retarget: assign({
      pendingMode: ({ context, event }) => (event.type === 'SWITCH_MODE' ? event.mode : context.pendingMode),
    }),
    resumeTo: assign({ resumeTo: (_, params: { state: RequestableQueueState }) => params.state }),
    applyMode: assign({ mode: ({ context }) => context.pendingMode ?? context.mode, pendingMode: null }),
  },
}).createMachine({
  id: 'queue',
  context: ({ input }) => ({ mode: input.mode, pendingMode: null, resumeTo: 'running' }),
  initial: 'running',
  states: {
    running: {
      tags: tags('startsWork', 'merges'),
      on: {
        PAUSE: 'paused',
        DRAIN: 'draining',
        SWITCH_MODE: {
          guard: 'isNewMode',
          target: 'switching_modes',
          actions: { type: 'startSwitch', params: { resumeTo: 'running' } },
        },
      },
    },
    paused: {
      tags: tags(),
      on: {
        RESUME: 'running',
        DRAIN: 'draining',
        SWITCH_MODE: {
          guard: 'isNewMode',
          target: 'switching_modes',
          actions: { type: 'startSwitch', params: { resumeTo: 'paused' } },
        },
      },
    },
    draining: {
      tags: tags('merges', 'settles', 'refusesSubmissions'),
      on: {
        RESUME: 'running',
        PAUSE: 'paused',
        SETTLED: 'paused',
        SWITCH_MODE: {
          guard: 'isNewMode',
          target: 'switching_modes',
          actions: { type: 'startSwitch', params: { resumeTo: 'draining' } },
        },
      },
    },
    switching_modes: {
      tags: tags('merges', 'settles'),
      on: {
        RESUME: { actions: { type: 'resumeTo', params: { state: 'running' } } },
        PAUSE: { actions: { type: 'resumeTo', params: { state: 'paused' } } },
        DRAIN: { actions: { type: 'resumeTo', params: { state: 'draining' } } },
        SWITCH_MODE: { actions: 'retarget' },
        SETTLED: [
          { guard: 'resumesRunning', target: 'running', actions: 'applyMode' },
          { guard: 'resumesPaused', target: 'paused', actions: 'applyMode' },
          { target: 'draining', actions: 'applyMode' },
        ],
      },
    },
  },
});

/** Each state's tags, read once from the machine's definition (plain objects: a lookup is two property reads). */
const TAGS_OF: Readonly<Record<string, Readonly<Record<string, true>>>> = Object.fromEntries(
  Object.values(queueMachine.root.states).map((node) => [
    node.key,
    Object.fromEntries(node.tags.map((tag) => [tag, true])),
  ]),
);

/** Whether the machine tags `state` with `tag`. */
export function hasQueueTag(state: QueueState, tag: QueueTag): boolean {
  return TAGS_OF[state]?.[tag] === true;
}
