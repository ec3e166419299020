/**
 * The PR machine's context, input and events (the machine is pullRequest.ts), and the facts the engine and the
 * planner read of a PR's machine (`pullRequestFacts`): one projection, so that no caller copies them field by field.
 */
import type { PullRequestState } from './vocabulary.js';

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
  /** Anti-flake retests since it last passed or was pushed to (absent until first counted or reset). */
  failureRetests?: number;
  /** The git host's refusals of its merge with the target where expected (absent: none since entering or a push). */
  mergeRefusals?: number;
  /** Its own failed runs, over every entry of the PR in this queue (absent: none): a likelihood feature. */
  failedAttempts?: number;
  /** Speculation by likelihood isolated this entry once (it is not isolated again). */
  speculated?: true;
}

/** What a new entry starts from: its number, and its failed attempts in earlier entries in this queue. */
export interface PullRequestInput {
  number: number;
  failedAttempts?: number;
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
  /** `failedFirst`: its run failed on a base holding that PR, which had failed first; it waits for it to settle. */
  | { type: 'REQUEUE'; reason: string; failedFirst?: number }
  /**
   * A run that contained it ended while it waits in PENDING_FAILURE (`failed`: with a failure). `awaitsMore`: with it
   * counted, the failure policy still awaits runs behind it (`awaitsRunsBehind`, engine/planner/failurePolicy.ts).
   */
  | { type: 'RUN_BEHIND_ENDED'; failed: boolean; awaitsMore?: true }
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
  /** The git host refused the merge: it is no longer under way (`counted`: with the target where expected). */
  | { type: 'MERGE_REFUSED'; counted?: boolean }
  /** Into a group of a bisection (a failed batch split, an anti-flake retest, a PR isolated by speculation). */
  | { type: 'JOIN_GROUP'; bisectionId: string; group: string; part: readonly number[] }
  /** Speculation by likelihood isolates it (it then joins a group of one): once an entry. */
  | { type: 'ISOLATE' }
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

/** The counters of the context: unbounded, and read by no guard (graph exploration leaves them out of a state's key). */
export const PULL_REQUEST_COUNTERS = [
  'runsBehindEnded',
  'runsBehindFailed',
  'failureRetests',
  'mergeRefusals',
  'failedAttempts',
] as const;

/**
 * What the planner and the PR's record read of its machine: its state and the facts of its context, flat (absent
 * counters are 0). `final`: the snapshot is no longer active (a merge under way then is one that was done).
 */
export interface PullRequestFacts {
  state: PullRequestState;
  runId: string | null;
  testedBase: readonly number[] | null;
  bisectionId: string | null;
  group: string | null;
  mergeRequested: boolean;
  runsBehindEnded: number;
  runsBehindFailed: number;
  failureRetests: number;
  speculated?: boolean;
}

export function pullRequestFacts(value: unknown, context: PullRequestContext, active: boolean): PullRequestFacts {
  return {
    state: value as PullRequestState,
    runId: context.runId,
    testedBase: context.testedBase ?? null,
    bisectionId: context.bisection?.id ?? null,
    group: context.bisection?.group ?? null,
    mergeRequested: context.merge !== undefined && active,
    runsBehindEnded: context.runsBehindEnded ?? 0,
    runsBehindFailed: context.runsBehindFailed ?? 0,
    failureRetests: context.failureRetests ?? 0,
    speculated: context.speculated === true,
  };
}
