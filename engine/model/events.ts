/** What happens to a queue: every state change is one of these, appended to the queue's log in its transaction. */
import type { CommitState } from '../../machines/testRun.js';
import type { MergeResult, PullRequestFacts, TestBranchResult } from '../providers/types.js';
import type { QueuePatch } from './queues.js';

export type QueueInput =
  /** `by`: the id of the API token that made the change, when one did (the queue's settings history). */
  /** `policy`: the queue policy it is created under (model/policy.ts); absent in logs recorded before versions: 1. */
  | { type: 'created'; patch: QueuePatch; by?: string; policy?: number }
  | { type: 'configured'; patch: QueuePatch; by?: string }
  /** On a PR's operations, `by` says who asked, for its timeline (`token tok_…`, `@login with /greenline`). */
  | {
      type: 'submitted';
      number: number;
      priority?: number | string;
      noBatch?: boolean;
      skipTheLine?: boolean;
      by?: string;
    }
  | { type: 'cancelled'; number: number; by?: string }
  | { type: 'restarted'; number: number; by?: string }
  | { type: 'status'; runId: string; context: string; state: CommitState; url: string; description: string }
  | { type: 'timer'; name: string }
  | { type: 'targetHead'; sha: string }
  /** The git host reports a push to the target branch (a webhook): where the branch is now. */
  | { type: 'targetPushed'; sha: string }
  /** The git host reports a push to a queued PR's branch (a webhook): its new head. */
  | { type: 'prPushed'; number: number; sha: string }
  | { type: 'prChecked'; number: number; entryId: string; facts: PullRequestFacts | null }
  | { type: 'branchBuilt'; runId: string; result: TestBranchResult }
  | { type: 'merged'; number: number; entryId: string; result: MergeResult }
  /** Impacted targets uploaded for a PR's head SHA; the list itself is in `impactedTargets`, named by its digest. */
  | { type: 'targetsSet'; number: number; sha: string; targets: number | 'ALL'; digest: string }
  /** The git host recorded a comment or the status check on the PR; the PR's timeline says so. */
  | { type: 'prNoted'; number: number; kind: 'comment' | 'status_check'; message: string }
  /**
   * Retention (engine/retention): deletes these ended PRs (with their timelines and impacted targets) and ended runs
   * if they ended before `before`, and, with `events`, the log's events below seq `events.below` that are older than
   * `events.before` (settings changes are kept: they are the queue's settings history). See transaction/prune.ts.
   */
  | { type: 'prune'; before: string; prs: number[]; runs: string[]; events?: { below: number; before: string } };

export interface LoggedEvent {
  seq: number;
  at: string;
  input: QueueInput;
}
