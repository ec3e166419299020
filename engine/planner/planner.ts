/**
 * The planner: pure policy. Given the queue's line-up (in order), its active runs and its settings, it says what to
 * do next. The engine applies the decisions through the machines and asks again until the planner has nothing more
 * to say.
 *
 * The one rule behind every decision: a result (a run in progress, a pass, a failure) holds only while the PRs it
 * was tested on top of are still the PRs expected ahead of it. The PRs expected ahead of a PR are those before it in
 * the line-up that it depends on (see graph.ts: all of them in single mode; in parallel mode those whose impacted
 * targets overlap, with what they depend on) and that are not silent (view.ts): PRs in a bisection and doomed PRs
 * are left out, so the PRs behind them are predicted without them. Merged PRs are part of the target branch and drop
 * out of every base. A PR merges once nothing it depends on is left ahead of it, so in parallel mode independent
 * lanes test and merge without waiting for each other.
 *
 * The failure policy (failures.ts): a failure counts only on a settled base (every PR under it passed); until then
 * the failed PRs wait and the PRs behind them wait too, so that one failure resets the PRs behind it once. A failed
 * set of several PRs is bisected off the main line (bisectionMemory.ts); a PR that failed alone is kicked, or, with
 * anti-flake protection, vouched for by a run behind it or retested once when nothing behind it can vouch.
 */
import type { PullRequestFacts } from '../../machines/index.js';
import type { QueueState } from '../../machines/vocabulary.js';
import type { QueueSettings } from '../model/queues.js';
import type { BisectionMemory } from './bisectionMemory.js';
import { invalidations, resolutions } from './failures.js';
import type { Targets } from './graph.js';
import { gateStarts } from './graphSpeculation.js';
import { lineSpeculations } from './lineSpeculation.js';
import { merges } from './mergeDecisions.js';
import { speculations } from './speculation.js';
import { startRuns } from './starts.js';
import { LineupView } from './view.js';
import { hasQueueTag } from '../../machines/index.js';

export type { Targets } from './graph.js';
export type { BisectionMemory, FailedSet } from './bisectionMemory.js';

/**
 * A PR as the planner sees it: the facts of its machine (state, run, tested base, bisection group, merge under way,
 * the failure policy's counters: `PullRequestFacts`), and what its record adds.
 */
export interface PlanPullRequest extends PullRequestFacts {
  number: number;
  noBatch: boolean;
  readyAt: number | null;
  upToDate: boolean;
  /** Impacted targets for its head SHA (parallel mode; ignored in single mode). */
  targets: Targets;
  /** Its failure likelihood when it became ready (null: none). */
  likelihood?: number | null;
}

export interface PlanRun {
  id: string;
  kind: 'main' | 'bisection';
  prs: readonly number[];
}

export interface PlanInput {
  state: QueueState;
  settings: QueueSettings;
  bisectionConcurrency: number;
  /** The queue policy (model/policy.ts); absent: the current one. */
  policy?: number;
  /** Speculation by likelihood: how many more PRs the CI budget lets it isolate, and the queue's failure share. */
  speculation?: { allowance: number; failureShare: number };
  /** How many main-line runs may be in flight (the adaptive window); absent is `settings.concurrency`. */
  window?: number;
  /** Enqueued and ready PRs, in queue order. */
  lineup: readonly PlanPullRequest[];
  activeRuns: readonly PlanRun[];
  /** PRs merged into the target branch that results may still mention. */
  merged: ReadonlySet<number>;
  /** Per bisection: what failed in it, the PRs merged since it began, and the groups waiting for another. */
  bisections: Readonly<Record<string, BisectionMemory>>;
  now: number;
}

export type Decision =
  | { kind: 'cancelRun'; runId: string; reason: string }
  | { kind: 'requeue'; pr: number; reason: string }
  | { kind: 'kick'; pr: number }
  /** Anti-flake: test a failed PR once more, since nothing behind it can vouch for it. */
  | { kind: 'retest'; pr: number }
  | { kind: 'merge'; pr: number; vouchedBy?: string; direct?: boolean }
  | { kind: 'startRun'; runKind: 'main' | 'bisection'; prs: number[]; basePrs: number[]; bisectionId: string | null }
  /** A failed set of several PRs on a settled base: split it off the main line, into a bisection (a new one when null). */
  | { kind: 'bisect'; prs: number[]; basePrs: number[]; bisectionId: string | null }
  /** A bisection group split again without a run (it is not a chain any more, or is known to fail). */
  | { kind: 'split'; prs: number[]; bisectionId: string }
  | { kind: 'failAtOnce'; pr: number; basePrs: number[]; bisectionId: string }
  /** Speculation by likelihood: test a PR likely to fail alone, off the main line, before the PRs behind it build on it. */
  | { kind: 'isolate'; pr: number; likelihood: number; behind: number; line?: true }
  | { kind: 'settle' };

export interface Plan {
  decisions: Decision[];
  /** When to plan again although nothing happened (a batch's longest wait ends). */
  wakeAt: number | null;
}

export function plan(input: PlanInput): Plan {
  const view = new LineupView(input);
  for (const phase of [invalidations, resolutions, merges, speculations, lineSpeculations]) {
    const decisions = phase(view);
    if (decisions.length > 0) return { decisions, wakeAt: null };
  }
  const starts = gateStarts(view, startRuns);
  if (starts.decisions.length > 0) return starts;
  return { decisions: settle(view), wakeAt: starts.wakeAt };
}

function settle(view: LineupView): Decision[] {
  const { state, activeRuns, lineup } = view.input;
  if (!hasQueueTag(state, 'settles')) return [];
  if (activeRuns.length > 0 || lineup.some((pr) => pr.mergeRequested)) return [];
  return [{ kind: 'settle' }];
}
