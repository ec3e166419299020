/**
 * What the merge estimate learns from a queue's own history, read from its metrics records (metrics/records.ts):
 * the durations of its main-line runs (each one of the last hour, and the mean of every run since it began, so a
 * quiet hour still has one), how many PRs its runs held, and its share of PRs that failed.
 */
import { readTotals, WINDOW_MS } from '../metrics/records.js';
import type { ReadTx } from '../store/store.js';

export interface QueueHistory {
  runDurationsMs: number[];
  /** Mean PRs per main-line run (1 when none ran yet). */
  batchSize: number;
  /** Failed over concluded main-line PRs, smoothed towards 10% with a prior of 5 PRs. */
  failureRate: number;
}

const PRIOR_PRS = 5;
const PRIOR_RATE = 0.1;

export function readQueueHistory(tx: ReadTx, queueId: string, now: number): QueueHistory {
  const durations: number[] = [];
  const from = Math.max(0, now - WINDOW_MS + 1);
  for (const { key, value } of tx.scan('metricsLog', { prefix: [queueId], start: [queueId, from] })) {
    if (Number(key[1]) > now) continue;
    if (value.kind === 'runFinished' && value.type === 'main' && value.status !== 'cancelled') durations.push(value.runMs);
  }
  const totals = readTotals(tx.get('metricsTotals', [queueId]));
  const finished = totals.runsFinished.main.succeeded + totals.runsFinished.main.failed;
  // Every run since the queue began counts through its mean: once for each of the last hour's runs it stands beside.
  if (finished > durations.length && finished > 0) {
    const mean = (totals.runMs.main.succeeded + totals.runMs.main.failed) / finished;
    durations.push(...Array.from({ length: Math.max(1, durations.length) }, () => mean));
  }
  const batches = totals.histograms.main.batchSize;
  const runs = batches.counts.reduce((sum, count) => sum + count, 0);
  const concluded = totals.conclusions.main;
  const resolved = concluded.merged + concluded.failed;
  return {
    runDurationsMs: durations,
    batchSize: runs === 0 ? 1 : batches.sum / runs,
    failureRate: (concluded.failed + PRIOR_RATE * PRIOR_PRS) / (resolved + PRIOR_PRS),
  };
}
