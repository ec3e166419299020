/** The record of a test run, as getMergeQueueTestingDetails reads it (spec 2.5) and the planner uses it. */
import type { CommitState } from '../../machines/testRun.js';
import type { TestRunStatus } from '../../machines/vocabulary.js';
import type { QueueMode } from '../../machines/vocabulary.js';
import type { RequiredStatusesSource } from './queues.js';

export interface StatusCheck {
  context: string;
  state: CommitState;
  url: string;
  description: string;
  updatedAt: string;
}

export interface TestRunRecord {
  id: string;
  queueId: string;
  org: string;
  /** `main`: the queue's own runs; `bisection`: runs splitting a failed batch. */
  kind: 'main' | 'bisection';
  /** The PRs under test, in queue order. */
  prs: number[];
  /** The PRs ahead of them merged into the test branch first (predictive testing; in parallel mode, their dependencies). */
  basePrs: number[];
  /** The queue's mode when the run started (absent in runs stored before parallel mode). */
  mode?: QueueMode;
  baseSha: string;
  testBranch: string;
  /** Empty until the git host has built the branch. */
  testBranchSha: string;
  requiredStatuses: string[];
  requiredStatusesSource: RequiredStatusesSource | undefined;
  statusChecks: StatusCheck[];
  status: TestRunStatus;
  reason: string | null;
  bisectionId: string | null;
  /** A bisection run: how many PRs had merged since its bisection began when it started (its pass stands only if none merged since but its base). */
  bisectionMark?: number;
  createdAt: string;
  endedAt: string | null;
  /** Failures of this run that the flaky-test service vouched for as quarantined. */
  quarantinedFailures?: string[];
}

/** A run's test branch: `greenline/<targetBranch>/<testRunId>` (the run id is its last segment). */
export function testBranchName(targetBranch: string, runId: string): string {
  return `greenline/${targetBranch}/${runId}`;
}
