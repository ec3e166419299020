/** Side effects the engine asks for: written to the outbox in the transaction that decides them, run after commit. */
import type { CheckRunWrite, CiRun, MergeRequest, TestBranchRequest } from '../providers/types.js';
import type { RepoRef } from './queues.js';
import type { PullRequestState } from '../../machines/vocabulary.js';
import type { NotifyEffect } from '../notifications/events.js';

export type Effect =
  | { kind: 'fetchTargetHead'; repo: RepoRef; branch: string }
  | { kind: 'checkPullRequest'; repo: RepoRef; branch: string; number: number; entryId: string }
  | { kind: 'buildTestBranch'; request: TestBranchRequest }
  | { kind: 'startCi'; run: CiRun }
  | { kind: 'endRun'; repo: RepoRef; runId: string; branch: string }
  | { kind: 'merge'; number: number; entryId: string; request: MergeRequest }
  | { kind: 'comment'; repo: RepoRef; number: number; body: string }
  | {
      kind: 'statusCheck';
      repo: RepoRef;
      sha: string;
      state: 'pending' | 'success' | 'failure';
      description: string;
      number?: number;
    }
  /** `stateLabelsEnabled`: the PR's label names its queue state now (one label, the others of Greenline removed). */
  | { kind: 'stateLabel'; repo: RepoRef; number: number; state: PullRequestState }
  /**
   * The check run of a PR's head (GitHub's `greenline`), decided outside the queue's transactions, throttled
   * (engine/providers/github/checkRuns.ts): `externalId` is the PR's queue entry, which finds the check run again.
   */
  | { kind: 'checkRun'; repo: RepoRef; number: number; sha: string; externalId: string; check: CheckRunWrite }
  /** Outgoing webhooks: the transaction's events, made into messages for the organization's endpoints (notifications/). */
  | NotifyEffect;

export interface OutboxEntry {
  effect: Effect;
  /** Attempts so far; failures are retried with a growing delay. */
  attempts: number;
  /** When the transaction that decided it committed (ms); absent in entries written before it was recorded. */
  decidedAt?: number;
}
