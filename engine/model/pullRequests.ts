/** The record of a pull request in a queue, as the API reads it (spec 2.3, the addendum's 2.4 fields) and the planner uses it. */
import type { PullRequestState } from '../../machines/vocabulary.js';
import type { Likelihood } from './likelihoodModel.js';

export const GIT_MERGEABILITY = ['unspecified', 'in_progress', 'mergeable', 'not_mergeable'] as const;
export type GitMergeability = (typeof GIT_MERGEABILITY)[number];

export interface Readiness {
  hasImpactedTargets: boolean;
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  gitHubMergeability: GitMergeability;
}

export interface PullRequestRecord {
  /** Queue entry id: a new one for each time the PR enters the queue. */
  id: string;
  queueId: string;
  number: number;
  title: string;
  sha: string;
  baseBranch: string;
  /** The branch the PR is made from, as the git host last said (absent: not said); clients may name the PR by it. */
  headBranch?: string;
  author: string;
  state: PullRequestState;
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string;
  skipTheLine: boolean;
  noBatch: boolean;
  readiness: Readiness;
  /** Whether the PR is based on the tip of the target branch (directMergeMode). */
  upToDate: boolean;
  /** The run testing it now, or the last one that did. */
  runId: string | null;
  /** Why it is in its state, for people (a failure, a cancel, what it waits for). */
  reason: string | null;
  /** Order of submission within the queue: FIFO among equal priorities. */
  submittedSeq: number;
  /** When it last became ready (ms): batching waits from here. */
  readyAt: number | null;
  /** The PRs (ahead of it in the queue) it was last tested on top of; with its state, what that result means. */
  testedBase: number[] | null;
  /** The bisection it belongs to, and its group there, while a failed batch is being split. */
  bisectionId: string | null;
  group: string | null;
  /** A merge was asked of the git host and its answer is awaited. */
  mergeRequested: boolean;
  /** How vouched: the passing run behind it, or `direct`. */
  mergedBy: string | null;
  /** Runs behind it that contained it and ended while it waited in PENDING_FAILURE. */
  runsBehindEnded: number;
  /** Of those, the runs that failed (anti-flake counts them against it). */
  runsBehindFailed?: number;
  /** Retests granted after a failure that nothing behind it could vouch for (anti-flake); 0 again once it passes. */
  failureRetests?: number;
  mergedSha: string | null;
  /** Refusals of its merge by the git host with the target where expected (bounded: MAX_MERGE_REFUSALS). */
  mergeRefusals?: number;
  /** Changed lines, as the git host reported them (absent when it does not say). */
  changedLines?: number;
  /** Its failed runs so far, over every entry of the PR in this queue (a feature of its failure likelihood). */
  failedAttempts?: number;
  /** Its failure likelihood (likelihoodModel.ts) and what it rests on, as last estimated. */
  likelihood?: Likelihood;
  /** The likelihood estimated when it last became ready, before any run of this entry: what speculation uses, and what the model learns from once the PR is resolved. */
  readyLikelihood?: Likelihood;
  /** Speculation by likelihood isolated this entry once (it is not isolated again). */
  speculated?: boolean;
}

/** One line of a PR's timeline: what happened to it, when. */
export interface TimelineEntry {
  at: string;
  entryId: string;
  event: string;
  message: string;
  runId?: string;
  sha?: string;
}
