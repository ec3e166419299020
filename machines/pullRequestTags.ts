/**
 * The pull request machine's tags (what a state means to the rest of the program) and the questions asked of them:
 * `hasPullRequestTag(state, tag)`, and `PR_IS`, one compiled predicate per tag for the planner's inner loops. Each
 * state's tags are read from the machine's definition (machines/pullRequest.ts).
 */
import { pullRequestMachine } from './pullRequest.js';
import type { PullRequestState } from './vocabulary.js';

/** What a state means, for the code outside the machine. */
export const PULL_REQUEST_TAGS = [
  /** In the queue (not final). */
  'enqueued',
  /** Waiting for its readiness checks (NOT_READY). */
  'notReady',
  /** Ready, waiting for a run (PENDING). */
  'waiting',
  /** A run is testing it (TESTING). */
  'testing',
  /** Its run passed (TESTS_PASSED). */
  'passed',
  /** It failed and waits for the failure to be settled (PENDING_FAILURE). */
  'failing',
  /** It has a result, or one under way: testing, passed or failing. */
  'hasResult',
  /** Final outcomes. */
  'merged',
  'kicked',
  'cancelled',
] as const;
export type PullRequestTag = (typeof PULL_REQUEST_TAGS)[number];

/** Each state's tags, read once from the machine's definition (plain objects: a lookup is two property reads). */
const TAGS_OF: Readonly<Record<string, Readonly<Record<string, true>>>> = Object.fromEntries(
  Object.values(pullRequestMachine.root.states).map((node) => [
    node.key,
    Object.fromEntries(node.tags.map((tag) => [tag, true])),
  ]),
);

/** Whether the machine tags `state` with `tag` (a lookup by name: see PR_IS for the planner's inner loops). */
export function hasPullRequestTag(state: PullRequestState, tag: PullRequestTag): boolean {
  return TAGS_OF[state]?.[tag] === true;
}

/**
 * A predicate that a state is one of `states`: comparisons of state names for the few a tag holds (the planner asks
 * them of every PR of the line-up in each plan, where a lookup by tag name costs about ten times as much), three at a
 * time. Closures, not code made at run time.
 */
function oneOf(states: readonly string[]): (state: PullRequestState) => boolean {
  const [a, b, c] = states;
  switch (states.length) {
    case 0:
      return () => false;
    case 1:
      return (state) => state === a;
    case 2:
      return (state) => state === a || state === b;
    case 3:
      return (state) => state === a || state === b || state === c;
    default: {
      const rest = oneOf(states.slice(3));
      return (state) => state === a || state === b || state === c || rest(state);
    }
  }
}

/** One predicate per tag, made from the machine's definition (the states it tags with it). */
export const PR_IS: { readonly [T in PullRequestTag]: (state: PullRequestState) => boolean } = Object.freeze(
  Object.fromEntries(
    PULL_REQUEST_TAGS.map((tag) => [
      tag,
      oneOf(Object.keys(TAGS_OF).filter((state) => TAGS_OF[state]?.[tag] === true)),
    ]),
  ),
) as { readonly [T in PullRequestTag]: (state: PullRequestState) => boolean };
