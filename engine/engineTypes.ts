/** The types of the engine's façade (engine.ts): how callers name a queue and what they pass and get back. */
import type { FailurePredictor } from './model/likelihoodModel.js';
import type { CommitState } from '../machines/testRun.js';
import type { RepoRef } from './model/queues.js';
import type { TestRunRecord } from './model/testRuns.js';
import type { CI, GitHost } from './providers/types.js';
import type { QueueOwnership } from './runtime/ownership.js';
import type { Scheduler } from './runtime/scheduler.js';

/** Identifies a queue: its organization, repository and target branch. */
export interface QueueKey {
  org: string;
  repo: RepoRef;
  branch: string;
}

export interface QueueFilter {
  host?: string;
  owner?: string;
  name?: string;
}

export interface EngineOptions {
  /** Time and timers; the wall clock unless given. */
  scheduler?: Scheduler;
  gitHost?: GitHost;
  ci?: CI;
  /** Where failures of effects are reported (they are retried). */
  onError?: (message: string, error: unknown) => void;
  /**
   * Leave effects in the outbox instead of performing them. For replaying a recorded event log (`greenline replay`):
   * the log already holds what every effect brought back.
   */
  holdEffects?: boolean;
  /** Which queues this process drives (several processes on PostgreSQL); all of them unless given. */
  ownership?: QueueOwnership;
  /** Benchmarks only: a failure predictor that replaces the likelihood model (engine/model/likelihoodModel.ts). */
  predictor?: FailurePredictor;
  /**
   * Take the samples that calibrate the P90 merge estimate (runtime/estimateSampler.ts); default true. Simulations turn
   * them off unless they judge the estimates: a forecast per busy queue per 30 s of virtual time made them 3–10× slower.
   */
  sampleEstimates?: boolean;
  /**
   * The key dashboard sessions are signed with, read at each use (serve: the session key file, engine/store/keyFile.ts).
   * Unless given, a random key of this engine: sessions end with the process.
   */
  sessionKey?: () => Buffer;
  /** Outgoing webhooks: private addresses allowed, how messages are posted, the signatures' clock (notifications/service.ts). */
  webhooks?: import('./notifications/service.js').WebhookOptions;
}

export interface SubmitOptions {
  priority?: number | string;
  noBatch?: boolean;
  skipTheLine?: boolean;
  /** Who asked (the PR's timeline says so): `token tok_…` through the API or the dashboard. */
  by?: string;
}

export interface CommitStatusInput {
  repo: RepoRef;
  sha: string;
  context: string;
  state: CommitState;
  url?: string;
  description?: string;
}

export interface TestRunDetails {
  run: TestRunRecord;
  repo: RepoRef;
  titles: Map<number, string>;
  /** The union of the targets of every PR in the run (with its base), and of the tested PRs only. */
  impactedTargets?: { all: string[]; tested: string[] };
}
