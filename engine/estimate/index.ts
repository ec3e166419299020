/**
 * Merge estimates of a queue's PRs (model.ts, the forecast; history.ts, what it learns from): the ready PRs in queue
 * order, each with its failure likelihood and the run testing it, the queue's concurrency and mode, and the CI
 * durations, batch sizes and failure rate it has seen. PRs not ready have no estimate (nothing says when they will be).
 * The P90 served is the play's, calibrated by the queue's own record of how its past estimates fared (calibration.ts,
 * calibrationRecord.ts).
 */
import { mainWindowOf, type QueueRecord } from '../model/queues.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { TestRunRecord } from '../model/testRuns.js';
import type { ReadTx } from '../store/store.js';
import { calibrate } from './calibration.js';
import { readScores, readWaiting } from './calibrationRecord.js';
import { readQueueHistory } from './history.js';
import { estimateMerges, type EstimatePr, type MergeEstimate } from './model.js';

export type { EstimateInput, EstimatePr, MergeEstimate } from './model.js';
export { estimateMerges } from './model.js';
export { readQueueHistory } from './history.js';
export { fitDurations, type DurationSample } from './durations.js';
export { lackingSamples, readScores, recordEnds as recordEstimateEnds, writeSamples } from './calibrationRecord.js';

/** The run testing a PR, for the forecast: under way, or passed (the PR waits for those ahead); otherwise none. */
function runOfPr(run: TestRunRecord): Pick<EstimatePr, 'run'> {
  const startedAt = Date.parse(run.createdAt);
  if (run.status === 'in_progress') return { run: { id: run.id, startedAt } };
  if (run.status === 'succeeded' && run.endedAt !== null)
    return { run: { id: run.id, startedAt, endedAt: Date.parse(run.endedAt) } };
  return {};
}

/** The estimates served: the play's (forecastQueue), their P90s calibrated by the queue's record (calibration.ts). */
export function estimateQueue(
  tx: ReadTx,
  queue: QueueRecord,
  enqueued: readonly PullRequestRecord[],
  runOf: (runId: string) => TestRunRecord | undefined,
  now: number,
  failureOf?: (pr: PullRequestRecord) => number | undefined,
): Map<number, MergeEstimate> {
  const estimates = forecastQueue(tx, queue, enqueued, runOf, now, failureOf);
  if (estimates.size === 0) return estimates;
  const scores = readScores(tx, queue.id);
  return calibrate(estimates, now, queue.runtime.lineup[0], scores, readWaiting(tx, queue.id, now));
}

/** The play's own estimates (model.ts), as calibration scores them. */
export function forecastQueue(
  tx: ReadTx,
  queue: QueueRecord,
  enqueued: readonly PullRequestRecord[],
  runOf: (runId: string) => TestRunRecord | undefined,
  now: number,
  /** Benchmarks: each PR's chance to fail, in place of its failure likelihood (bench/estimatesParts.ts). */
  failureOf?: (pr: PullRequestRecord) => number | undefined,
): Map<number, MergeEstimate> {
  const history = readQueueHistory(tx, queue.id, now);
  const lineup = new Set(queue.runtime.lineup);
  const prs: EstimatePr[] = [];
  for (const pr of enqueued) {
    if (!lineup.has(pr.number)) continue;
    const run =
      (pr.state === 'TESTING' || pr.state === 'TESTS_PASSED') && pr.runId !== null ? runOf(pr.runId) : undefined;
    prs.push({
      number: pr.number,
      failureP: failureOf?.(pr) ?? pr.likelihood?.p ?? history.failureRate,
      ...(pr.readyAt === null ? {} : { readyAt: pr.readyAt }),
      // Speculation by likelihood's isolation is a bisection of one: off the main line, then back to it.
      ...(pr.group !== null ? { bisecting: true } : {}),
      ...(run === undefined ? {} : runOfPr(run)),
    });
  }
  const settings = queue.settings;
  return estimateMerges({
    now,
    parallel: settings.mode === 'parallel',
    concurrency: mainWindowOf(settings, queue.runtime),
    batchSize: settings.batch ? Math.max(1, history.batchSize) : 1,
    ...(settings.batch
      ? {
          batching: {
            minSize: Math.max(1, settings.batchingMinSize),
            maxWaitMs: settings.batchingMaxWaitTimeMinutes * 60_000,
          },
        }
      : {}),
    lineup: prs,
    runDurationsMs: history.durations.finishedMs,
    cancelledDurationsMs: history.durations.cancelledMs,
    ...(history.durations.allTime === undefined ? {} : { allTime: history.durations.allTime }),
  });
}
