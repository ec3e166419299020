/**
 * What the merge estimate learns from a queue's own history, read from its metrics records (metrics/records.ts):
 * the durations of its runs in the last hour (main line and bisection alike: the same CI), those cancelled among them
 * (they lasted at least that: durations.ts), the mean and count of every run since it began (so a quiet hour still
 * has one), how many PRs its runs held, and its share of PRs that failed (on the main line or in a bisection).
 */
import { readTotals, WINDOW_MS } from '../metrics/records.js';
import type { ReadTx } from '../store/store.js';
import type { DurationSample } from './durations.js';

export interface QueueHistory {
  durations: DurationSample;
  /** Mean PRs per main-line run (1 when none ran yet). */
  batchSize: number;
  /** Failed over concluded PRs (main line and bisection), smoothed towards 10% with a prior of 5 PRs. */
  failureRate: number;
}

const PRIOR_PRS = 5;
const PRIOR_RATE = 0.1;

export function readQueueHistory(tx: ReadTx, queueId: string, now: number): QueueHistory {
  const finishedMs: number[] = [];
  const cancelledMs: number[] = [];
  const from = Math.max(0, now - WINDOW_MS + 1);
  for (const { key, value } of tx.scan('metricsLog', { prefix: [queueId], start: [queueId, from] })) {
    if (Number(key[1]) > now || value.kind !== 'runFinished') continue;
    (value.status === 'cancelled' ? cancelledMs : finishedMs).push(value.runMs);
  }
  const totals = readTotals(tx.get('metricsTotals', [queueId]));
  let runs = 0;
  let totalMs = 0;
  for (const type of ['main', 'bisection'] as const) {
    runs += totals.runsFinished[type].succeeded + totals.runsFinished[type].failed;
    totalMs += totals.runMs[type].succeeded + totals.runMs[type].failed;
  }
  const batches = totals.histograms.main.batchSize;
  const batchRuns = batches.counts.reduce((sum, count) => sum + count, 0);
  // A PR kicked by a bisection concludes there, not on the main line: with batching, nearly every failure does.
  const failed = totals.conclusions.main.failed + totals.conclusions.bisection.failed;
  const resolved = totals.conclusions.main.merged + totals.conclusions.bisection.merged + failed;
  return {
    durations: { finishedMs, cancelledMs, ...(runs > 0 ? { allTime: { meanMs: totalMs / runs, runs } } : {}) },
    batchSize: batchRuns === 0 ? 1 : batches.sum / batchRuns,
    failureRate: (failed + PRIOR_RATE * PRIOR_PRS) / (resolved + PRIOR_PRS),
  };
}
