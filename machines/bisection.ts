/**
 * The lifecycle of one bisection (a failed batch split off the main line; an anti-flake retest and a PR isolated by
 * speculation are bisections of one). Its groups are split in halves (`SPLIT`), tested on the head of the line
 * (`GROUP_TESTING`: halves under test), and each reaches a verdict: a group that passes is rescued back to the main
 * line (`GROUP_RESCUED`), one that fails is split again (`GROUP_FAILED`), and a group of one that fails names the
 * culprit (`CULPRIT_FOUND`); with skip-redundant a PR is known to fail without a run (`KNOWN_TO_FAIL`). It ends once
 * no group is left (guard `endsIt`); a verdict leaves it under test while another group is (`underTestAfter`).
 *
 * The engine drives it from the moves of the PRs in the bisection (engine/transaction/bisectionActors.ts): the PR
 * machine holds each PR's membership (`bisection` in its context), this one the bisection's progress, which the
 * dashboard and `greenline charts` draw. What the bisection remembers to infer with (its failed sets, its merges) is
 * the planner's (engine/planner/bisectionMemory.ts).
 */
import { assign, setup } from 'xstate';

/** A group of the bisection: its PRs and the run testing it (null: waiting for a slot or for a sibling's verdict). */
export interface BisectionGroup {
  prs: number[];
  runId: string | null;
}

export interface BisectionContext {
  id: string;
  groups: Record<string, BisectionGroup>;
  /** PRs found to be the cause: a group of one that failed, or was known to fail without a run. */
  culprits: number[];
  /** Groups that passed and went back to the main line. */
  rescued: string[];
}

export type BisectionEvent =
  /** A group formed of `prs` (the halves of a failed set, or a group of one). */
  | { type: 'SPLIT'; group: string; prs: readonly number[] }
  /** Its PR `pr` is tested by `runId` (a group a retest tests again forms anew). */
  | { type: 'GROUP_TESTING'; group: string; pr: number; runId: string }
  /** Its run was cancelled: back to waiting. */
  | { type: 'GROUP_UNTESTED'; group: string }
  /** It passed: back to the main line. */
  | { type: 'GROUP_RESCUED'; group: string }
  /** It failed with several PRs: it waits to be split again. */
  | { type: 'GROUP_FAILED'; group: string }
  /** It failed with one PR: that PR is the culprit. */
  | { type: 'CULPRIT_FOUND'; group: string; pr: number }
  /** Skip-redundant: the PR `pr` of `group` is known to fail without a run (the rest of its set passed). */
  | { type: 'KNOWN_TO_FAIL'; group: string; pr: number }
  /** A PR left its group (merged, kicked, cancelled, pushed to, or into a group of a new split). */
  | { type: 'LEFT'; group: string; pr: number };

/** What the bisection's states mean to the dashboard. */
export const BISECTION_TAGS = ['underTest', 'waiting', 'ended'] as const;
export type BisectionTag = (typeof BISECTION_TAGS)[number];

function without(groups: Record<string, BisectionGroup>, name: string): Record<string, BisectionGroup> {
  const { [name]: _gone, ...rest } = groups;
  return rest;
}

/** The groups once the event is taken: every action on groups is this, so the guards can look ahead. */
export function groupsAfter(context: BisectionContext, event: BisectionEvent): Record<string, BisectionGroup> {
  const { groups } = context;
  const group = groups[event.group];
  switch (event.type) {
    case 'SPLIT':
      return { ...groups, [event.group]: { prs: [...event.prs], runId: null } };
    case 'GROUP_TESTING': {
      const prs = group?.prs ?? [];
      return {
        ...groups,
        [event.group]: { prs: prs.includes(event.pr) ? prs : [...prs, event.pr], runId: event.runId },
      };
    }
    case 'GROUP_UNTESTED':
    case 'GROUP_FAILED':
      return group === undefined ? groups : { ...groups, [event.group]: { ...group, runId: null } };
    case 'GROUP_RESCUED':
    case 'CULPRIT_FOUND':
    case 'KNOWN_TO_FAIL':
      return without(groups, event.group);
    case 'LEFT': {
      if (group === undefined) return groups;
      const prs = group.prs.filter((number) => number !== event.pr);
      return prs.length === 0 ? without(groups, event.group) : { ...groups, [event.group]: { ...group, prs } };
    }
  }
}

type BisectionAction = 'untestGroup' | 'rescueGroup' | 'awaitSplit' | 'findCulprit' | 'dropGroup' | 'dropMember';
/** A verdict or a departure that may end the bisection (no group left), else leaves it where it is. */
const ends = <const A extends readonly BisectionAction[]>(actions: A) =>
  [{ guard: 'endsIt', target: 'ended', actions }, { actions }] as const;
/** Under test: a verdict leaves it under test while another group is (`underTestAfter`), else split. */
const settles = <const A extends readonly BisectionAction[]>(actions: A) =>
  [
    { guard: 'underTestAfter', actions },
    { target: 'split', actions },
  ] as const;
const endsOrSettles = <const A extends readonly BisectionAction[]>(actions: A) =>
  [
    { guard: 'endsIt', target: 'ended', actions },
    { guard: 'underTestAfter', actions },
    { target: 'split', actions },
  ] as const;

/** None under test: a group's run starts, or a group leaves (the last one ends it). */
const SPLIT_ON = {
  SPLIT: { actions: 'formGroup' },
  GROUP_TESTING: { target: 'halvesUnderTest', actions: 'testGroup' },
  GROUP_UNTESTED: { actions: 'untestGroup' },
  GROUP_FAILED: { actions: 'awaitSplit' },
  GROUP_RESCUED: ends(['rescueGroup']),
  CULPRIT_FOUND: ends(['findCulprit', 'dropGroup']),
  KNOWN_TO_FAIL: ends(['findCulprit', 'dropGroup']),
  LEFT: ends(['dropMember']),
} as const;

/** Halves under test: each verdict may end it, keep it under test, or leave the rest waiting. */
const UNDER_TEST_ON = {
  SPLIT: { actions: 'formGroup' },
  GROUP_TESTING: { actions: 'testGroup' },
  GROUP_UNTESTED: settles(['untestGroup']),
  GROUP_FAILED: settles(['awaitSplit']),
  GROUP_RESCUED: endsOrSettles(['rescueGroup']),
  CULPRIT_FOUND: endsOrSettles(['findCulprit', 'dropGroup']),
  KNOWN_TO_FAIL: endsOrSettles(['findCulprit', 'dropGroup']),
  LEFT: endsOrSettles(['dropMember']),
} as const;

export const bisectionMachine = setup({
  types: {
    context: {} as BisectionContext,
    events: {} as BisectionEvent,
    input: {} as { id: string },
    tags: {} as BisectionTag,
  },
  guards: {
    endsIt: ({ context, event }) => Object.keys(groupsAfter(context, event)).length === 0,
    underTestAfter: ({ context, event }) =>
      Object.values(groupsAfter(context, event)).some((group) => group.runId !== null),
  },
  actions: {
    formGroup: assign({ groups: ({ context, event }) => groupsAfter(context, event) }),
    testGroup: assign({ groups: ({ context, event }) => groupsAfter(context, event) }),
    untestGroup: assign({ groups: ({ context, event }) => groupsAfter(context, event) }),
    awaitSplit: assign({ groups: ({ context, event }) => groupsAfter(context, event) }),
    dropGroup: assign({ groups: ({ context, event }) => groupsAfter(context, event) }),
    dropMember: assign({ groups: ({ context, event }) => groupsAfter(context, event) }),
    rescueGroup: assign({
      groups: ({ context, event }) => groupsAfter(context, event),
      rescued: ({ context, event }) =>
        context.groups[event.group] === undefined || context.rescued.includes(event.group)
          ? context.rescued
          : [...context.rescued, event.group],
    }),
    findCulprit: assign({
      culprits: ({ context, event }) => {
        const pr = 'pr' in event ? event.pr : undefined;
        return pr === undefined || context.culprits.includes(pr) ? context.culprits : [...context.culprits, pr];
      },
    }),
  },
}).createMachine({
  id: 'bisection',
  context: ({ input }) => ({ id: input.id, groups: {}, culprits: [], rescued: [] }),
  initial: 'forming',
  states: {
    /** Made for a failed set (or a PR alone), before its first group forms. */
    forming: {
      tags: ['waiting'],
      on: {
        SPLIT: { target: 'split', actions: 'formGroup' },
        GROUP_TESTING: { target: 'halvesUnderTest', actions: 'testGroup' },
      },
    },
    /** Groups formed, none under test: each waits for a free slot, for its sibling's verdict, or to be split again. */
    split: { tags: ['waiting'], on: SPLIT_ON },
    /** A group's run is in progress. */
    halvesUnderTest: { tags: ['underTest'], on: UNDER_TEST_ON },
    ended: { type: 'final', tags: ['ended'] },
  },
});
