/**
 * The names of the moves the PR machine's transitions list (machines/pullRequest.ts): in the machine they do
 * nothing; the engine does each, after the machine moved (engine/transaction/prMoves.ts, one function per name).
 */
/** The moves, done in the order a transition lists them. */
export const PULL_REQUEST_MOVES = [
  /** Ready: into the line-up, in its place by priority, out of the PRs waiting to be ready. */
  'enterLineup',
  /** Not ready any more: out of the line-up, back among the PRs waiting to be ready. */
  'awaitReadiness',
  /** The merge asked of the git host (an effect), as the machine recorded it. */
  'askMerge',
  /** The target branch moved to the merged head: the queue's head, its merged PRs, the head's index. */
  'landMerge',
  /** The likelihood model learns from the PR's outcome (merged, or kicked). */
  'learnOutcome',
  /** Out of the line-up (and the PRs waiting to be ready). */
  'leaveLineup',
  /** The run testing it is cancelled (its other PRs are tested again). */
  'cancelItsRun',
  /** Timeline lines, comments and status checks that tell people. */
  'reportPassed',
  'reportMerged',
  'reportKicked',
  'reportCancelled',
  'reportRequeued',
  'reportReady',
  'reportUnready',
  'reportTesting',
  'reportBisecting',
  /** A failed attempt counted, and told with the likelihood it now gives. */
  'reportFailing',
] as const;
export type PullRequestMove = (typeof PULL_REQUEST_MOVES)[number];
