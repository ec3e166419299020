/**
 * A queue's last hour for the organization page: merges, the median time in queue of the PRs merged, and merges per
 * five minutes (the trend). Read from the metrics log the engine keeps (key [queueId, atMs, seq, index]), the same
 * observations `getMergeQueueMetrics` reports; only the last hour is scanned.
 */
import { WINDOW_MS } from '../engine/metrics/index.js';
import type { Engine } from '../engine/engine.js';

export const TREND_BUCKETS = 12;
const BUCKET_MS = WINDOW_MS / TREND_BUCKETS;

export interface HourFigures {
  merges: number;
  /** Median time in queue (ms) of the PRs merged in the hour; null when none was. */
  p50InQueueMs: number | null;
  /** Merges per bucket, oldest first. */
  trend: number[];
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function lastHour(engine: Engine, queueId: string, now: number): HourFigures {
  const from = Math.max(0, now - WINDOW_MS + 1);
  const trend = new Array<number>(TREND_BUCKETS).fill(0);
  const merges = engine.mergesInLastHour(queueId);
  for (const { at } of merges) {
    const bucket = Math.min(TREND_BUCKETS - 1, Math.floor((at - from) / BUCKET_MS));
    trend[bucket] = (trend[bucket] ?? 0) + 1;
  }
  return {
    merges: merges.length,
    p50InQueueMs: median(merges.flatMap(({ inQueueMs }) => (inQueueMs === null ? [] : [inQueueMs]))),
    trend,
  };
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
