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
  Object.values(pullRequestMachine.root.states).map((node) => [node.key, Object.fromEntries(node.tags.map((tag) => [tag, true]))]),
);

/** Whether the machine tags `state` with `tag` (a lookup by name: see PR_IS for the planner's inner loops). */
export function hasPullRequestTag(state: PullRequestState, tag: PullRequestTag): boolean {
  return TAGS_OF[state]?.[tag] === true;
}

/**
 * One predicate per tag, compiled from the machine's definition into comparisons of state names
 * (`state === "TESTING" || …`). The planner asks them of every PR of the line-up in each plan, where a lookup by tag
 * name (hasPullRequestTag) costs about ten times as much. The code is made here, from this module's own state names.
 */
export const PR_IS: { readonly [T in PullRequestTag]: (state: PullRequestState) => boolean } = Object.freeze(
  Object.fromEntries(
    PULL_REQUEST_TAGS.map((tag) => {
      const states = Object.keys(TAGS_OF).filter((state) => TAGS_OF[state]?.[tag] === true);
      const test = states.map((state) => `state === ${JSON.stringify(state)}`).join(' || ') || 'false';
      return [tag, new Function('state', `return ${test};`) as (state: PullRequestState) => boolean];
    }),
  ),
) as { readonly [T in PullRequestTag]: (state: PullRequestState) => boolean };
